/**
 * One `/ws` connection (geth rpc/websocket.go + client.go read loop). Each message is served as soon as it
 * arrives (calls of different messages run concurrently; answers go out as they finish). A message that is
 * not JSON gets -32700 with Go's syntax error text and the connection is closed; an empty or cut-off one
 * closes it silently. Limits: reading pauses while `maxPendingCalls` messages are running (messages
 * already read wait for a call to finish); a connection whose unsent bytes would pass `maxQueuedBytes` (a
 * client that does not read) is dropped with a log line; a ping goes out after `pingIntervalMs` without
 * writes and the connection is dropped if no pong comes within `pongTimeoutMs`. When it closes, its calls are aborted and its subscriptions end.
 * Throttles (messages wait, reading pauses): the client's request rate (`rateLimit`, node flag `--api-rate-limit`)
 * and coreth's CPU budget (`cpu`: ws-cpu-refill-rate / ws-cpu-max-stored, one message at a time while set).
 */
import type { RawData, WebSocket } from 'ws'
import { ErrorCode } from '../../runtime/errors.js'
import type { Dispatcher } from './dispatch.js'
import { errorText, type ResultCache } from './encode.js'
import { readMessages } from './message.js'
import type { Session } from './session.js'
import { type SubscriptionQuota, SubscriptionSet } from './subscriptions.js'
import type { EthRpcLog } from './types.js'
import type { WsCpuLimiter } from './ws-cpu-limiter.js'

export interface WsConnectionDeps {
  id: number
  remoteAddress: string | undefined
  dispatcher: Dispatcher
  /** api-max-duration, 0 = none */
  timeoutMs: number
  pingIntervalMs: number
  pongTimeoutMs: number
  maxSubscriptions: number
  maxQueuedBytes: number
  maxPendingCalls: number
  /** ms the client must wait before its next message (0 = go on); absent = no rate limit */
  rateLimit?: (() => number) | undefined
  /** coreth's CPU budget of the connection */
  cpu?: WsCpuLimiter | undefined
  /** the chain's subscription caps (in all, per client) */
  subscriptionQuota?: SubscriptionQuota | undefined
  /** the route's cache of encoded subscription results */
  results?: ResultCache | undefined
  /** the connection's socket: corked while a burst of messages is written (one write for a block's notifications) */
  socket?: { cork(): void; uncork(): void } | undefined
  log?: EthRpcLog | undefined
  onClose(): void
}

const toBuffer = (data: RawData): Buffer =>
  Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)

export class WsConnection {
  readonly #ws: WebSocket
  readonly #deps: WsConnectionDeps
  readonly #closed = new AbortController()
  readonly #session: Session
  readonly #subs: SubscriptionSet
  readonly #ping: NodeJS.Timeout
  #pong: NodeJS.Timeout | undefined
  #pending = 0
  /** messages read after reading paused (ws emits every message of a chunk it has): served as calls finish */
  readonly #held: Buffer[] = []
  /** at least 1, else nothing would ever be served */
  readonly #maxPending: number
  /** set by `close()`: nothing more is sent while the socket goes down */
  #dropped = false
  /** waiting for the rate limit or the CPU budget */
  #throttle: NodeJS.Timeout | undefined
  #paused = false
  #corked = false

  constructor(ws: WebSocket, deps: WsConnectionDeps) {
    this.#ws = ws
    this.#deps = deps
    this.#maxPending = deps.cpu === undefined ? Math.max(1, deps.maxPendingCalls) : 1
    this.#subs = new SubscriptionSet({
      max: deps.maxSubscriptions,
      quota: deps.subscriptionQuota,
      results: deps.results,
      maxBufferedBytes: deps.maxQueuedBytes,
      send: (text) => this.#send(text),
      overflow: () => this.#dropSlow(0),
      log: deps.log,
    })
    this.#session = {
      transport: 'ws',
      write: (json) => this.#send(json),
      subscriptions: this.#subs,
      remoteAddress: deps.remoteAddress,
      connection: { id: deps.id, signal: this.#closed.signal },
      timeoutMs: deps.timeoutMs,
      procs: new Set(),
    }
    this.#ping = setTimeout(() => this.#onIdle(), deps.pingIntervalMs)
    ws.on('message', (data) => this.#onMessage(toBuffer(data)))
    ws.on('pong', () => {
      clearTimeout(this.#pong)
      this.#pong = undefined
    })
    ws.on('error', (err) => deps.log?.debug('WebSocket connection error', { conn: deps.id, error: String(err) }))
    ws.once('close', () => this.#cleanup())
  }

  /** Drops the connection (no close frame, as geth's codec close). */
  close(): void {
    this.#dropped = true
    this.#ws.terminate()
  }

  #onMessage(buf: Buffer): void {
    if (this.#closed.signal.aborted) return
    this.#held.push(buf)
    this.#drain()
  }

  /** Serves held messages while the limits let it; pauses reading while they do not. */
  #drain(): void {
    while (this.#held.length > 0 && this.#throttle === undefined && this.#pending < this.#maxPending) {
      // the CPU budget first: the rate limit takes its token only when the message is served
      const wait = this.#deps.cpu?.delay() || this.#deps.rateLimit?.() || 0
      if (wait > 0) {
        this.#pause(true)
        this.#throttle = setTimeout(() => {
          this.#throttle = undefined
          if (!this.#closed.signal.aborted) this.#drain()
        }, wait)
        return
      }
      this.#serve(this.#held.shift()!)
    }
    this.#pause(this.#pending >= this.#maxPending || this.#throttle !== undefined)
  }

  #pause(paused: boolean): void {
    if (paused === this.#paused) return
    this.#paused = paused
    if (paused) this.#ws.pause()
    else this.#ws.resume()
  }

  #serve(buf: Buffer): void {
    const outcome = readMessages(buf)
    if (outcome.kind === 'syntax') {
      this.#send(errorText('null', ErrorCode.parse, outcome.message), () => this.close())
      return
    }
    if (outcome.kind !== 'messages') {
      this.#deps.log?.debug('WebSocket message without a JSON value', { conn: this.#deps.id })
      this.close()
      return
    }
    this.#pending++
    const started = performance.now()
    const failed = (err: unknown): void => this.#deps.log?.warn('eth JSON-RPC message failed', { error: String(err) })
    const finished = (): void => {
      this.#pending--
      this.#deps.cpu?.consume(performance.now() - started)
      if (!this.#closed.signal.aborted) this.#drain()
    }
    let running: Promise<void> | undefined
    try {
      running = this.#deps.dispatcher.handle(outcome.batch, outcome.messages, this.#session)
    } catch (err) {
      running = Promise.reject(err)
    }
    // finished after this task even when answered already: #drain serves the next message, and calls this one
    Promise.resolve(running).catch(failed).finally(finished)
  }

  #send(json: string, then?: () => void): void {
    if (this.#dropped || this.#closed.signal.aborted) return
    const text = json + '\n'
    const bytes = Buffer.byteLength(text)
    if (this.#ws.bufferedAmount + bytes > this.#deps.maxQueuedBytes) {
      this.#dropSlow(bytes)
      return
    }
    const socket = this.#deps.socket
    if (!this.#corked && socket !== undefined) {
      this.#corked = true
      socket.cork()
      process.nextTick(() => {
        this.#corked = false
        socket.uncork()
      })
    }
    this.#ws.send(text, then === undefined ? undefined : () => then())
    this.#ping.refresh()
  }

  #dropSlow(bytes: number): void {
    if (this.#dropped || this.#closed.signal.aborted) return
    this.#deps.log?.warn('dropping slow WebSocket client: outbound queue over limit', {
      conn: this.#deps.id,
      remote: this.#deps.remoteAddress,
      queued: this.#ws.bufferedAmount,
      next: bytes,
      limit: this.#deps.maxQueuedBytes,
    })
    this.close()
  }

  #onIdle(): void {
    if (this.#closed.signal.aborted) return
    this.#ws.ping()
    this.#pong ??= setTimeout(() => {
      this.#deps.log?.debug('WebSocket pong timeout', { conn: this.#deps.id })
      this.close()
    }, this.#deps.pongTimeoutMs)
    this.#ping.refresh()
  }

  #cleanup(): void {
    if (this.#closed.signal.aborted) return
    this.#closed.abort(new Error('connection closed'))
    clearTimeout(this.#ping)
    clearTimeout(this.#pong)
    clearTimeout(this.#throttle)
    for (const proc of this.#session.procs) proc.abort(new Error('connection closed'))
    this.#held.length = 0
    this.#subs.closeAll()
    this.#deps.onClose()
  }
}
