/**
 * The reference's sliding-window throttler (network/p2p): at most `limit` hits per node per `period`, counting
 * the current window's hits plus the previous window's weighted by how much of it still overlaps the sliding
 * period. Memory is two maps of per-node counters; callers only feed it validators, so it stays small.
 */

interface Window {
  start: number
  hits: Map<string, number>
}

export class SlidingWindowThrottler {
  #current: Window
  #previous: Window

  constructor(
    readonly periodMs: number,
    readonly limit: number,
    private readonly now: () => number,
  ) {
    if (!(periodMs > 0)) throw new RangeError('period must be positive')
    const start = now()
    this.#current = { start, hits: new Map() }
    this.#previous = { start: start - periodMs, hits: new Map() }
  }

  /** True (and the hit counted) if `nodeId` is under its limit now. */
  handle(nodeId: string): boolean {
    const now = this.now()
    this.#rotate(now)
    const elapsed = Math.min(Math.max(now - this.#current.start, 0), this.periodMs)
    const previousWeight = (this.periodMs - elapsed) / this.periodMs
    const current = this.#current.hits.get(nodeId) ?? 0
    const estimate = current + (this.#previous.hits.get(nodeId) ?? 0) * previousWeight
    if (estimate >= this.limit) return false
    this.#current.hits.set(nodeId, current + 1)
    return true
  }

  #rotate(now: number): void {
    const end = this.#current.start + this.periodMs
    if (now < end) return
    if (now < end + this.periodMs) {
      this.#previous = this.#current
      this.#current = { start: end, hits: new Map() }
      return
    }
    // more than a whole period went by: nothing recent is left
    this.#previous = { start: now - this.periodMs, hits: new Map() }
    this.#current = { start: now, hits: new Map() }
  }
}
