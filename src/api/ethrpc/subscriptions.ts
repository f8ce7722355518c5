/**
 * The subscriptions of one WebSocket connection (geth rpc/subscription.go). A subscription is created by
 * `eth_subscribe`; what it pushes before the subscribe answer is written is buffered and sent right after
 * it (`activate`). Ids are 0x + 16 random bytes in hex without leading zeros (an RPC quantity). Limits: a
 * number of subscriptions per connection, the chain's caps in all and per client (`quota`), and the bytes
 * buffered before activation count against the connection's outbound budget (`overflow` drops the connection).
 */
import { randomBytes } from 'node:crypto'
import { notificationText, type ResultCache } from './encode.js'
import { ErrorText } from './errors.js'
import type { EthRpcLog } from './types.js'

export interface Subscription {
  readonly id: string
  readonly namespace: string
  active: boolean
  ended: boolean
  buffer: string[]
  stop: (() => void) | undefined
}

/** The chain's caps on subscriptions (in all, per client), bound to this connection's client. */
export interface SubscriptionQuota {
  /** takes a slot, or returns the refusal's text */
  take(): string | undefined
  release(): void
}

export interface SubscriptionDeps {
  max: number
  quota?: SubscriptionQuota | undefined
  /** the route's cache of encoded results (one shared result is encoded once) */
  results?: ResultCache | undefined
  maxBufferedBytes: number
  /** sends one notification text on the connection */
  send(text: string): void
  /** the buffered notifications passed `maxBufferedBytes` */
  overflow(): void
  log?: EthRpcLog | undefined
}

/** geth's `encodeID`: hex without leading zeros, `0x0` for zero. */
export function newSubscriptionId(): string {
  const hex = randomBytes(16).toString('hex').replace(/^0+/, '')
  return '0x' + (hex === '' ? '0' : hex)
}

export class SubscriptionSet {
  readonly #subs = new Map<string, Subscription>()
  readonly #deps: SubscriptionDeps
  #bufferedBytes = 0

  constructor(deps: SubscriptionDeps) {
    this.#deps = deps
  }

  get size(): number {
    return this.#subs.size
  }

  /** A new inactive subscription, or the refusal's text (this connection's, the client's or the chain's cap). */
  create(namespace: string): Subscription | string {
    if (this.#subs.size >= this.#deps.max) return ErrorText.tooManySubscriptions
    const refused = this.#deps.quota?.take()
    if (refused !== undefined) return refused
    let id = newSubscriptionId()
    while (this.#subs.has(id)) id = newSubscriptionId()
    const sub: Subscription = { id, namespace, active: false, ended: false, buffer: [], stop: undefined }
    this.#subs.set(id, sub)
    return sub
  }

  /** The start function returned: keep its stop, or call it at once if the subscription already ended. */
  attach(sub: Subscription, stop: () => void): void {
    if (sub.ended) this.#callStop(sub.id, stop)
    else sub.stop = stop
  }

  push(sub: Subscription, result: unknown): void {
    if (sub.ended) return
    let text: string
    try {
      text = notificationText(sub.namespace, sub.id, result, this.#deps.results?.json(result))
    } catch (err) {
      this.#deps.log?.warn('subscription result not encodable', { subscription: sub.id, error: String(err) })
      return
    }
    if (sub.active) {
      this.#deps.send(text)
      return
    }
    sub.buffer.push(text)
    this.#bufferedBytes += text.length
    if (this.#bufferedBytes > this.#deps.maxBufferedBytes) this.#deps.overflow()
  }

  /** The subscribe answer went out: flush what was pushed before it. */
  activate(sub: Subscription): void {
    if (sub.ended || sub.active) return
    sub.active = true
    const buffered = sub.buffer
    sub.buffer = []
    for (const text of buffered) {
      this.#bufferedBytes -= text.length
      if (!sub.ended) this.#deps.send(text)
    }
  }

  /** `eth_unsubscribe`: false when there is no such subscription. */
  remove(id: string): boolean {
    const sub = this.#subs.get(id)
    if (sub === undefined) return false
    this.end(sub)
    return true
  }

  end(sub: Subscription): void {
    if (sub.ended) return
    sub.ended = true
    this.#subs.delete(sub.id)
    this.#deps.quota?.release()
    for (const text of sub.buffer) this.#bufferedBytes -= text.length
    sub.buffer = []
    const stop = sub.stop
    sub.stop = undefined
    if (stop !== undefined) this.#callStop(sub.id, stop)
  }

  /** The connection closed: every subscription ends. */
  closeAll(): void {
    for (const sub of [...this.#subs.values()]) this.end(sub)
  }

  #callStop(id: string, stop: () => void): void {
    try {
      stop()
    } catch (err) {
      this.#deps.log?.warn('subscription stop failed', { subscription: id, error: String(err) })
    }
  }
}
