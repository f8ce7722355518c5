/**
 * One transport's view for the dispatcher (an HTTP request or a WebSocket connection), and the "call proc"
 * geth runs a message or a whole batch in: one cancellation with the deadline, and the subscriptions the
 * calls created, activated once the answer is written.
 *
 * The proc's AbortSignal is made only when a method asks for it (`ctx.signal`: eth_call, traces, long reads):
 * an AbortController and its signal cost ~5 us, a tenth of an eth_chainId over HTTP. Until then the proc
 * cancels through its own list of listeners (`onAbort`, `until`), and a signal made after the proc was cancelled
 * starts aborted.
 * A proc's deadline is kept by one sweep per timeout value (src/runtime/deadlines.ts), not by a timer of its own:
 * arming and clearing a timer per call cost ~1 us of an eth_chainId's ~30 us. The sweep checks every tenth of the
 * timeout (5 ms to 100 ms), so -32002 comes at most that late.
 */

import type { CallContext, ConnectionInfo } from '../../rpc/eth-types.js'
import { Deadlines } from '../../runtime/deadlines.js'
import { ErrorText } from './errors.js'
import type { Subscription, SubscriptionSet } from './subscriptions.js'

export interface Session {
  readonly transport: 'http' | 'ws'
  /** writes one message or batch, without a trailing newline; `isError` marks geth's error-path writes */
  write(json: string, isError: boolean): void
  /** undefined over HTTP, where `eth_subscribe` is refused */
  readonly subscriptions: SubscriptionSet | undefined
  readonly remoteAddress: string | undefined
  readonly connection: ConnectionInfo | undefined
  /** deadline of one proc in ms, 0 = none */
  readonly timeoutMs: number
  /** running procs; the transport aborts them when the request or connection goes away */
  readonly procs: Set<CallProc>
}

/** the deadline sweep of each timeout value: one per endpoint's configuration, so a handful per node */
const sweeps = new Map<number, Deadlines<CallProc>>()

function deadlinesOf(timeoutMs: number): Deadlines<CallProc> {
  let d = sweeps.get(timeoutMs)
  if (d === undefined) {
    // kept alive as a proc's own timer was: a call waiting on its deadline alone still gets its answer
    d = new Deadlines<CallProc>(timeoutMs, (proc) => proc.expire(), Math.min(100, Math.max(5, timeoutMs / 10)), true)
    sweeps.set(timeoutMs, d)
  }
  return d
}

export class CallProc {
  readonly ctx: CallContext
  readonly created: Subscription[] = []
  timedOut = false
  readonly #session: Session
  readonly #onTimeout: () => void
  #deadlines: Deadlines<CallProc> | undefined
  /** set once the proc is cancelled */
  #reason: Error | undefined
  #controller: AbortController | undefined
  #listeners: (() => void)[] | undefined

  /** `onTimeout` runs once, when the deadline passes before `stopTimer`. */
  constructor(session: Session, onTimeout: () => void) {
    this.#session = session
    session.procs.add(this)
    this.ctx = new ProcContext(this, session)
    this.#onTimeout = onTimeout
    if (session.timeoutMs > 0) {
      this.#deadlines = deadlinesOf(session.timeoutMs)
      this.#deadlines.add(this)
    }
  }

  /** The deadline passed before `stopTimer` (the sweep's call). */
  expire(): void {
    this.#deadlines = undefined
    this.timedOut = true
    this.abort(new Error(ErrorText.timeout))
    this.#onTimeout()
  }

  get aborted(): boolean {
    return this.#reason !== undefined
  }

  /** the proc's AbortSignal, made when first asked for (aborted at once when the proc already was) */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController()
      if (this.#reason !== undefined) this.#controller.abort(this.#reason)
    }
    return this.#controller.signal
  }

  /** Cancels the proc (its deadline, or its caller went away); later calls do nothing. */
  abort(reason: Error): void {
    if (this.#reason !== undefined) return
    this.#reason = reason
    this.#controller?.abort(reason)
    const listeners = this.#listeners
    this.#listeners = undefined
    if (listeners !== undefined) for (const listener of listeners) listener()
  }

  /**
   * `listener` runs when the proc is cancelled; false (and it never runs) when it already was. Listeners live as
   * long as the proc (one request, or one WebSocket message), so none is ever taken off.
   */
  onAbort(listener: () => void): boolean {
    if (this.#reason !== undefined) return false
    this.#listeners ??= []
    this.#listeners.push(listener)
    return true
  }

  /** `value`, or ABORTED if the proc is cancelled first; a plain value comes back as it is. */
  until(value: unknown): unknown {
    if (!isThenable(value)) return value
    return new Promise((resolve, reject) => {
      if (!this.onAbort(() => resolve(ABORTED))) resolve(ABORTED)
      else value.then(resolve, reject)
    })
  }

  stopTimer(): void {
    this.#deadlines?.delete(this)
    this.#deadlines = undefined
  }

  /** After the answer was written: activate the new subscriptions, or end them if the proc was cut short. */
  finish(): void {
    this.stopTimer()
    this.#session.procs.delete(this)
    const subs = this.#session.subscriptions
    if (subs === undefined) return
    const cut = this.aborted
    for (const sub of this.created) {
      if (cut) subs.end(sub)
      else subs.activate(sub)
    }
  }
}

/** a proc's CallContext: `signal` asks the proc (a getter on the prototype, nothing made per call) */
class ProcContext implements CallContext {
  readonly transport: 'http' | 'ws'
  readonly remoteAddress: string | undefined
  readonly connection: ConnectionInfo | undefined
  readonly #proc: CallProc

  constructor(proc: CallProc, session: Session) {
    this.#proc = proc
    this.transport = session.transport
    this.remoteAddress = session.remoteAddress
    this.connection = session.connection
  }

  get signal(): AbortSignal {
    return this.#proc.signal
  }
}

export const ABORTED: unique symbol = Symbol('aborted')

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  (typeof v === 'object' || typeof v === 'function') &&
  v !== null &&
  typeof (v as { then?: unknown }).then === 'function'
