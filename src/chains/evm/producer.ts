/**
 * Block production for a lone validator (`--dev`, or a network where this node is the only validator): when the
 * pool has executable txs, wait for the chain's minimum delay (and enough ACP-176 capacity), build a block on
 * the last accepted one, and accept it. One build at a time; txs that arrive meanwhile go in the next block, so
 * a block holds as many txs as its capacity allows. The chain actor starts it in normalOp and stops it on exit.
 */
import type { Subscription } from 'rxjs'
import type { Logger } from '../../log/logger.js'
import type { EvmVm } from './vm.js'

/** Retry delay after an empty block (pending txs that cannot pay the base fee yet) or a failed build. */
const RETRY_MS = 1_000

export class BlockProducer {
  #timer: NodeJS.Timeout | undefined
  #running: Promise<void> | undefined
  #subscription: Subscription | undefined
  #stopped = false
  #produced = 0

  constructor(
    private readonly vm: EvmVm,
    private readonly log: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>,
  ) {}

  /** blocks produced since start */
  get produced(): number {
    return this.#produced
  }

  /** a block is being built or accepted right now */
  get building(): boolean {
    return this.#running !== undefined
  }

  start(): void {
    this.#subscription = this.vm.pendingTx$.subscribe(() => this.#schedule())
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
    if (!this.vm.hasPendingTxs()) return
    const wait = delayMs ?? Math.max(0, this.vm.nextBuildTime() - this.vm.now())
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.#running = this.#produce().then((retry) => {
        // clear first: txs announced during the build (or promoted by the accept) are scheduled here
        this.#running = undefined
        this.#schedule(retry)
      })
    }, wait)
  }

  /** One build; resolves to a retry delay, or undefined to schedule as usual. Never rejects. */
  async #produce(): Promise<number | undefined> {
    let retry: number | undefined
    try {
      const block = await this.vm.buildBlock()
      if (block.txs.length === 0) {
        await this.vm.rejectBlock(block.hash)
        retry = RETRY_MS
        this.log.debug('no executable tx fits the next block yet', { pending: this.vm.pool.stats().pending })
      } else {
        await this.vm.acceptBlock(block.hash)
        this.#produced++
        this.log.debug('accepted block', {
          height: Number(block.header.number),
          txs: block.txs.length,
          gasUsed: Number(block.header.gasUsed),
          baseFee: String(block.header.baseFee ?? 0n),
        })
      }
    } catch (err) {
      retry = RETRY_MS
      this.log.error('block production failed', { error: err instanceof Error ? err.message : String(err) })
    }
    return retry
  }
}
