/**
 * geth's JSON shapes for a transaction (ethapi NewRPCTransaction), a log (types.Log) and a receipt (ethapi
 * marshalReceipt). Key order follows geth's structs; the receipt, a Go map, has sorted keys.
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import type { FoundLog } from '../store/logs.js'
import type { StoredReceipt } from '../store/receipt.js'
import { hex, qty } from './hexutil.js'

/** Where a tx sits in an accepted block; `baseFee` is the block's (it sets a 1559 tx's gasPrice). */
export interface TxPosition {
  blockHash: Uint8Array
  blockNumber: bigint
  index: number
  baseFee?: bigint
}

function accessListJson(tx: TypedTransaction): { address: string; storageKeys: string[] }[] {
  if (!('accessList' in tx)) return []
  return tx.accessList.map(([address, keys]) => ({ address: hex(address), storageKeys: keys.map((k) => hex(k)) }))
}

/** geth's NewRPCTransaction; without `at`, blockHash/blockNumber/transactionIndex are null (a pending tx). */
export function rpcTransaction(tx: TypedTransaction, at?: TxPosition): Record<string, unknown> {
  const v = tx.v ?? 0n
  const feeCap = 'maxFeePerGas' in tx ? tx.maxFeePerGas : undefined
  const tipCap = 'maxPriorityFeePerGas' in tx ? tx.maxPriorityFeePerGas : undefined
  let gasPrice: bigint
  if (feeCap !== undefined && tipCap !== undefined) {
    const base = at?.baseFee
    gasPrice = feeCap
    if (base !== undefined && base + tipCap < feeCap) gasPrice = base + tipCap
  } else {
    gasPrice = (tx as { gasPrice: bigint }).gasPrice
  }
  const out: Record<string, unknown> = {
    blockHash: at === undefined ? null : hex(at.blockHash),
    blockNumber: at === undefined ? null : qty(at.blockNumber),
    from: tx.getSenderAddress().toString(),
    gas: qty(tx.gasLimit),
    gasPrice: qty(gasPrice),
  }
  if (feeCap !== undefined && tipCap !== undefined) {
    out.maxFeePerGas = qty(feeCap)
    out.maxPriorityFeePerGas = qty(tipCap)
  }
  out.hash = hex(tx.hash())
  out.input = hex(tx.data)
  out.nonce = qty(tx.nonce)
  out.to = tx.to === undefined ? null : tx.to.toString()
  out.transactionIndex = at === undefined ? null : qty(at.index)
  out.value = qty(tx.value)
  out.type = qty(tx.type)
  if (tx.type === 0) {
    if (v >= 35n) out.chainId = qty((v - 35n) / 2n)
  } else {
    out.accessList = accessListJson(tx)
    out.chainId = qty(tx.common.chainId())
  }
  out.v = qty(v)
  out.r = qty(tx.r ?? 0n)
  out.s = qty(tx.s ?? 0n)
  if (tx.type !== 0) out.yParity = qty(v === 0n ? 0n : 1n)
  return out
}

/** geth's Log JSON. */
export function rpcLog(log: FoundLog, removed = false): Record<string, unknown> {
  return {
    address: hex(log.address),
    topics: log.topics.map((t) => hex(t)),
    data: hex(log.data),
    blockNumber: qty(log.blockNumber),
    transactionHash: hex(log.txHash),
    transactionIndex: qty(log.txIndex),
    blockHash: hex(log.blockHash),
    logIndex: qty(log.logIndex),
    removed,
  }
}

/** geth's marshalReceipt (keys sorted, as Go prints a map); `firstLogIndex` = index in the block of its first log. */
export function rpcReceipt(
  r: StoredReceipt,
  tx: TypedTransaction,
  at: TxPosition & { firstLogIndex: number },
): Record<string, unknown> {
  const logs = r.logs.map((l, i) =>
    rpcLog({
      ...l,
      blockHash: at.blockHash,
      blockNumber: at.blockNumber,
      txHash: r.txHash,
      txIndex: at.index,
      logIndex: at.firstLogIndex + i,
    }),
  )
  return {
    blockHash: hex(at.blockHash),
    blockNumber: qty(at.blockNumber),
    contractAddress:
      r.contractAddress.length === 20 && r.contractAddress.some((b) => b !== 0) ? hex(r.contractAddress) : null,
    cumulativeGasUsed: qty(r.cumulativeGasUsed),
    effectiveGasPrice: qty(r.effectiveGasPrice),
    from: r.from.length === 20 ? hex(r.from) : tx.getSenderAddress().toString(),
    gasUsed: qty(r.gasUsed),
    logs,
    logsBloom: hex(r.bloom),
    status: qty(r.status),
    to: tx.to === undefined ? null : tx.to.toString(),
    transactionHash: hex(r.txHash),
    transactionIndex: qty(at.index),
    type: qty(tx.type),
  }
}
