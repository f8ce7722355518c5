/**
 * Block production for a lone validator (`--dev`, or a network where this node is the only validator), over any
 * chain VM (src/chains/vm.ts): when the VM has work waiting (`pending$` / `hasPending`), wait until a child of the
 * last accepted block may be built (`nextBuildTimeMs`, the EVM's minimum delay and capacity; at once without the
 * hook), then build -> verify -> accept -> setPreference. One block at a time; work announced meanwhile is
 * scheduled once the block is accepted, so a block holds as much as the VM puts in it and nothing announced
 * during a build is lost. The chain actor runs it in normalOp (its `produceBlocks` slot) and stops it on exit.
 */
import type { Subscription } from 'rxjs'
import type { ChainVm, VmLogger } from './vm.js'

/** Retry delay after a build that held nothing (work waits that cannot go in a block yet) or a failed one. */
export const PRODUCER_RETRY_MS = 1_000

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
  readonly #now: () => number
  readonly retryMs: number

  constructor(
    private readonly vm: ProducerVm,
    private readonly log: Pick<VmLogger, 'debug' | 'error'>,
    opts: { now?: () => number; retryMs?: number } = {},
  ) {
    this.#now = opts.now ?? Date.now
    this.retryMs = opts.retryMs ?? PRODUCER_RETRY_MS
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
    this.#subscription = this.vm.pending$.subscribe(() => this.#schedule())
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
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.#running = this.#produce().then((retry) => {
        // clear first: work announced during the build (or made ready by the accept) is scheduled here
        this.#running = undefined
        this.#schedule(retry)
      })
    }, wait)
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
