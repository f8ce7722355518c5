/**
 * eth_feeHistory's data (coreth eth/gasprice/feehistory.go): per block the base fee, gasUsed / gasLimit and the
 * requested reward percentiles (effective tips of the block's txs, sorted ascending, weighted by gas used). Only
 * accepted blocks are read; the base fee of the block after the newest is added by the oracle, as geth does.
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import type { StoredReceipt } from '../store/receipt.js'
import { effectiveGasTip } from './tip.js'

export const FeeHistoryError = {
  invalidPercentile: 'invalid reward percentile',
  beyondHead: 'request beyond head block',
  beyondHistoricalLimit: 'request beyond historical limit',
} as const

/** Most reward percentiles per call. */
export const MAX_QUERY_PERCENTILES = 100

/** A block reduced to what fee history needs. */
export interface SlimBlock {
  gasUsed: bigint
  gasLimit: bigint
  baseFee: bigint
  /** sorted by reward, ascending (stable) */
  txs: { gasUsed: bigint; reward: bigint }[]
}

export interface FeeHistory {
  oldestBlock: bigint
  /** undefined when no percentiles were asked for */
  reward: bigint[][] | undefined
  baseFee: bigint[] | undefined
  gasUsedRatio: number[] | undefined
}

export const EMPTY_FEE_HISTORY: FeeHistory = {
  oldestBlock: 0n,
  reward: undefined,
  baseFee: undefined,
  gasUsedRatio: undefined,
}

export function slimBlock(
  header: { gasUsed: bigint; gasLimit: bigint; baseFee?: bigint | undefined },
  txs: readonly TypedTransaction[],
  receipts: readonly StoredReceipt[],
): SlimBlock {
  const baseFee = header.baseFee ?? 0n
  const sorted = txs.map((tx, i) => ({
    gasUsed: receipts[i]?.gasUsed ?? 0n,
    reward: effectiveGasTip(tx, baseFee).tip,
  }))
  sorted.sort((a, b) => (a.reward < b.reward ? -1 : a.reward > b.reward ? 1 : 0))
  return { gasUsed: header.gasUsed, gasLimit: header.gasLimit, baseFee, txs: sorted }
}

/** coreth's processPercentiles: [reward row or undefined, base fee, gas used ratio]. */
export function processPercentiles(
  sb: SlimBlock,
  percentiles: readonly number[],
): [bigint[] | undefined, bigint, number] {
  const ratio = Number(sb.gasUsed) / Number(sb.gasLimit)
  if (percentiles.length === 0) return [undefined, sb.baseFee, ratio]
  if (sb.txs.length === 0) return [percentiles.map(() => 0n), sb.baseFee, ratio]
  const reward: bigint[] = []
  let txIndex = 0
  let sum = sb.txs[0]!.gasUsed
  for (const p of percentiles) {
    const threshold = BigInt(Math.trunc((Number(sb.gasUsed) * p) / 100))
    while (sum < threshold && txIndex < sb.txs.length - 1) {
      txIndex++
      sum += sb.txs[txIndex]!.gasUsed
    }
    reward.push(sb.txs[txIndex]!.reward)
  }
  return [reward, sb.baseFee, ratio]
}

/** Go's %f. */
const goF = (x: number): string => x.toFixed(6)

/** coreth's percentile checks (after the query limit and the block-count cap). */
export function checkPercentiles(percentiles: readonly number[]): void {
  percentiles.forEach((p, i) => {
    if (p < 0 || p > 100) throw new Error(`${FeeHistoryError.invalidPercentile}: ${goF(p)}`)
    const prev = percentiles[i - 1]
    if (i > 0 && prev !== undefined && p <= prev)
      throw new Error(`${FeeHistoryError.invalidPercentile}: #${i - 1}:${goF(prev)} >= #${i}:${goF(p)}`)
  })
}

/**
 * coreth's resolveBlockRange: `lastBlock` is an rpc.BlockNumber (-1 pending, -2 latest, -3 accepted, -4 safe).
 * Returns the newest block and the number of blocks, 0 when there is nothing to return.
 */
export function resolveBlockRange(
  lastBlock: bigint,
  blocks: bigint,
  lastAccepted: bigint,
  maxBlockHistory: bigint,
): [bigint, bigint] {
  if (lastBlock === -1n) {
    lastBlock = -2n
    blocks--
  }
  if (blocks === 0n) return [0n, 0n]
  const maxQueryDepth = maxBlockHistory - 1n
  if (lastBlock < 0n && lastBlock >= -4n) lastBlock = lastAccepted
  else if (lastAccepted > maxQueryDepth && lastAccepted - maxQueryDepth > lastBlock)
    throw new Error(`${FeeHistoryError.beyondHistoricalLimit}: requested ${lastBlock}, head ${lastAccepted}`)
  else if (lastBlock > lastAccepted)
    throw new Error(`${FeeHistoryError.beyondHead}: requested ${lastBlock}, head ${lastAccepted}`)
  if (blocks > lastBlock + 1n) blocks = lastBlock + 1n
  const oldest = lastBlock - blocks + 1n
  const depth = lastAccepted - oldest
  if (depth > maxQueryDepth) blocks -= depth - maxQueryDepth
  return [lastBlock, blocks]
}
