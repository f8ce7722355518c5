/**
 * One `/ws` connection (geth rpc/websocket.go + client.go read loop). Each message is served as soon as it
 * arrives (calls of different messages run concurrently; answers go out as they finish). A message that is
 * not JSON gets -32700 with Go's syntax error text and the connection is closed; an empty or cut-off one
 * closes it silently. Limits: reading pauses while `maxPendingCalls` messages are running (messages
 * already read wait for a call to finish); a connection whose unsent bytes would pass `maxQueuedBytes` (a
 * client that does not read) is dropped with a log line; a ping goes out after `pingIntervalMs` without
 * writes and the connection is dropped if no pong comes within `pongTimeoutMs`. When it closes, its calls are aborted and its subscriptions end.
 */
import type { RawData, WebSocket } from 'ws'
import { ErrorCode } from '../../runtime/errors.js'
import type { Dispatcher } from './dispatch.js'
import { errorText } from './encode.js'
import { readMessages } from './message.js'
import type { Session } from './session.js'
import { SubscriptionSet } from './subscriptions.js'
import type { EthRpcLog } from './types.js'

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

  constructor(ws: WebSocket, deps: WsConnectionDeps) {
    this.#ws = ws
    this.#deps = deps
    this.#maxPending = Math.max(1, deps.maxPendingCalls)
    this.#subs = new SubscriptionSet({
      max: deps.maxSubscriptions,
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
    if (this.#pending >= this.#maxPending) this.#held.push(buf)
    else this.#serve(buf)
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
    if (++this.#pending >= this.#maxPending) this.#ws.pause()
    this.#deps.dispatcher
      .handle(outcome.batch, outcome.messages, this.#session)
      .catch((err: unknown) => this.#deps.log?.warn('eth JSON-RPC message failed', { error: String(err) }))
      .finally(() => {
        this.#pending--
        if (this.#closed.signal.aborted) return
        const next = this.#held.shift()
        if (next !== undefined) this.#serve(next)
        else if (this.#pending === this.#maxPending - 1) this.#ws.resume()
      })
  }

  #send(json: string, then?: () => void): void {
    if (this.#dropped || this.#closed.signal.aborted) return
    const text = json + '\n'
    const bytes = Buffer.byteLength(text)
    if (this.#ws.bufferedAmount + bytes > this.#deps.maxQueuedBytes) {
      this.#dropSlow(bytes)
      return
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
    for (const proc of this.#session.procs) proc.abort(new Error('connection closed'))
    this.#held.length = 0
    this.#subs.closeAll()
    this.#deps.onClose()
  }
}
