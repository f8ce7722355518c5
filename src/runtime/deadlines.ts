/**
 * Deadlines of many things in flight with one timeout, kept by one interval timer instead of a timer each (arming
 * and clearing a timer cost about as much as the rest of a cheap JSON-RPC call's handling). A thing still in the set
 * at its deadline is taken out and handed to `onExpired`; the check runs every `everyMs` (default: a tenth of the
 * timeout, at least 5 ms and at most a second), so a deadline is met within that. The timer runs only while things
 * were in flight since its last check. Used for the JSON-RPC routes' write deadlines (src/api/http/server.ts, Go's
 * WriteTimeout) and the eth endpoints' call deadlines (src/api/ethrpc/session.ts).
 */

export class Deadlines<T> {
  /** due time (performance.now ms) by thing; one timeout for all, so insertion order is due order */
  readonly #due = new Map<T, number>()
  readonly #everyMs: number
  #timer: NodeJS.Timeout | undefined

  constructor(
    readonly timeoutMs: number,
    readonly onExpired: (thing: T) => void,
    everyMs = Math.min(1_000, Math.max(5, Math.floor(timeoutMs / 10))),
    /** whether the timer keeps the process alive while things are in flight (false: a server's sockets do) */
    readonly keepsAlive = false,
  ) {
    this.#everyMs = everyMs
  }

  get size(): number {
    return this.#due.size
  }

  add(thing: T): void {
    this.#due.set(thing, performance.now() + this.timeoutMs)
    if (this.#timer === undefined) {
      this.#timer = setInterval(this.#sweep, this.#everyMs)
      if (!this.keepsAlive) this.#timer.unref()
    }
  }

  delete(thing: T): void {
    this.#due.delete(thing)
  }

  readonly #sweep = (): void => {
    if (this.#due.size === 0) {
      this.close()
      return
    }
    const now = performance.now()
    for (const [thing, at] of this.#due) {
      if (at > now) break
      this.#due.delete(thing)
      this.onExpired(thing)
    }
  }

  /** Stops the timer (a later `add` starts it again). */
  close(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
  }
}
