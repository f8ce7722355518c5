/**
 * The ethereumjs Common for the C chain: Cancun rules (blob txs are refused by the executor, no withdrawals),
 * the chain id from the network, a cached sender recovery and keccak-256, native where they load (native-crypto.ts).
 * Gas refunds are switched off once, here (`disableRefunds`): the refund cap becomes gasUsed / 2^53, i.e. zero.
 *
 * Every tx, block header, EVM and VM that ethereumjs constructs copies the Common and merges its package's
 * parameter set into the copy again (a JSON round trip and a rebuilt cache: ~1 ms per decoded tx, measured as the
 * largest item after sender recovery in bench/cchain.bench.ts). The four sets are merged once here, and the copies
 * skip re-merging those same objects; any other `updateParams` call still applies.
 */
import { paramsBlock } from '@ethereumjs/block'
import { type Common, createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common'
import { paramsEVM } from '@ethereumjs/evm'
import { paramsTx } from '@ethereumjs/tx'
import { paramsVM } from '@ethereumjs/vm'
import { fastKeccak256 } from './native-crypto.js'
import { cachedEcrecover, type Ecrecover } from './sender-cache.js'
import './tx-sender.js'

const PRELOADED: readonly object[] = [paramsBlock, paramsTx, paramsEVM, paramsVM]

export interface EvmCommonOptions {
  /** sender recovery; default: a cache over ethereumjs' noble secp256k1 recovery */
  ecrecover?: Ecrecover
}

export function createEvmCommon(chainId: bigint, opts: EvmCommonOptions = {}): Common {
  const common = createCustomCommon({ chainId: Number(chainId), name: `avalanche-${chainId}` }, Mainnet, {
    hardfork: Hardfork.Cancun,
    customCrypto: { ecrecover: opts.ecrecover ?? cachedEcrecover(), keccak256: fastKeccak256 },
  })
  for (const params of PRELOADED) common.updateParams(params as Parameters<Common['updateParams']>[0])
  // once here: every copy shares these params, and the VM and EVM skip re-merging the preloaded sets below
  disableRefunds(common)
  const merge = common.updateParams
  // an own property, so Common.copy() (Object.assign) hands it to every copy
  common.updateParams = function (this: Common, params) {
    if (PRELOADED.includes(params)) return
    merge.call(this, params)
  }
  common.isActivatedEIP = isActivatedEIP
  return common
}

/** the active EIPs as a set, by the array ethereumjs keeps them in (it builds a new one when the rules change) */
const eipSets = new WeakMap<readonly number[], Set<number>>()

/**
 * ethereumjs' `isActivatedEIP` (`_activatedEIPsCache.includes(eip)`, an 80-entry scan) as a set lookup: the
 * interpreter asks it twice per opcode, ~15 us of an ERC-20 transfer. An own property, handed to every copy.
 */
function isActivatedEIP(this: Common, eip: number): boolean {
  const list = (this as unknown as { _activatedEIPsCache: readonly number[] })._activatedEIPsCache
  let set = eipSets.get(list)
  if (set === undefined) {
    set = new Set(list)
    eipSets.set(list, set)
  }
  return set.has(eip)
}

/** Avalanche pays no gas refunds since AP1 (reference/cchain.md 5.2): the refund cap becomes gasUsed / 2^53. */
function disableRefunds(common: Common): void {
  common.updateParams({
    1: { maxRefundQuotient: Number.MAX_SAFE_INTEGER },
    3529: { maxRefundQuotient: Number.MAX_SAFE_INTEGER },
  })
}
