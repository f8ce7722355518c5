/**
 * The bootstrapper's fetch state (reference consensus.md 3.4), in memory and free of IO:
 *
 * - `Fetcher`: the missing ids, the fetched-but-not-executed blocks by height, at most one outstanding
 *   GetAncestors per id, the peers that failed each id, and `process` walking parents down to the last accepted
 *   height. Past `maxStored` blocks the highest are dropped to a skeleton (height -> id) and fetched again, from
 *   the id just above what fits, once the lower part is executed (`resume`).
 * - `PeerTracker`: which peer to ask (untried first while fewer than 20 are responsive, then 80 % best bandwidth
 *   EWMA, 20 % a random responsive peer).
 */

import { type Ewma, ewmaCreate, ewmaObserve, ewmaValue } from '../peers/ewma.js'
import { MAX_ANCESTORS_CONTAINERS, MAX_STORED_BLOCKS, RESPONSIVE_PEERS_TARGET } from './bootstrap.js'
import type { AcceptedRef, ParsedBlock } from './types.js'

/** Why an Ancestors answer was refused (the peer counts as failed for that id). */
export type AncestorsRefusal = 'empty' | 'unparsable' | 'wrong first container'

export type AncestorsVerdict =
  | { kind: 'used'; containers: number }
  | { kind: 'unsolicited' }
  | { kind: 'refused'; reason: AncestorsRefusal }

export interface FetcherOptions {
  maxStored?: number
  maxContainers?: number
}

export class Fetcher {
  /** ids wanted and not yet fetched (requested or not) */
  readonly missing = new Set<string>()
  /** a fatal inconsistency found while processing (a different block at our last accepted height) */
  conflict: string | null = null
  /** blocks stored so far (dropped-and-refetched blocks count again) */
  fetched = 0
  /** highest block height seen in an answer */
  maxHeightSeen: number
  private readonly outstanding = new Map<string, string>()
  private readonly failed = new Map<string, Set<string>>()
  private readonly byHeight = new Map<number, ParsedBlock>()
  private readonly heightOf = new Map<string, number>()
  private readonly skeleton = new Map<number, string>()
  private top: number
  private readonly maxStored: number
  private readonly maxContainers: number

  constructor(
    private lastAcceptedRef: AcceptedRef,
    options: FetcherOptions = {},
  ) {
    this.maxStored = Math.max(1, options.maxStored ?? MAX_STORED_BLOCKS)
    this.maxContainers = Math.max(1, options.maxContainers ?? MAX_ANCESTORS_CONTAINERS)
    this.top = lastAcceptedRef.height
    this.maxHeightSeen = lastAcceptedRef.height
  }

  get lastAccepted(): AcceptedRef {
    return this.lastAcceptedRef
  }

  get storedCount(): number {
    return this.byHeight.size
  }

  /** true when nothing is missing or outstanding */
  get idle(): boolean {
    return this.missing.size === 0 && this.outstanding.size === 0
  }

  /** blocks still to fetch down to the last accepted height, as far as known */
  get remainingEstimate(): number {
    return Math.max(0, this.maxHeightSeen - this.lastAcceptedRef.height - this.byHeight.size)
  }

  isStored(id: string): boolean {
    return this.heightOf.has(id)
  }

  /** Wants `id` (an accepted id to sync to), unless it is already stored. */
  want(id: string): void {
    if (!this.isStored(id)) this.missing.add(id)
  }

  /** Drops `id` from the wanted set (it is accepted locally already). */
  forget(id: string): void {
    this.missing.delete(id)
    this.failed.delete(id)
  }

  /** missing ids with no request outstanding */
  unrequested(): string[] {
    return [...this.missing].filter((id) => !this.outstanding.has(id))
  }

  outstandingCount(): number {
    return this.outstanding.size
  }

  /** Records a GetAncestors(id) to `peer`; false if one is outstanding already (one per id). */
  markRequested(id: string, peer: string): boolean {
    if (this.outstanding.has(id) || !this.missing.has(id)) return false
    this.outstanding.set(id, peer)
    return true
  }

  /** peers that failed `id` since it was last cleared */
  failedFor(id: string): ReadonlySet<string> {
    return this.failed.get(id) ?? new Set()
  }

  /** Forgets the failures for `id` (all peers failed: try them all again). */
  clearFailures(id: string): void {
    this.failed.delete(id)
  }

  /** A GetAncestors(id) to `peer` failed or timed out; the id stays missing. Ignored if not outstanding. */
  onFailed(id: string, peer: string): boolean {
    if (this.outstanding.get(id) !== peer) return false
    this.outstanding.delete(id)
    this.markFailed(id, peer)
    return true
  }

  /**
   * `peer` answered GetAncestors(`wanted`). Refused (the peer failed this id) when empty, unparsable, or the
   * first container is not `wanted`. At most `maxContainers` containers are used; the rest serve as the parent
   * cache of the first, up to the first unparsable one.
   */
  onAncestors(
    wanted: string,
    peer: string,
    containers: readonly Uint8Array[],
    parse: (bytes: Uint8Array) => ParsedBlock | undefined,
  ): AncestorsVerdict {
    if (this.outstanding.get(wanted) !== peer) return { kind: 'unsolicited' }
    this.outstanding.delete(wanted)
    const refuse = (reason: AncestorsRefusal): AncestorsVerdict => {
      this.markFailed(wanted, peer)
      return { kind: 'refused', reason }
    }
    const head = containers[0]
    if (head === undefined) return refuse('empty')
    const first = parse(head)
    if (first === undefined) return refuse('unparsable')
    if (first.id !== wanted) return refuse('wrong first container')
    const cache = new Map<string, ParsedBlock>()
    const used = containers.slice(1, this.maxContainers)
    for (const bytes of used) {
      const blk = parse(bytes)
      if (blk === undefined) break
      cache.set(blk.id, blk)
    }
    this.failed.delete(wanted)
    this.process(first, cache)
    return { kind: 'used', containers: 1 + cache.size }
  }

  /**
   * Stores `blk` and walks down its parents (from `cache`, else the parent becomes missing), stopping at the last
   * accepted height or at a height already stored. A block at the last accepted height other than ours is a
   * conflict (fatal for the caller).
   */
  process(start: ParsedBlock, cache: ReadonlyMap<string, ParsedBlock> = new Map()): void {
    let blk = start
    for (;;) {
      this.missing.delete(blk.id)
      this.maxHeightSeen = Math.max(this.maxHeightSeen, blk.height)
      const la = this.lastAcceptedRef
      if (blk.height === la.height && blk.id !== la.id && this.conflict === null) {
        this.conflict = `bootstrap: fetched block ${blk.id} at height ${blk.height} conflicts with the last accepted block ${la.id}`
      }
      if (blk.height <= la.height || this.byHeight.has(blk.height)) break
      this.store(blk)
      const parentHeight = blk.height - 1
      if (parentHeight <= la.height || this.byHeight.has(parentHeight)) break
      const parent = cache.get(blk.parentId)
      if (parent === undefined || parent.height !== parentHeight) {
        if (!this.isStored(blk.parentId)) this.missing.add(blk.parentId)
        break
      }
      blk = parent
    }
    this.evictOverflow()
  }

  /** The stored block at last accepted height + 1, if any. */
  nextExecutable(): ParsedBlock | undefined {
    return this.byHeight.get(this.lastAcceptedRef.height + 1)
  }

  /** `blk` (the next executable) was executed: it becomes the last accepted and leaves the store. */
  executed(blk: ParsedBlock): void {
    this.byHeight.delete(blk.height)
    this.heightOf.delete(blk.id)
    this.lastAcceptedRef = { id: blk.id, height: blk.height }
    this.skeleton.delete(blk.height)
    if (this.byHeight.size === 0) this.top = blk.height
  }

  /** Resets the last accepted block (e.g. read afresh from the VM) and drops stored blocks at or below it. */
  setLastAccepted(ref: AcceptedRef): void {
    this.lastAcceptedRef = ref
    for (const [h, blk] of this.byHeight) {
      if (h <= ref.height) {
        this.byHeight.delete(h)
        this.heightOf.delete(blk.id)
      }
    }
    if (this.byHeight.size === 0) this.top = ref.height
  }

  /** true when blocks were dropped for memory and must be fetched again */
  get hasDropped(): boolean {
    return this.skeleton.size > 0
  }

  /**
   * After executing the lower part: wants again the highest dropped block that fits in memory (or the lowest
   * dropped one) and forgets the dropped entries at or below it. Returns the id, or undefined if none dropped.
   */
  resume(): string | undefined {
    const limit = this.lastAcceptedRef.height + this.maxStored
    let fit: number | undefined
    let lowest: number | undefined
    for (const h of this.skeleton.keys()) {
      if (h <= limit && (fit === undefined || h > fit)) fit = h
      if (lowest === undefined || h < lowest) lowest = h
    }
    const pick = fit ?? lowest
    if (pick === undefined) return undefined
    const id = this.skeleton.get(pick) as string
    for (const h of [...this.skeleton.keys()]) if (h <= pick) this.skeleton.delete(h)
    this.want(id)
    return id
  }

  private markFailed(id: string, peer: string): void {
    const set = this.failed.get(id) ?? new Set<string>()
    set.add(peer)
    this.failed.set(id, set)
  }

  private store(blk: ParsedBlock): void {
    this.byHeight.set(blk.height, blk)
    this.heightOf.set(blk.id, blk.height)
    this.skeleton.delete(blk.height)
    this.top = Math.max(this.top, blk.height)
    this.fetched += 1
  }

  private evictOverflow(): void {
    while (this.byHeight.size > this.maxStored) {
      while (!this.byHeight.has(this.top)) this.top -= 1
      const blk = this.byHeight.get(this.top) as ParsedBlock
      this.byHeight.delete(this.top)
      this.heightOf.delete(blk.id)
      this.skeleton.set(blk.height, blk.id)
      this.top -= 1
    }
  }
}

/** Bandwidth EWMA halflife of the peer choice. */
export const BANDWIDTH_HALFLIFE_MS = 5 * 60_000

/** The reference's peer tracker for GetAncestors, reduced to what bootstrapping needs. Times in ms. */
export class PeerTracker {
  private readonly tried = new Set<string>()
  private readonly responsive = new Set<string>()
  private readonly bandwidth = new Map<string, Ewma>()

  constructor(private readonly halflifeMs = BANDWIDTH_HALFLIFE_MS) {}

  get responsiveCount(): number {
    return this.responsive.size
  }

  isResponsive(peer: string): boolean {
    return this.responsive.has(peer)
  }

  bandwidthOf(peer: string): number {
    const e = this.bandwidth.get(peer)
    return e === undefined ? 0 : ewmaValue(e)
  }

  /**
   * Picks among `candidates`: an untried one while fewer than 20 peers are responsive (beyond, with probability
   * e^(-0.1 * responsive)); else 80 % the responsive candidate with the best bandwidth, 20 % a random responsive
   * candidate; with no responsive candidate, any candidate (untried first). Undefined if there is none.
   */
  select(candidates: readonly string[], random: () => number): string | undefined {
    const pickRandom = (xs: readonly string[]): string | undefined =>
      xs[Math.min(xs.length - 1, Math.floor(random() * xs.length))]
    const untried = candidates.filter((p) => !this.tried.has(p))
    const n = this.responsive.size
    if (untried.length > 0 && (n < RESPONSIVE_PEERS_TARGET || random() < Math.exp(-0.1 * n))) {
      return pickRandom(untried)
    }
    const good = candidates.filter((p) => this.responsive.has(p))
    if (good.length > 0) {
      if (random() < 0.8) {
        let best = good[0] as string
        for (const p of good) if (this.bandwidthOf(p) > this.bandwidthOf(best)) best = p
        return best
      }
      return pickRandom(good)
    }
    return untried.length > 0 ? pickRandom(untried) : pickRandom(candidates)
  }

  /** A request to `peer` was sent (it is no longer untried). */
  markTried(peer: string): void {
    this.tried.add(peer)
  }

  /** `peer` answered `bytes` in `elapsedMs`. */
  recordSuccess(peer: string, bytes: number, elapsedMs: number, nowMs: number): void {
    this.tried.add(peer)
    this.responsive.add(peer)
    this.observe(peer, bytes / Math.max(1, elapsedMs), nowMs)
  }

  /** `peer` failed (error, timeout, bad answer). */
  recordFailure(peer: string, nowMs: number): void {
    this.tried.add(peer)
    this.responsive.delete(peer)
    this.observe(peer, 0, nowMs)
  }

  private observe(peer: string, x: number, nowMs: number): void {
    const e = this.bandwidth.get(peer)
    this.bandwidth.set(peer, e === undefined ? ewmaCreate(x, nowMs, this.halflifeMs) : ewmaObserve(e, x, nowMs))
  }
}
