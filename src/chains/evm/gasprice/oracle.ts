/**
 * The C chain's gas price oracle (coreth eth/gasprice/gasprice.go), behind eth_maxPriorityFeePerGas,
 * eth_gasPrice, eth_suggestPriceOptions and eth_feeHistory (reference cchain.md 3.3).
 *
 * Tip: the 40th percentile of the effective tips of all txs in the last <= 40 blocks (walking back from the
 * `latest` block, never block 0) whose timestamp is within 80 s of now, clamped to [tx-pool-price-limit,
 * 150 gwei]; with no samples the last value is repeated (initially the minimum, 1 wei by default). The value is
 * cached per head hash. Fee history: at most 2048 blocks per call (more are silently truncated), reaching back
 * at most 25,000 blocks from the last accepted block, at most 100 percentiles; blockCount + 1 base fees.
 */
import type { Common } from '@ethereumjs/common'
import { createTxFromBlockBodyData, type TypedTransaction } from '@ethereumjs/tx'
import { remember } from '../../../runtime/bounded-map.js'
import { type AvaHeader, decodeBlock, headerHash } from '../header.js'
import type { StoredReceipt } from '../store/receipt.js'
import {
  checkPercentiles,
  EMPTY_FEE_HISTORY,
  type FeeHistory,
  FeeHistoryError,
  MAX_QUERY_PERCENTILES,
  processPercentiles,
  resolveBlockRange,
  type SlimBlock,
  slimBlock,
} from './fee-history.js'
import { effectiveGasTip } from './tip.js'

export const GWEI = 1_000_000_000n

/** What the oracle reads; the JSON-RPC backend (src/chains/evm/api/backend.ts) has this shape. */
export interface OracleChain {
  readonly config: { readonly txPoolPriceLimit: number }
  readonly core: {
    readonly common: Common
    getBlockByHash(hash: Uint8Array): Promise<Uint8Array | undefined>
    getBlockByNumber(number: bigint): Promise<Uint8Array | undefined>
    getReceipts(hash: Uint8Array): Promise<StoredReceipt[] | undefined>
  }
  /** the head `latest` names */
  latest(): { hash: Uint8Array; header: AvaHeader }
  lastAccepted(): { hash: Uint8Array; header: AvaHeader }
  /** the base fee of a child of `parent` built now (the next base fee after the head) */
  estimateBaseFeeAfter(parent: AvaHeader): bigint
  /** ms wall clock */
  now(): number
}

export interface OracleOptions {
  /** blocks sampled for the tip (40) */
  blocks?: number
  /** percentile of the sampled tips (40) */
  percentile?: number
  /** blocks older than this are not sampled (80) */
  maxLookbackSeconds?: number
  /** lowest tip suggested (default: the config's tx-pool-price-limit) */
  minPrice?: bigint
  /** highest tip suggested (150 gwei) */
  maxPrice?: bigint
  /** eth_feeHistory block count cap (2048) */
  maxCallBlockHistory?: bigint
  /** how far behind the last accepted block eth_feeHistory reaches (25,000) */
  maxBlockHistory?: bigint
}

interface FeeInfo {
  time: bigint
  tips: bigint[]
  parentHash: Uint8Array
}

const HISTORY_CACHE_SIZE = 4096
const FEE_INFO_EXTRA_SLOTS = 5

const key = (hash: Uint8Array): string => Buffer.from(hash).toString('hex')

export class GasPriceOracle {
  readonly #chain: OracleChain
  readonly #blocks: number
  readonly #percentile: number
  readonly #lookback: bigint
  readonly #minPrice: bigint
  readonly #maxPrice: bigint
  readonly #maxCall: bigint
  readonly #maxHistory: bigint
  readonly #feeInfo = new Map<string, FeeInfo>()
  readonly #history = new Map<bigint, SlimBlock>()
  #lastHead = ''
  #lastPrice: bigint
  #pending: { head: string; price: Promise<bigint> } | undefined

  constructor(chain: OracleChain, opts: OracleOptions = {}) {
    this.#chain = chain
    this.#blocks = Math.max(1, opts.blocks ?? 40)
    this.#percentile = Math.min(100, Math.max(0, opts.percentile ?? 40))
    this.#lookback = BigInt(opts.maxLookbackSeconds ?? 80)
    this.#minPrice = opts.minPrice ?? BigInt(chain.config.txPoolPriceLimit)
    this.#maxPrice = opts.maxPrice ?? 150n * GWEI
    this.#maxCall = opts.maxCallBlockHistory ?? 2048n
    this.#maxHistory = opts.maxBlockHistory ?? 25_000n
    this.#lastPrice = this.#minPrice
  }

  /** eth_maxPriorityFeePerGas */
  suggestTip(): Promise<bigint> {
    const head = this.#chain.latest()
    const headKey = key(head.hash)
    if (headKey === this.#lastHead) return Promise.resolve(this.#lastPrice)
    if (this.#pending?.head === headKey) return this.#pending.price
    const price = this.#computeTip(head).then((p) => {
      this.#lastHead = headKey
      this.#lastPrice = p
      return p
    })
    const pending = { head: headKey, price }
    this.#pending = pending
    const clear = () => {
      if (this.#pending === pending) this.#pending = undefined
    }
    price.then(clear, clear)
    return price
  }

  async #computeTip(head: { hash: Uint8Array; header: AvaHeader }): Promise<bigint> {
    const nowSec = BigInt(Math.floor(this.#chain.now() / 1000))
    const limit = BigInt(this.#blocks)
    const lower = head.header.number >= limit ? head.header.number - limit : 0n
    const tips: bigint[] = []
    let hash = head.hash
    for (let n = head.header.number; n > lower; n--) {
      const info = await this.#blockFeeInfo(hash)
      if (info.time + this.#lookback < nowSec) break
      for (const t of info.tips) tips.push(t)
      hash = info.parentHash
    }
    let price = this.#lastPrice
    if (tips.length > 0) {
      tips.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      price = tips[Math.floor(((tips.length - 1) * this.#percentile) / 100)]!
    }
    if (price > this.#maxPrice) price = this.#maxPrice
    if (price < this.#minPrice) price = this.#minPrice
    return price
  }

  /**
   * A block's effective tips: its receipts' effective gas prices less its base fee (the receipt's price is the base
   * fee plus exactly that tip: exec/block-run.ts `effectiveGasPrice`), so no tx is decoded; a block without a
   * base fee, or without its receipts, has its txs decoded (~40 us each through ethereumjs, which held the event
   * loop for tens of ms on a block of a thousand transfers). Accepted blocks never hold a tx whose fee cap is under
   * the base fee.
   */
  async #blockFeeInfo(hash: Uint8Array): Promise<FeeInfo> {
    const k = key(hash)
    const cached = this.#feeInfo.get(k)
    if (cached !== undefined) return cached
    const rlp = await this.#chain.core.getBlockByHash(hash)
    if (rlp === undefined) throw new Error(`block 0x${k} not found`)
    const block = decodeBlock(rlp)
    const baseFee = block.header.baseFee
    const receipts = baseFee === undefined ? undefined : await this.#chain.core.getReceipts(hash)
    const tips =
      baseFee !== undefined && receipts?.length === block.txs.length
        ? receipts.map((r) => r.effectiveGasPrice - baseFee)
        : block.txs.map((raw) => {
            const { tip, capTooLow } = effectiveGasTip(this.#decode(raw), baseFee)
            if (capTooLow) throw new Error('max fee per gas less than block base fee')
            return tip
          })
    const info = { time: block.header.time, tips, parentHash: block.header.parentHash }
    return remember(this.#feeInfo, k, info, this.#blocks + FEE_INFO_EXTRA_SLOTS)
  }

  #decode(raw: Uint8Array): TypedTransaction {
    return createTxFromBlockBodyData(raw, { common: this.#chain.core.common })
  }

  /**
   * eth_feeHistory: `newest` is an rpc.BlockNumber (-1 pending, -2 latest, -3 accepted, -4 safe, else a
   * number). Throws coreth's errors. As geth (and the execution API spec) answers, `baseFee` has one entry more
   * than the blocks: the base fee of the block after the newest, which is that block's own base fee when it is
   * accepted already, else the base fee of a block built on the newest now. The range is resolved against one
   * read of the last accepted block, so blocks accepted meanwhile never shift it.
   */
  async feeHistory(count: bigint, newest: bigint, percentiles: readonly number[]): Promise<FeeHistory> {
    if (count < 1n) return EMPTY_FEE_HISTORY
    if (percentiles.length > MAX_QUERY_PERCENTILES)
      throw new Error(`${FeeHistoryError.invalidPercentile}: over the query limit ${MAX_QUERY_PERCENTILES}`)
    if (count > this.#maxCall) count = this.#maxCall
    checkPercentiles(percentiles)
    const head = this.#chain.lastAccepted()
    const lastAccepted = head.header.number
    const [last, blocks] = resolveBlockRange(newest, count, lastAccepted, this.#maxHistory)
    if (blocks === 0n) return EMPTY_FEE_HISTORY
    const oldest = last + 1n - blocks
    const reward: bigint[][] = []
    const baseFee: bigint[] = []
    const ratio: number[] = []
    for (let n = oldest; n < oldest + blocks; n++) {
      const sb = await this.#slimBlock(n)
      if (sb === undefined) {
        if (n === oldest) return EMPTY_FEE_HISTORY
        break
      }
      const [r, b, g] = processPercentiles(sb, percentiles)
      if (r !== undefined) reward.push(r)
      baseFee.push(b)
      ratio.push(g)
    }
    // the next block's base fee, when the whole range was read (a missing block ends the answer there, as coreth)
    if (ratio.length === Number(blocks)) {
      if (last < lastAccepted) {
        const next = await this.#slimBlock(last + 1n)
        if (next !== undefined) baseFee.push(next.baseFee)
      } else baseFee.push(this.#chain.estimateBaseFeeAfter(head.header))
    }
    return {
      oldestBlock: oldest,
      reward: percentiles.length > 0 ? reward : undefined,
      baseFee,
      gasUsedRatio: ratio,
    }
  }

  async #slimBlock(n: bigint): Promise<SlimBlock | undefined> {
    const hit = this.#history.get(n)
    if (hit !== undefined) return hit
    const rlp = await this.#chain.core.getBlockByNumber(n)
    if (rlp === undefined) return undefined
    const block = decodeBlock(rlp)
    const txs = block.txs.map((raw) => this.#decode(raw))
    const receipts = (await this.#chain.core.getReceipts(headerHash(block.header))) ?? []
    return remember(this.#history, n, slimBlock(block.header, txs, receipts), HISTORY_CACHE_SIZE)
  }
}
