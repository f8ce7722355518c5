/**
 * The write deadline of every JSON-RPC request in flight on a server, kept by one interval timer instead of a timer
 * per request (arming and clearing a timer cost about as much as the rest of a cheap call's JSON-RPC handling). A
 * request still unanswered at its deadline has its connection closed (`onExpired`), as Go's WriteTimeout does;
 * the check runs every tenth of the timeout (at most every second), so a deadline is met within that. The timer
 * runs only while requests were in flight since its last check.
 */
import type { ServerResponse } from 'node:http'

export class WriteDeadlines {
  /** due time (performance.now ms) by response; one timeout for all, so insertion order is due order */
  readonly #due = new Map<ServerResponse, number>()
  readonly #everyMs: number
  #timer: NodeJS.Timeout | undefined

  constructor(
    readonly timeoutMs: number,
    readonly onExpired: (res: ServerResponse) => void,
  ) {
    this.#everyMs = Math.min(1_000, Math.max(5, Math.floor(timeoutMs / 10)))
  }

  get size(): number {
    return this.#due.size
  }

  add(res: ServerResponse): void {
    this.#due.set(res, performance.now() + this.timeoutMs)
    if (this.#timer === undefined) {
      this.#timer = setInterval(this.#sweep, this.#everyMs)
      this.#timer.unref()
    }
  }

  delete(res: ServerResponse): void {
    this.#due.delete(res)
  }

  readonly #sweep = (): void => {
    if (this.#due.size === 0) {
      this.close()
      return
    }
    const now = performance.now()
    for (const [res, at] of this.#due) {
      if (at > now) break
      this.#due.delete(res)
      this.onExpired(res)
    }
  }

  /** Stops the timer (a later `add` starts it again). */
  close(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
  }
}
