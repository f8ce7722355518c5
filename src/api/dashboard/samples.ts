/**
 * The dashboard's time series: one sample a second (each chain's height, blocks and transactions accepted since
 * the previous sample, the event-loop delay over that second beyond the 10 ms sampling period, the process's RSS), the last `capacity` samples kept
 * (5 minutes by default) so a page that opens later still draws its charts. Each chain's finality (its blocks'
 * own time to their acceptance here) is kept as the last value and the mean over the samples' window.
 * The timer is unref'd; `close()` stops it and the delay histogram.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'

export interface ChainSample {
  height: number | null
  /** blocks accepted since the previous sample */
  blocks: number
  /** transactions in them (blocks whose VM counts them) */
  txs: number
}

export interface Sample {
  /** unix ms */
  at: number
  /** seconds since the previous sample (about 1) */
  seconds: number
  chains: Record<string, ChainSample>
  /** event-loop delay over the interval, ms */
  loopDelay: { p99: number; max: number }
  rssMb: number
}

export interface Finality {
  /** ms from the last accepted block's own time to its acceptance here */
  lastMs: number
  /** the mean over the blocks accepted in the samples' window */
  meanMs: number
  blocks: number
}

export interface SamplerOptions {
  /** each chain's alias and last accepted height */
  heights: () => { alias: string; height: number | null }[]
  intervalMs?: number
  capacity?: number
  now?: () => number
}

interface Counts {
  blocks: number
  txs: number
  finalitySumMs: number
  lastFinalityMs: number | null
}

/** the event-loop delay histogram's sampling period, ms */
const RESOLUTION_MS = 10

const round1 = (n: number): number => Math.round(n * 10) / 10

export class Sampler {
  readonly #samples: Sample[] = []
  readonly #counts = new Map<string, Counts>()
  /** per chain: the finality sums of the samples kept, for the windowed mean */
  readonly #finalityWindow: { alias: string; blocks: number; sumMs: number }[][] = []
  readonly #delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
  readonly #timer: NodeJS.Timeout
  readonly #opts: Required<SamplerOptions>
  #last: number

  constructor(opts: SamplerOptions) {
    this.#opts = { intervalMs: 1000, capacity: 300, now: Date.now, ...opts }
    this.#last = this.#opts.now()
    this.#delay.enable()
    this.#timer = setInterval(() => this.sample(), this.#opts.intervalMs)
    this.#timer.unref()
  }

  /** A block the chain `alias` accepted, at unix ms `at`. */
  accepted(alias: string, block: { timestampMs: number; txCount?: number }, at: number): void {
    const c = this.#counts.get(alias) ?? { blocks: 0, txs: 0, finalitySumMs: 0, lastFinalityMs: null }
    const finality = Math.max(0, at - block.timestampMs)
    c.blocks++
    c.txs += block.txCount ?? 0
    c.finalitySumMs += finality
    c.lastFinalityMs = finality
    this.#counts.set(alias, c)
  }

  /** Takes a sample now (the timer calls it every interval). */
  sample(): Sample {
    const at = this.#opts.now()
    const chains: Record<string, ChainSample> = {}
    const window: { alias: string; blocks: number; sumMs: number }[] = []
    for (const { alias, height } of this.#opts.heights()) {
      const c = this.#counts.get(alias)
      chains[alias] = { height, blocks: c?.blocks ?? 0, txs: c?.txs ?? 0 }
      if (c !== undefined && c.blocks > 0) window.push({ alias, blocks: c.blocks, sumMs: c.finalitySumMs })
      if (c !== undefined) {
        c.blocks = 0
        c.txs = 0
        c.finalitySumMs = 0
      }
    }
    // the histogram's values include its sampling period: the delay is what lies beyond it
    const toMs = (ns: number): number => (Number.isFinite(ns) ? round1(Math.max(0, ns / 1e6 - RESOLUTION_MS)) : 0)
    const sample: Sample = {
      at,
      seconds: Math.max(0.001, (at - this.#last) / 1000),
      chains,
      loopDelay: { p99: toMs(this.#delay.percentile(99)), max: toMs(this.#delay.max) },
      rssMb: round1(process.memoryUsage.rss() / (1024 * 1024)),
    }
    this.#delay.reset()
    this.#last = at
    this.#samples.push(sample)
    this.#finalityWindow.push(window)
    while (this.#samples.length > this.#opts.capacity) {
      this.#samples.shift()
      this.#finalityWindow.shift()
    }
    return sample
  }

  /** every sample kept, oldest first */
  history(): Sample[] {
    return this.#samples.slice()
  }

  /** the samples taken after unix ms `at` */
  since(at: number): Sample[] {
    let i = this.#samples.length
    while (i > 0 && this.#samples[i - 1]!.at > at) i--
    return this.#samples.slice(i)
  }

  /** A chain's finality: the last block's, and the mean over the window (including blocks not sampled yet). */
  finality(alias: string): Finality | null {
    const c = this.#counts.get(alias)
    if (c === undefined || c.lastFinalityMs === null) return null
    let blocks = c.blocks
    let sumMs = c.finalitySumMs
    for (const w of this.#finalityWindow) {
      for (const e of w) {
        if (e.alias !== alias) continue
        blocks += e.blocks
        sumMs += e.sumMs
      }
    }
    return { lastMs: c.lastFinalityMs, meanMs: blocks === 0 ? 0 : round1(sumMs / blocks), blocks }
  }

  close(): void {
    clearInterval(this.#timer)
    this.#delay.disable()
  }
}
