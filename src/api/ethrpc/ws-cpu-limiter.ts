/**
 * coreth's CPU budget of a WebSocket connection (`ws-cpu-refill-rate`, `ws-cpu-max-stored`; graft/evm/rpc
 * handler.go `addLimiter`, `awaitLimit`, `consumeLimit`): a token bucket of CPU time that refills at
 * `refillRate` of CPU per second of wall time and holds at most `maxStored`. Before a message is served the
 * connection waits until the bucket holds a whole deadline (`api-max-duration`); afterwards the time the
 * message took (at most the deadline) is taken out, so the bucket may go below zero. While limited, a
 * connection serves its messages one at a time, as coreth does. As in coreth, there is no limiter unless
 * refill rate > 0, api-max-duration > 0 and max stored >= api-max-duration.
 */
export class WsCpuLimiter {
  #tokens: number
  #at: number

  private constructor(
    readonly refillRateMs: number,
    readonly maxStoredMs: number,
    readonly deadlineMs: number,
    readonly now: () => number,
  ) {
    this.#tokens = maxStoredMs
    this.#at = now()
  }

  /** The limiter coreth would add, or undefined when its settings make it trivial. */
  static create(
    refillRateMs: number,
    maxStoredMs: number,
    deadlineMs: number,
    now: () => number = () => performance.now(),
  ): WsCpuLimiter | undefined {
    if (refillRateMs <= 0 || deadlineMs <= 0 || maxStoredMs < deadlineMs) return undefined
    return new WsCpuLimiter(refillRateMs, maxStoredMs, deadlineMs, now)
  }

  #refill(): void {
    const now = this.now()
    this.#tokens = Math.min(this.maxStoredMs, this.#tokens + ((now - this.#at) * this.refillRateMs) / 1000)
    this.#at = now
  }

  /** ms until the bucket holds a whole deadline (0: serve now). */
  delay(): number {
    this.#refill()
    if (this.#tokens >= this.deadlineMs) return 0
    return Math.ceil(((this.deadlineMs - this.#tokens) * 1000) / this.refillRateMs)
  }

  /** A message took `ms` to serve. */
  consume(ms: number): void {
    this.#refill()
    this.#tokens -= Math.min(ms, this.deadlineMs)
  }
}
