/**
 * When this node may build the next block (reference consensus.md 2.2-2.3 and 7.2 "BlockBuilder"): while the VM
 * has work waiting (`hasPending`, woken by `pending$`), wait until my first proposer slot on the preferred block,
 * no earlier than the time the VM gives for a child of it (`nextBuildTimeMs`, the EVM's ACP-226 minimum delay and
 * ACP-176 capacity; a VM without the hook has no minimum delay), then tell the engine (`notify`, the engine's
 * `pendingTxs`). The wait is recomputed whenever the preferred tip changes or a build comes back empty; a dead
 * proposer therefore costs one 5 s slot: the next slot's proposer's timer fires.
 */
import type { Subscription } from 'rxjs'
import { nextProposalTime, type WeightedValidator } from '../../../actors/consensus/proposer.js'
import type { ChainVm } from '../vm.js'

/** What the builder reads of a VM (`nextBuildTimeMs` is optional). */
export type BuilderVm = Pick<ChainVm, 'pending$' | 'hasPending' | 'getBlock' | 'lastAccepted' | 'nextBuildTimeMs'>

export interface SlotBuilderDeps {
  vm: BuilderVm
  /** the preferred block's ID (src/chains/snowman/signed-blocks.ts keeps it) */
  preferred: () => string
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
    this.#sub = this.deps.vm.pending$.subscribe(() => {
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
    if (this.#stopped || this.#idleUntilChange || this.#timer !== undefined || !this.deps.vm.hasPending()) return
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
          if (this.deps.vm.hasPending()) this.deps.notify()
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
    // a preferred block rejected meanwhile: build on the last accepted one until consensus says otherwise
    const parent = (await vm.getBlock(this.deps.preferred())) ?? (await vm.getBlock(vm.lastAccepted().id))
    if (parent === undefined) return undefined
    const earliest = vm.nextBuildTimeMs?.(parent.id) ?? parent.timestampMs
    return nextProposalTime(
      this.deps.proposers(),
      this.deps.chainId,
      BigInt(parent.height + 1),
      parent.timestampMs,
      this.#now(),
      this.deps.self,
      Math.max(0, earliest - parent.timestampMs),
    )
  }
}
