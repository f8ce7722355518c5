/**
 * A request/response protocol as a small libp2p service. Each peer's requests travel on one long-lived stream
 * (channel.ts), as framed envelopes (request id + deadline + body); the answers come back on it, in any order,
 * matched by request id. A request gets one envelope back: its response, or an envelope without a body when the
 * responder will not answer it (the handler gave none or failed, the request had no body, or too many requests of
 * the peer were in flight). A request whose deadline passes gets nothing: the requester times out on its own.
 * Bytes that are not frames reset the stream, failing whatever waits on it. Inbound: each request is handled
 * concurrently within its deadline. Outbound: `request(peerId, body, {signal})`.
 * The handshake, peers, ping and chain protocols are this class with a spec.
 */
import type {
  AbortOptions,
  Connection,
  PeerId,
  Startable,
  Stream,
  StreamHandler,
  StreamHandlerOptions,
} from '@libp2p/interface'
import { decodeFrames, encodeFrame, FrameAbortedError, FrameError, type MessageCodec } from '../codec/frame.js'
import { type StreamOpener, StreamPool, serveFrames, writeFrame } from './channel.js'

export type { StreamOpener } from './channel.js'

/** Inbound requests wait at most this long, whatever their deadline (the reference caps deadlines at 10 s). */
export const DEFAULT_TIMEOUT_MS = 10_000
/** Streams per connection and protocol: one a side, and room for a replacement while a broken one closes. */
export const DEFAULT_MAX_INBOUND_STREAMS = 4
export const DEFAULT_MAX_OUTBOUND_STREAMS = 4
/** Requests of one peer in flight at once, in each direction; more are refused at once. */
export const DEFAULT_MAX_INFLIGHT = 256
/** Version 2: many envelopes per stream, and the empty envelope as a refusal (version 1 used a stream each). */
export const PROTOCOL_VERSION = 2

/** `/firn/<networkId>/<name>/<version>` */
export const protocolId = (networkId: number, name: string, version = PROTOCOL_VERSION): string =>
  `/firn/${networkId}/${name}/${version}`

/** The part of libp2p's Registrar a service uses. */
export interface ProtocolRegistrar {
  handle(protocol: string, handler: StreamHandler, options?: StreamHandlerOptions): Promise<void>
  unhandle(protocol: string, options?: AbortOptions): Promise<void>
}

export interface ExchangeComponents {
  registrar: ProtocolRegistrar
  connectionManager: StreamOpener
}

export interface InboundRequest {
  remotePeer: PeerId
  connection: Connection
  requestId: number
  /** unix ms, 0 if the requester sent none */
  deadlineMs: number
  /** fires at the deadline (capped at the service timeout) */
  signal: AbortSignal
}

/** Answers a request; `undefined` (or a throw) sends the refusal instead. */
export type RequestHandler<Req, Res> = (
  request: Req,
  context: InboundRequest,
) => Res | undefined | Promise<Res | undefined>

export interface ExchangeInit<Req, Res> {
  handle: RequestHandler<Req, Res>
  /** outbound default timeout and inbound cap; DEFAULT_TIMEOUT_MS */
  timeoutMs?: number
  /** streams per connection (libp2p's limits); DEFAULT_MAX_INBOUND_STREAMS, DEFAULT_MAX_OUTBOUND_STREAMS */
  maxInboundStreams?: number
  maxOutboundStreams?: number
  /** requests of one peer in flight, each way; DEFAULT_MAX_INFLIGHT */
  maxInflight?: number
  /** unix ms; Date.now */
  now?: () => number
  /** inbound failures (a request refused, or the stream reset), for a log line */
  onInboundError?: (error: ExchangeError, peer: PeerId) => void
}

export interface Envelope {
  requestId: number
  deadlineMs: bigint
}

/** How one protocol puts bodies into its envelope. */
export interface ExchangeSpec<Env extends Envelope, Req, Res> {
  name: string
  codec: MessageCodec<Env>
  requestOf(envelope: Env): Req | undefined
  responseOf(envelope: Env): Res | undefined
  wrapRequest(request: Req, requestId: number, deadlineMs: bigint): Env
  wrapResponse(response: Res, requestId: number): Env
}

/** An envelope whose bodies are the `request` and `response` fields (app, bootstrap, consensus, echo). */
export interface RequestResponseEnvelope<Req, Res> extends Envelope {
  request?: Req
  response?: Res
}

/** The spec of a protocol whose envelope carries `request` / `response` fields. */
export function requestResponseSpec<Env extends RequestResponseEnvelope<Req, Res>, Req, Res>(
  name: string,
  codec: MessageCodec<Env>,
): ExchangeSpec<Env, Req, Res> {
  return {
    name,
    codec,
    requestOf: (m) => m.request,
    responseOf: (m) => m.response,
    wrapRequest: (request, requestId, deadlineMs) => ({ requestId, deadlineMs, request }) as Env,
    wrapResponse: (response, requestId) => ({ requestId, deadlineMs: 0n, response }) as Env,
  }
}

export type ExchangeErrorCode = 'TIMEOUT' | 'ABORTED' | 'PROTOCOL' | 'NO_RESPONSE' | 'REFUSED' | 'DEADLINE_PASSED'

const NAMES: Record<ExchangeErrorCode, string> = {
  TIMEOUT: 'TimeoutError',
  ABORTED: 'AbortError',
  PROTOCOL: 'ProtocolError',
  NO_RESPONSE: 'NoResponseError',
  REFUSED: 'RequestRefusedError',
  DEADLINE_PASSED: 'DeadlinePassedError',
}

/** Every failure of an exchange; `name` is stable per code. */
export class ExchangeError extends Error {
  constructor(
    message: string,
    readonly code: ExchangeErrorCode,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = NAMES[code]
  }
}

export interface RequestOptions {
  signal?: AbortSignal
  timeoutMs?: number
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** Maps any failure to an ExchangeError; the signal's reason wins once it has fired. */
function asExchangeError(e: unknown, signal?: AbortSignal): ExchangeError {
  if (e instanceof ExchangeError) return e
  if (signal?.aborted === true && signal.reason instanceof ExchangeError) return signal.reason
  if (e instanceof FrameAbortedError) return new ExchangeError(errorText(e), 'ABORTED', { cause: e })
  if (e instanceof FrameError && (e.code === 'FRAME_TRUNCATED' || e.code === 'FRAME_SOURCE')) {
    return new ExchangeError(`no response: ${errorText(e)}`, 'NO_RESPONSE', { cause: e })
  }
  if (e instanceof FrameError) return new ExchangeError(errorText(e), 'PROTOCOL', { cause: e })
  return new ExchangeError(errorText(e), 'NO_RESPONSE', { cause: e })
}

/** `promise`, or a rejection with the signal's reason once it fires. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** A signal that fires with `onTimeout()` after `ms` (re-armable), or with `onParent()` when `parent` fires. */
function deadline(
  ms: number,
  onTimeout: () => ExchangeError,
  parent?: AbortSignal,
  onParent?: () => ExchangeError,
): { signal: AbortSignal; rearm(ms: number): void; clear(): void } {
  const controller = new AbortController()
  let timer = setTimeout(() => controller.abort(onTimeout()), ms)
  const parentAborted = (): void => controller.abort(onParent?.())
  if (parent?.aborted === true) parentAborted()
  else parent?.addEventListener('abort', parentAborted, { once: true })
  return {
    signal: controller.signal,
    rearm(next: number) {
      clearTimeout(timer)
      timer = setTimeout(() => controller.abort(onTimeout()), Math.max(0, next))
    },
    clear() {
      clearTimeout(timer)
      parent?.removeEventListener('abort', parentAborted)
    },
  }
}

interface Waiter<Env> {
  resolve(envelope: Env): void
  reject(error: ExchangeError): void
}

/** A peer's outbound stream and the requests waiting for an answer on it. */
interface Outbound<Env> {
  stream: Stream
  pending: Map<number, Waiter<Env>>
}

export class ExchangeService<Env extends Envelope, Req, Res> implements Startable {
  readonly protocol: string
  readonly #timeoutMs: number
  readonly #maxInflight: number
  readonly #now: () => number
  readonly #pool: StreamPool<Outbound<Env>>
  #nextRequestId = 1
  #started = false

  constructor(
    private readonly components: ExchangeComponents,
    private readonly spec: ExchangeSpec<Env, Req, Res>,
    networkId: number,
    private readonly init: ExchangeInit<Req, Res>,
  ) {
    this.protocol = protocolId(networkId, spec.name)
    this.#timeoutMs = init.timeoutMs ?? DEFAULT_TIMEOUT_MS
    this.#maxInflight = init.maxInflight ?? DEFAULT_MAX_INFLIGHT
    this.#now = init.now ?? Date.now
    this.#pool = new StreamPool<Outbound<Env>>({
      opener: components.connectionManager,
      protocol: this.protocol,
      openTimeoutMs: this.#timeoutMs,
      create: (stream) => ({ stream, pending: new Map() }),
      read: (channel) => this.#readAnswers(channel),
      dropped: (channel, error) => {
        const failure = asExchangeError(error)
        for (const waiter of channel.pending.values()) waiter.reject(failure)
        channel.pending.clear()
      },
    })
  }

  get [Symbol.toStringTag](): string {
    return `@firn/${this.spec.name}`
  }

  isStarted(): boolean {
    return this.#started
  }

  async start(): Promise<void> {
    await this.components.registrar.handle(this.protocol, (stream, connection) => this.#serve(stream, connection), {
      maxInboundStreams: this.init.maxInboundStreams ?? DEFAULT_MAX_INBOUND_STREAMS,
      maxOutboundStreams: this.init.maxOutboundStreams ?? DEFAULT_MAX_OUTBOUND_STREAMS,
    })
    this.#started = true
  }

  async stop(): Promise<void> {
    await this.components.registrar.unhandle(this.protocol)
    this.#pool.closeAll(new ExchangeError(`${this.spec.name}: service stopped`, 'ABORTED'))
    this.#started = false
  }

  /** Sends one request on the peer's stream and returns the response body; throws only ExchangeError. */
  async request(peer: PeerId, body: Req, options: RequestOptions = {}): Promise<Res> {
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs
    const name = this.spec.name
    const timer = deadline(
      timeoutMs,
      () => new ExchangeError(`${name} request timed out after ${timeoutMs} ms`, 'TIMEOUT'),
      options.signal,
      () => new ExchangeError(`${name} request aborted`, 'ABORTED'),
    )
    const { signal } = timer
    const requestId = this.#nextRequestId
    this.#nextRequestId = this.#nextRequestId >= 0xffffffff ? 1 : this.#nextRequestId + 1
    let channel: Outbound<Env> | undefined
    try {
      const frame = encodeFrame(
        this.spec.codec,
        this.spec.wrapRequest(body, requestId, BigInt(this.#now() + timeoutMs)),
      )
      channel = await raceAbort(this.#pool.get(peer), signal)
      if (channel.pending.size >= this.#maxInflight) {
        throw new ExchangeError(`${name}: ${channel.pending.size} requests already in flight to the peer`, 'REFUSED')
      }
      const pending = channel.pending
      const answer = new Promise<Env>((resolve, reject) => pending.set(requestId, { resolve, reject }))
      answer.catch(() => {})
      try {
        await writeFrame(channel.stream, frame, signal)
      } catch (e) {
        // the frame is buffered whole or not at all; only a stream that refused it is broken
        if (!signal.aborted) this.#pool.fail(peer, channel.stream, asExchangeError(e))
        throw e
      }
      const reply = await raceAbort(answer, signal)
      const response = this.spec.responseOf(reply)
      if (response !== undefined) return response
      if (this.spec.requestOf(reply) !== undefined) {
        throw new ExchangeError(`${name}: a request where the response was expected`, 'PROTOCOL')
      }
      throw new ExchangeError(`${name}: request refused`, 'REFUSED')
    } catch (e) {
      throw asExchangeError(e, signal)
    } finally {
      channel?.pending.delete(requestId)
      timer.clear()
    }
  }

  /** Hands every answer on the stream to the request waiting for it; answers nobody waits for are dropped. */
  async #readAnswers(channel: Outbound<Env>): Promise<void> {
    for await (const envelope of decodeFrames(channel.stream, this.spec.codec)) {
      const waiter = channel.pending.get(envelope.requestId)
      if (waiter === undefined) continue
      channel.pending.delete(envelope.requestId)
      waiter.resolve(envelope)
    }
  }

  /** Answers the requests of an inbound stream, concurrently, until the peer closes its side. */
  #serve(stream: Stream, connection: Connection): void {
    const report = (error: ExchangeError): void => this.init.onInboundError?.(error, connection.remotePeer)
    let inflight = 0
    const serving = serveFrames(stream, this.spec.codec, (envelope) => {
      if (inflight >= this.#maxInflight) {
        report(new ExchangeError(`${this.spec.name}: ${inflight} requests already in flight`, 'REFUSED'))
        return this.#refuse(stream, envelope.requestId)
      }
      inflight++
      return this.#answer(stream, connection, envelope).finally(() => inflight--)
    }).then(
      () => stream.close().catch((e: unknown) => stream.abort(asExchangeError(e))),
      (e: unknown) => {
        const error = asExchangeError(e)
        stream.abort(error)
        report(error)
      },
    )
    this.#pool.serve(stream, serving)
  }

  /** The empty answer: the request will not be answered. */
  async #refuse(stream: Stream, requestId: number): Promise<void> {
    const refusal = { requestId, deadlineMs: 0n } as Env
    await writeFrame(stream, encodeFrame(this.spec.codec, refusal)).catch(() => {})
  }

  /** One request: the handler's response, or a refusal when it gives none in time (reported, never thrown). */
  async #answer(stream: Stream, connection: Connection, envelope: Env): Promise<void> {
    const name = this.spec.name
    const timer = deadline(this.#timeoutMs, () => new ExchangeError(`${name}: inbound request timed out`, 'TIMEOUT'))
    const { signal } = timer
    try {
      const request = this.spec.requestOf(envelope)
      if (request === undefined) throw new ExchangeError(`${name}: request without a body`, 'PROTOCOL')
      const deadlineMs = Number(envelope.deadlineMs)
      if (deadlineMs !== 0) {
        const left = deadlineMs - this.#now()
        if (left <= 0) throw new ExchangeError(`${name}: deadline passed ${-left} ms ago`, 'DEADLINE_PASSED')
        if (left < this.#timeoutMs) timer.rearm(left)
      }
      const context = {
        remotePeer: connection.remotePeer,
        connection,
        requestId: envelope.requestId,
        deadlineMs,
        signal,
      }
      const handled = Promise.resolve()
        .then(() => this.init.handle(request, context))
        .catch((e: unknown) => {
          throw new ExchangeError(`${name}: handler failed: ${errorText(e)}`, 'REFUSED', { cause: e })
        })
      const response = await raceAbort(handled, signal)
      if (response === undefined) throw new ExchangeError(`${name}: request refused`, 'REFUSED')
      const frame = encodeFrame(this.spec.codec, this.spec.wrapResponse(response, envelope.requestId))
      await writeFrame(stream, frame)
    } catch (e) {
      const error = asExchangeError(e, signal)
      // past its deadline the requester has given up (or will, on its own clock): nothing to tell it
      if (error.code !== 'TIMEOUT' && error.code !== 'DEADLINE_PASSED') await this.#refuse(stream, envelope.requestId)
      this.init.onInboundError?.(error, connection.remotePeer)
    } finally {
      timer.clear()
    }
  }
}

/** What a protocol's service factory takes: the handler and limits, and the network id of its protocol id. */
export interface ServiceInit<Req, Res> extends ExchangeInit<Req, Res> {
  networkId: number
}

/** The service factory of a spec, in the shape libp2p's `services` option wants. */
export function exchangeService<Env extends Envelope, Req, Res>(
  spec: ExchangeSpec<Env, Req, Res>,
): (init: ServiceInit<Req, Res>) => (components: ExchangeComponents) => ExchangeService<Env, Req, Res> {
  return (init) => (components) => new ExchangeService(components, spec, init.networkId, init)
}
