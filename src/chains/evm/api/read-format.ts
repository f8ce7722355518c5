/**
 * Block, header, transaction and receipt results for read.ts (coreth's RPCMarshalBlock, rpcMarshalHeader,
 * newRPCTransactionFromBlockIndex and the block receipts), decoded from a resolved block's RLP.
 */
import { createTxFromBlockBodyData, type TypedTransaction } from '@ethereumjs/tx'
import { decodeBlock } from '../header.js'
import { blockJson } from '../rules/header-json.js'
import type { EthBackend, ResolvedBlock } from './backend.js'
import { rpcReceipt, rpcTransaction } from './format.js'
import { hex } from './hexutil.js'

type Common = EthBackend['core']['common']

/** A transaction from a block body. */
export const decodeTx = (common: Common, raw: Uint8Array): TypedTransaction =>
  createTxFromBlockBodyData(raw, { common })

/** RPCMarshalBlock: the block with tx hashes or full txs. */
export function blockResult(common: Common, b: ResolvedBlock, fullTx: boolean): Record<string, unknown> {
  const { header, txs, extData } = decodeBlock(b.rlp)
  const transactions = txs.map((raw, index) => {
    const tx = decodeTx(common, raw)
    if (!fullTx) return hex(tx.hash())
    return rpcTransaction(tx, {
      blockHash: b.hash,
      blockNumber: header.number,
      index,
      ...(header.baseFee === undefined ? {} : { baseFee: header.baseFee }),
    })
  })
  return blockJson(header, b.hash, BigInt(b.rlp.length), transactions, extData)
}

/** coreth's rpcMarshalHeader: the block fields without size, extra data, transactions and uncles. */
export function headerResult(b: ResolvedBlock): Record<string, unknown> {
  const { header, extData } = decodeBlock(b.rlp)
  const out = blockJson(header, b.hash, 0n, [], extData)
  for (const key of ['size', 'blockExtraData', 'transactions', 'uncles']) delete out[key]
  return out
}

/** The tx at `index` of `b`, or null. */
export function txAt(common: Common, b: ResolvedBlock, index: bigint): Record<string, unknown> | null {
  const { header, txs } = decodeBlock(b.rlp)
  const raw = index < BigInt(txs.length) ? txs[Number(index)] : undefined
  if (raw === undefined) return null
  return rpcTransaction(decodeTx(common, raw), {
    blockHash: b.hash,
    blockNumber: header.number,
    index: Number(index),
    ...(header.baseFee === undefined ? {} : { baseFee: header.baseFee }),
  })
}

/** The raw tx at `index` of `b`, or 0x. */
export function rawTxAt(b: ResolvedBlock | null, index: bigint): string {
  if (b === null) return '0x'
  const { txs } = decodeBlock(b.rlp)
  const raw = index < BigInt(txs.length) ? txs[Number(index)] : undefined
  return raw === undefined ? '0x' : hex(raw)
}

/** eth_getBlockReceipts: the receipts of `b` with their positions. */
export async function blockReceipts(backend: EthBackend, b: ResolvedBlock): Promise<Record<string, unknown>[]> {
  const { header, txs } = decodeBlock(b.rlp)
  const receipts = (await backend.core.getReceipts(b.hash)) ?? []
  if (receipts.length !== txs.length) throw new Error(`receipts length mismatch: ${txs.length} vs ${receipts.length}`)
  let firstLogIndex = 0
  return receipts.map((r, index) => {
    const out = rpcReceipt(r, decodeTx(backend.core.common, txs[index]!), {
      blockHash: b.hash,
      blockNumber: header.number,
      index,
      firstLogIndex,
    })
    firstLogIndex += r.logs.length
    return out
  })
}
