/**
 * The ethereumjs Common for the C chain: Cancun rules (blob txs are refused by the executor, no withdrawals),
 * the chain id from the network, and a cached sender recovery. Gas refunds are switched off after the VM has
 * loaded its parameters (`disableRefunds`): the refund cap becomes gasUsed / 2^53, i.e. zero.
 */
import { type Common, createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common'
import { cachedEcrecover, type Ecrecover } from './sender-cache.js'

export interface EvmCommonOptions {
  /** sender recovery; default: a cache over ethereumjs' noble secp256k1 recovery */
  ecrecover?: Ecrecover
}

export function createEvmCommon(chainId: bigint, opts: EvmCommonOptions = {}): Common {
  return createCustomCommon({ chainId: Number(chainId), name: `avalanche-${chainId}` }, Mainnet, {
    hardfork: Hardfork.Cancun,
    customCrypto: { ecrecover: opts.ecrecover ?? cachedEcrecover() },
  })
}

/** Avalanche pays no gas refunds since AP1 (reference/cchain.md 5.2). Call after createVM (which loads params). */
export function disableRefunds(common: Common): void {
  common.updateParams({
    1: { maxRefundQuotient: Number.MAX_SAFE_INTEGER },
    3529: { maxRefundQuotient: Number.MAX_SAFE_INTEGER },
  })
}
