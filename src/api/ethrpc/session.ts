/**
 * One transport's view for the dispatcher (an HTTP request or a WebSocket connection), and the "call proc"
 * geth runs a message or a whole batch in: one AbortSignal with the deadline, and the subscriptions the
 * calls created, activated once the answer is written.
 */

import type { CallContext, ConnectionInfo } from '../../rpc/eth-types.js'
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
  readonly procs: Set<AbortController>
}

export class CallProc {
  readonly ctx: CallContext
  readonly created: Subscription[] = []
  timedOut = false
  readonly #controller = new AbortController()
  readonly #session: Session
  #timer: NodeJS.Timeout | undefined

  /** `onTimeout` runs once, when the deadline passes before `stopTimer`. */
  constructor(session: Session, onTimeout: () => void) {
    this.#session = session
    session.procs.add(this.#controller)
    this.ctx = {
      signal: this.#controller.signal,
      transport: session.transport,
      remoteAddress: session.remoteAddress,
      connection: session.connection,
    }
    if (session.timeoutMs > 0) {
      this.#timer = setTimeout(() => {
        this.timedOut = true
        this.#controller.abort(new Error(ErrorText.timeout))
        onTimeout()
      }, session.timeoutMs)
    }
  }

  get signal(): AbortSignal {
    return this.#controller.signal
  }

  stopTimer(): void {
    clearTimeout(this.#timer)
  }

  /** After the answer was written: activate the new subscriptions, or end them if the proc was cut short. */
  finish(): void {
    this.stopTimer()
    this.#session.procs.delete(this.#controller)
    const subs = this.#session.subscriptions
    if (subs === undefined) return
    const cut = this.#controller.signal.aborted
    for (const sub of this.created) {
      if (cut) subs.end(sub)
      else subs.activate(sub)
    }
  }
}

export const ABORTED: unique symbol = Symbol('aborted')

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  (typeof v === 'object' || typeof v === 'function') &&
  v !== null &&
  typeof (v as { then?: unknown }).then === 'function'

/** `value`, or ABORTED if `signal` aborts first; a plain value comes back as it is. */
export function untilAborted(value: unknown, signal: AbortSignal): unknown {
  if (!isThenable(value)) return value
  if (signal.aborted) return ABORTED
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(ABORTED)
    signal.addEventListener('abort', onAbort, { once: true })
    value.then(
      (v) => {
        signal.removeEventListener('abort', onAbort)
        resolve(v)
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(err)
      },
    )
  })
}
