/**
 * geth's JSON shapes for the txpool namespace (internal/ethapi TxPoolAPI) and for a pending tx
 * (NewRPCTransaction with no block: blockHash, blockNumber and transactionIndex null; gasPrice = fee cap for
 * 1559 txs). Map keys are checksummed addresses and decimal nonces, as geth prints them.
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import { bigIntToHex, bytesToHex } from '@ethereumjs/util'
import { checksum, type PoolTx } from './entry.js'
import type { TxPool } from './pool.js'

export interface RpcTransaction {
  blockHash: null
  blockNumber: null
  from: string
  gas: string
  gasPrice: string
  maxFeePerGas?: string
  maxPriorityFeePerGas?: string
  hash: string
  input: string
  nonce: string
  to: string | null
  transactionIndex: null
  value: string
  type: string
  accessList?: { address: string; storageKeys: string[] }[]
  chainId?: string
  v: string
  r: string
  s: string
  yParity?: string
}

/** A pool tx as geth's RPC prints a tx that is in no block yet (key order as geth's struct). */
export function rpcPendingTx(p: PoolTx): RpcTransaction {
  const tx = p.tx
  const out: RpcTransaction = {
    blockHash: null,
    blockNumber: null,
    from: p.from,
    gas: bigIntToHex(tx.gasLimit),
    gasPrice: bigIntToHex(p.feeCap),
    hash: p.hash,
    input: bytesToHex(tx.data),
    nonce: bigIntToHex(tx.nonce),
    to: tx.to === undefined ? null : tx.to.toString(),
    transactionIndex: null,
    value: bigIntToHex(tx.value),
    type: bigIntToHex(BigInt(tx.type)),
    v: bigIntToHex(tx.v ?? 0n),
    r: bigIntToHex(tx.r ?? 0n),
    s: bigIntToHex(tx.s ?? 0n),
  }
  if (tx.type === 0) {
    const v = tx.v ?? 0n
    if (v >= 35n) out.chainId = bigIntToHex((v - 35n) / 2n)
    return reorder(out)
  }
  if (tx.type === 2) {
    out.maxFeePerGas = bigIntToHex(p.feeCap)
    out.maxPriorityFeePerGas = bigIntToHex(p.tipCap)
  }
  out.accessList = accessListJson(tx)
  out.chainId = bigIntToHex(tx.common.chainId())
  out.yParity = bigIntToHex(tx.v ?? 0n)
  return reorder(out)
}

const KEY_ORDER = [
  'blockHash',
  'blockNumber',
  'from',
  'gas',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'hash',
  'input',
  'nonce',
  'to',
  'transactionIndex',
  'value',
  'type',
  'accessList',
  'chainId',
  'v',
  'r',
  's',
  'yParity',
] as const

function reorder(tx: RpcTransaction): RpcTransaction {
  const out: Record<string, unknown> = {}
  for (const key of KEY_ORDER) if (tx[key] !== undefined) out[key] = tx[key]
  return out as unknown as RpcTransaction
}

function accessListJson(tx: TypedTransaction): { address: string; storageKeys: string[] }[] {
  if (!('accessList' in tx)) return []
  return tx.accessList.map(([address, keys]) => ({
    address: bytesToHex(address),
    storageKeys: keys.map((k) => bytesToHex(k)),
  }))
}

function byNonce<T>(txs: readonly PoolTx[], f: (p: PoolTx) => T): Record<string, T> {
  const out: Record<string, T> = {}
  for (const p of txs) out[p.nonce.toString()] = f(p)
  return out
}

function byAccount<T>(m: Map<string, PoolTx[]>, f: (p: PoolTx) => T): Record<string, Record<string, T>> {
  const out: Record<string, Record<string, T>> = {}
  for (const addr of [...m.keys()].map((a) => [checksum(a), a] as const).sort((x, y) => (x[0] < y[0] ? -1 : 1))) {
    out[addr[0]] = byNonce(m.get(addr[1]) ?? [], f)
  }
  return out
}

/** txpool_content */
export function txpoolContentJson(pool: TxPool) {
  const { pending, queued } = pool.content()
  return { pending: byAccount(pending, rpcPendingTx), queued: byAccount(queued, rpcPendingTx) }
}

/** txpool_contentFrom */
export function txpoolContentFromJson(pool: TxPool, address: string) {
  const { pending, queued } = pool.contentFrom(address)
  return { pending: byNonce(pending, rpcPendingTx), queued: byNonce(queued, rpcPendingTx) }
}

/** txpool_status */
export function txpoolStatusJson(pool: TxPool): { pending: string; queued: string } {
  const { pending, queued } = pool.stats()
  return { pending: bigIntToHex(BigInt(pending)), queued: bigIntToHex(BigInt(queued)) }
}

/** geth's inspect line: `<to>: <value> wei + <gas> gas × <price> wei` (price = fee cap for 1559 txs). */
export function inspectLine(p: PoolTx): string {
  const to = p.tx.to === undefined ? 'contract creation' : checksum(p.tx.to.toString())
  return `${to}: ${p.tx.value} wei + ${p.gas} gas × ${p.feeCap} wei`
}

/** txpool_inspect */
export function txpoolInspectJson(pool: TxPool) {
  const { pending, queued } = pool.content()
  return { pending: byAccount(pending, inspectLine), queued: byAccount(queued, inspectLine) }
}
