/**
 * When this node may build the next block (reference consensus.md 2.2-2.3 and 7.2 "BlockBuilder"): while the
 * pool holds executable txs, wait until my first proposer slot on the preferred block, no earlier than the
 * chain's minimum delay (and ACP-176 capacity), then tell the engine (`notify`, the engine's `pendingTxs`). The
 * wait is recomputed whenever the preferred tip changes or a build comes back empty; a dead proposer therefore
 * costs one 5 s slot: the next slot's proposer's timer fires.
 */
import type { Subscription } from 'rxjs'
import { nextProposalTime, type WeightedValidator } from '../../../actors/consensus/proposer.js'
import { decodeBlock } from '../evm/header.js'
import { headerTimeMs } from '../evm/rules/child-header.js'
import type { EvmVm } from '../evm/vm.js'

export interface SlotBuilderDeps {
  vm: EvmVm
  chainId: Uint8Array
  self: string
  proposers: () => readonly WeightedValidator[]
  /** my slot has come and txs wait: the engine's `pendingTxs` */
  notify: () => void
  now?: () => number
  /** a wait that found no slot of mine within the look-ahead retries after this long */
  retryMs?: number
}

export class SlotBuilder {
  readonly #now: () => number
  #timer: NodeJS.Timeout | undefined
  #timerAt = 0
  #sub: Subscription | undefined
  #stopped = true
  /** a build came back empty: wait for a new tx or a new tip before trying again */
  #idleUntilChange = false
  /** bumps on every reschedule: a computation that finishes after a newer one is dropped */
  #generation = 0

  constructor(private readonly deps: SlotBuilderDeps) {
    this.#now = deps.now ?? Date.now
  }

  start(): void {
    this.#stopped = false
    this.#sub = this.deps.vm.pendingTx$.subscribe(() => {
      this.#idleUntilChange = false
      this.schedule()
    })
    this.schedule()
  }

  stop(): void {
    this.#stopped = true
    this.#sub?.unsubscribe()
    clearTimeout(this.#timer)
    this.#timer = undefined
  }

  /** Recompute the wait: the preferred tip changed, a build came back, or txs arrived. */
  reschedule(): void {
    this.#idleUntilChange = false
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.schedule()
  }

  /** The last build held no tx: nothing to do until a tx arrives or the tip moves. */
  buildWasEmpty(): void {
    this.#idleUntilChange = true
    clearTimeout(this.#timer)
    this.#timer = undefined
  }

  schedule(): void {
    if (this.#stopped || this.#idleUntilChange || this.#timer !== undefined || !this.deps.vm.hasPendingTxs()) return
    const generation = ++this.#generation
    void this.#nextTime().then((at) => {
      if (this.#stopped || generation !== this.#generation || this.#timer !== undefined) return
      const retry = this.deps.retryMs ?? 1_000
      const when = at ?? this.#now() + retry
      this.#timerAt = when
      this.#timer = setTimeout(
        () => {
          this.#timer = undefined
          if (this.#stopped) return
          if (at === undefined) return this.schedule()
          if (this.deps.vm.hasPendingTxs()) this.deps.notify()
        },
        Math.max(0, when - this.#now()),
      )
    })
  }

  /** when the pending timer fires (unix ms), 0 if none; for tests and logs */
  get nextAt(): number {
    return this.#timer === undefined ? 0 : this.#timerAt
  }

  async #nextTime(): Promise<number | undefined> {
    const { vm } = this.deps
    const parentRlp = await vm.core.getBlockByHash(vm.preferred)
    if (parentRlp === undefined) return undefined
    const parent = decodeBlock(parentRlp).header
    const parentTs = Number(headerTimeMs(parent))
    const earliest = vm.nextBuildTime()
    return nextProposalTime(
      this.deps.proposers(),
      this.deps.chainId,
      parent.number + 1n,
      parentTs,
      this.#now(),
      this.deps.self,
      Math.max(0, earliest - parentTs),
    )
  }
}
