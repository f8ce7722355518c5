/**
 * Pieces of the C-chain end-to-end bench that need no node: deterministic sender keys, pre-signed EIP-1559 txs
 * (ETH transfers, ERC-20 transfer calls) for chain 43112, and the floor: the same raw txs decoded and run one by
 * one through @ethereumjs/vm (createVM, Cancun, default state manager), sender recovery inside the clock.
 */
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common'
import { createTx, createTxFromRLP } from '@ethereumjs/tx'
import { Account, bytesToHex, createAddressFromPrivateKey, hexToBytes } from '@ethereumjs/util'
import { createVM, runTx } from '@ethereumjs/vm'
import { executionBlock } from '../../src/chains/evm/exec/block-run.js'

export const CHAIN_ID = 43112n
export const MAX_FEE = 1000n * 10n ** 9n
export const TIP = 1n

export const common = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork: Hardfork.Cancun })
const commons = new Map([[CHAIN_ID, common]])
/** the signing rules of an EVM chain by its EIP-155 chain ID (C's is `common`) */
function commonOf(chainId: bigint) {
  let c = commons.get(chainId)
  if (c === undefined) {
    c = createCustomCommon({ chainId: Number(chainId) }, Mainnet, { hardfork: Hardfork.Cancun })
    commons.set(chainId, c)
  }
  return c
}

/** The i-th bench key: 0xcc00..00(i+1). */
export function benchKey(i: number): Uint8Array {
  const k = new Uint8Array(32)
  k[0] = 0xcc
  k[31] = i + 1
  return k
}

const addresses = new Map<string, string>()

/** the key's address, 0x lowercase (memoised: deriving it costs about a millisecond) */
export function addressOf(key: Uint8Array): string {
  const k = bytesToHex(key)
  let a = addresses.get(k)
  if (a === undefined) {
    a = createAddressFromPrivateKey(key).toString()
    addresses.set(k, a)
  }
  return a
}

export interface SignedTx {
  /** index into the senders list the tx was signed with */
  sender: number
  /** the sender's address, 0x lowercase */
  from: string
  nonce: bigint
  raw: `0x${string}`
  hash: `0x${string}`
}

export interface TxSpec {
  to: string
  value?: bigint
  data?: string
  gasLimit: bigint
}

/** One signed EIP-1559 tx, for C unless `chainId` names another EVM chain. */
export function signTx(key: Uint8Array, sender: number, nonce: bigint, spec: TxSpec, chainId = CHAIN_ID): SignedTx {
  const tx = createTx(
    {
      type: 2,
      chainId,
      nonce,
      to: spec.to === '' ? undefined : (spec.to as `0x${string}`),
      value: spec.value ?? 0n,
      data: spec.data === undefined ? undefined : hexToBytes(spec.data as `0x${string}`),
      gasLimit: spec.gasLimit,
      maxFeePerGas: MAX_FEE,
      maxPriorityFeePerGas: TIP,
    },
    { common: commonOf(chainId) },
  ).sign(key)
  return { sender, from: addressOf(key), nonce, raw: bytesToHex(tx.serialize()), hash: bytesToHex(tx.hash()) }
}

/**
 * `count` txs from `keys`, round robin (nonce-major, so one sender's nonces come in order and all senders
 * advance together); `startNonces[s]` is sender s's first nonce; `spec(s, n)` says what tx n of sender s does.
 */
export function signMany(
  keys: Uint8Array[],
  count: number,
  startNonces: bigint[],
  spec: (sender: number, n: number) => TxSpec,
  chainId = CHAIN_ID,
): SignedTx[] {
  const out: SignedTx[] = []
  for (let n = 0; out.length < count; n++)
    for (let s = 0; s < keys.length && out.length < count; s++)
      out.push(signTx(keys[s]!, s, startNonces[s]! + BigInt(n), spec(s, n), chainId))
  return out
}

/**
 * ETH transfers of 1 wei from each sender to the next one (one sender: to a fixed sink), from `startNonces`
 * (default 0 each), on C unless `chainId` names another EVM chain.
 */
export function signTransfers(
  keys: Uint8Array[],
  count: number,
  startNonces: bigint[] = keys.map(() => 0n),
  chainId = CHAIN_ID,
): SignedTx[] {
  const sink = '0x000000000000000000000000000000000000beef'
  const to = keys.map((_, s) => (keys.length === 1 ? sink : addressOf(keys[(s + 1) % keys.length]!)))
  return signMany(keys, count, startNonces, (s) => ({ to: to[s]!, value: 1n, gasLimit: 21_000n }), chainId)
}

const pad32 = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0')

/** calldata of ERC-20 transfer(to, value) */
export function transferCall(to: string, value: bigint): string {
  return `0xa9059cbb${pad32(to)}${pad32(value.toString(16))}`
}

/** calldata of ERC-20 balanceOf(owner) */
export function balanceOfCall(owner: string): string {
  return `0x70a08231${pad32(owner)}`
}

/** creation code with one uint256 constructor argument */
export function deployData(bytecode: string, arg: bigint): string {
  return `${bytecode}${pad32(arg.toString(16))}`
}

/**
 * Run `txs` straight through @ethereumjs/vm on a fresh VM with every sender funded, after a warm-up of the
 * first `warmup` txs on a separate VM (JIT). Returns tx/s.
 */
export async function floorTps(keys: Uint8Array[], txs: SignedTx[], warmup = 200): Promise<number> {
  const raws = txs.map((t) => hexToBytes(t.raw))
  const run = async (list: Uint8Array[]) => {
    const vm = await createVM({ common })
    for (const key of keys)
      await vm.stateManager.putAccount(createAddressFromPrivateKey(key), new Account(0n, 10n ** 24n))
    const block = executionBlock(common, {
      parentHash: new Uint8Array(32),
      number: 1n,
      time: 1n,
      gasLimit: 10n ** 12n,
      baseFee: 1n,
    })
    const t0 = performance.now()
    for (const raw of list) {
      const tx = createTxFromRLP(raw, { common })
      const r = await runTx(vm, { tx, block, skipBlockGasLimitValidation: true })
      if (r.execResult.exceptionError !== undefined) throw new Error(`floor: tx failed: ${r.execResult.exceptionError}`)
    }
    await vm.stateManager.getStateRoot()
    return performance.now() - t0
  }
  await run(raws.slice(0, warmup))
  const ms = await run(raws)
  return Math.round((raws.length / ms) * 1000)
}
