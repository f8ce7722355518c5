/**
 * Block production for a lone validator (`--dev`, or a network where this node is the only validator), over any
 * chain VM (src/chains/vm.ts): when the VM has work waiting (`pending$` / `hasPending`), wait until a child of the
 * last accepted block may be built (`nextBuildTimeMs`, the EVM's minimum delay and capacity; at once without the
 * hook), then build -> verify -> accept -> setPreference. One block at a time; work announced meanwhile is
 * scheduled once the block is accepted, so a block holds as much as the VM puts in it and nothing announced
 * during a build is lost. The chain actor runs it in normalOp (its `produceBlocks` slot) and stops it on exit.
 *
 * While work keeps arriving, blocks gather it: a build starts at most every `gatherMs` (100 ms), unless no work
 * arrived for `quietMs` (3 ms), when it starts at once. A block pays fixed costs (the state commit's upper trie
 * nodes, the accept batch, the tries of its txs and receipts), so under a stream of transactions many small blocks
 * cost far more than a few larger ones (docs/performance.md, "Fourth round"); a lone transaction, or a
 * script that sends one and waits for its receipt, still gets its block within `quietMs`.
 */
import type { Subscription } from 'rxjs'
import type { ChainVm, VmLogger } from './vm.js'

/** Retry delay after a build that held nothing (work waits that cannot go in a block yet) or a failed one. */
export const PRODUCER_RETRY_MS = 1_000
/** While work keeps arriving, a build starts at most this long after the previous one started. */
export const PRODUCER_GATHER_MS = 100
/** ... and at once when no work arrived for this long (nobody is sending: nothing more to gather). */
export const PRODUCER_QUIET_MS = 3

export type ProducerVm = Pick<
  ChainVm,
  'buildBlock' | 'setPreference' | 'lastAccepted' | 'pending$' | 'hasPending' | 'nextBuildTimeMs'
>

export class BlockProducer {
  #timer: NodeJS.Timeout | undefined
  #running: Promise<void> | undefined
  #subscription: Subscription | undefined
  #stopped = false
  #produced = 0
  /** when the last build started and when work was last announced (performance.now ms) */
  #lastStart = Number.NEGATIVE_INFINITY
  #lastNews = Number.NEGATIVE_INFINITY
  readonly #now: () => number
  readonly retryMs: number
  readonly gatherMs: number
  readonly quietMs: number

  constructor(
    private readonly vm: ProducerVm,
    private readonly log: Pick<VmLogger, 'debug' | 'error'>,
    opts: { now?: () => number; retryMs?: number; gatherMs?: number; quietMs?: number } = {},
  ) {
    this.#now = opts.now ?? Date.now
    this.retryMs = opts.retryMs ?? PRODUCER_RETRY_MS
    this.gatherMs = opts.gatherMs ?? PRODUCER_GATHER_MS
    this.quietMs = opts.quietMs ?? PRODUCER_QUIET_MS
  }

  /** blocks produced since start */
  get produced(): number {
    return this.#produced
  }

  /** a block is being built or accepted right now */
  get building(): boolean {
    return this.#running !== undefined
  }

  start(): void {
    this.#subscription = this.vm.pending$.subscribe(() => {
      this.#lastNews = performance.now()
      this.#schedule()
    })
    this.#schedule()
  }

  async stop(): Promise<void> {
    this.#stopped = true
    this.#subscription?.unsubscribe()
    clearTimeout(this.#timer)
    this.#timer = undefined
    await this.#running
  }

  #schedule(delayMs?: number): void {
    if (this.#stopped || this.#running !== undefined || this.#timer !== undefined) return
    if (!this.vm.hasPending()) return
    const earliest = this.vm.nextBuildTimeMs?.(this.vm.lastAccepted().id)
    const wait = delayMs ?? (earliest === undefined ? 0 : Math.max(0, earliest - this.#now()))
    this.#timer = setTimeout(() => this.#gather(), wait)
  }

  /** Builds once the gathering window has passed or work stopped arriving; until then waits for the sooner. */
  #gather(): void {
    if (this.#stopped) return
    const now = performance.now()
    const windowLeft = this.#lastStart + this.gatherMs - now
    const quietLeft = this.#lastNews + this.quietMs - now
    if (windowLeft > 0 && quietLeft > 0) {
      this.#timer = setTimeout(() => this.#gather(), Math.min(windowLeft, quietLeft))
      return
    }
    this.#timer = undefined
    this.#lastStart = now
    this.#running = this.#produce().then((retry) => {
      // clear first: work announced during the build (or made ready by the accept) is scheduled here
      this.#running = undefined
      this.#schedule(retry)
    })
  }

  /** One build; resolves to a retry delay, or undefined to schedule as usual. Never rejects. */
  async #produce(): Promise<number | undefined> {
    try {
      const block = await this.vm.buildBlock()
      if (block === undefined) {
        this.log.debug('nothing fits the next block yet')
        return this.retryMs
      }
      await block.verify()
      await block.accept()
      this.vm.setPreference(block.id)
      this.#produced++
      this.log.debug('accepted block', { height: block.height, id: block.id })
      return undefined
    } catch (err) {
      this.log.error('block production failed', { error: err instanceof Error ? err.message : String(err) })
      return this.retryMs
    }
  }
}
