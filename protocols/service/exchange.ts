/**
 * A request/response protocol as a small libp2p service: one stream per exchange, one framed envelope each way
 * (request id + deadline + body). Inbound: read exactly one request within the deadline, ask the injected
 * handler, answer or reset. Outbound: `request(peerId, body, {signal})`. The handshake, peers and ping services
 * are this class with a spec.
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
import { encodeFrame, FrameAbortedError, FrameError, type MessageCodec, readFrame } from '../codec/frame.js'

/** Inbound requests wait at most this long, whatever their deadline (the reference caps deadlines at 10 s). */
export const DEFAULT_TIMEOUT_MS = 10_000
export const DEFAULT_MAX_INBOUND_STREAMS = 32
export const DEFAULT_MAX_OUTBOUND_STREAMS = 32

/** `/firn/<networkId>/<name>/<version>` */
export const protocolId = (networkId: number, name: string, version = 1): string =>
  `/firn/${networkId}/${name}/${version}`

/** The part of libp2p's Registrar a service uses. */
export interface ProtocolRegistrar {
  handle(protocol: string, handler: StreamHandler, options?: StreamHandlerOptions): Promise<void>
  unhandle(protocol: string, options?: AbortOptions): Promise<void>
}

/** The part of libp2p's ConnectionManager a service uses. */
export interface StreamOpener {
  openStream(peer: PeerId, protocol: string, options?: AbortOptions & { negotiateFully?: boolean }): Promise<Stream>
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

/** Answers a request; `undefined` (or a throw) resets the stream instead. */
export type RequestHandler<Req, Res> = (
  request: Req,
  context: InboundRequest,
) => Res | undefined | Promise<Res | undefined>

export interface ExchangeInit<Req, Res> {
  handle: RequestHandler<Req, Res>
  /** outbound default timeout and inbound cap; DEFAULT_TIMEOUT_MS */
  timeoutMs?: number
  maxInboundStreams?: number
  maxOutboundStreams?: number
  /** unix ms; Date.now */
  now?: () => number
  /** inbound failures (the stream was reset), for a log line */
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
function asExchangeError(e: unknown, signal: AbortSignal): ExchangeError {
  if (e instanceof ExchangeError) return e
  if (signal.aborted && signal.reason instanceof ExchangeError) return signal.reason
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

async function write(stream: Stream, frame: Uint8Array, signal: AbortSignal): Promise<void> {
  if (!stream.send(frame)) await stream.onDrain({ signal })
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

export class ExchangeService<Env extends Envelope, Req, Res> implements Startable {
  readonly protocol: string
  readonly #timeoutMs: number
  readonly #now: () => number
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
    this.#now = init.now ?? Date.now
  }

  get [Symbol.toStringTag](): string {
    return `@firn/${this.spec.name}`
  }

  isStarted(): boolean {
    return this.#started
  }

  async start(): Promise<void> {
    await this.components.registrar.handle(
      this.protocol,
      (stream, connection) => {
        void this.#onStream(stream, connection)
      },
      {
        maxInboundStreams: this.init.maxInboundStreams ?? DEFAULT_MAX_INBOUND_STREAMS,
        maxOutboundStreams: this.init.maxOutboundStreams ?? DEFAULT_MAX_OUTBOUND_STREAMS,
      },
    )
    this.#started = true
  }

  async stop(): Promise<void> {
    await this.components.registrar.unhandle(this.protocol)
    this.#started = false
  }

  /** Sends one request on a new stream and returns the response body; throws only ExchangeError. */
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
    let stream: Stream | undefined
    const onAbort = (): void => stream?.abort(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    try {
      // the protocol name goes out with the request (no round trip of its own): one protocol, nothing to choose
      const opening = this.components.connectionManager.openStream(peer, this.protocol, {
        signal,
        negotiateFully: false,
      })
      // a stream that opens after the deadline is reset at once
      opening.then(
        (late) => signal.aborted && late.abort(signal.reason),
        () => {},
      )
      stream = await raceAbort(opening, signal)
      const envelope = this.spec.wrapRequest(body, requestId, BigInt(this.#now() + timeoutMs))
      const reply = readFrame(stream, this.spec.codec, { signal })
      reply.catch(() => {})
      await write(stream, encodeFrame(this.spec.codec, envelope), signal)
      await stream.close({ signal })
      const answer = await reply
      const response = this.spec.responseOf(answer)
      if (response === undefined) throw new ExchangeError(`${this.spec.name}: response without a body`, 'PROTOCOL')
      if (answer.requestId !== requestId) {
        throw new ExchangeError(`${this.spec.name}: response id ${answer.requestId} != ${requestId}`, 'PROTOCOL')
      }
      return response
    } catch (e) {
      const error = asExchangeError(e, signal)
      stream?.abort(error)
      throw error
    } finally {
      signal.removeEventListener('abort', onAbort)
      timer.clear()
    }
  }

  async #onStream(stream: Stream, connection: Connection): Promise<void> {
    const timer = deadline(
      this.#timeoutMs,
      () => new ExchangeError(`${this.spec.name}: inbound request timed out`, 'TIMEOUT'),
    )
    const { signal } = timer
    const onAbort = (): void => stream.abort(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    try {
      const envelope = await readFrame(stream, this.spec.codec, { signal })
      const request = this.spec.requestOf(envelope)
      if (request === undefined) throw new ExchangeError(`${this.spec.name}: request without a body`, 'PROTOCOL')
      const deadlineMs = Number(envelope.deadlineMs)
      if (deadlineMs !== 0) {
        const left = deadlineMs - this.#now()
        if (left <= 0) throw new ExchangeError(`${this.spec.name}: deadline passed ${-left} ms ago`, 'DEADLINE_PASSED')
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
          throw new ExchangeError(`${this.spec.name}: handler failed: ${errorText(e)}`, 'REFUSED', { cause: e })
        })
      const response = await raceAbort(handled, signal)
      if (response === undefined) throw new ExchangeError(`${this.spec.name}: request refused`, 'REFUSED')
      await write(stream, encodeFrame(this.spec.codec, this.spec.wrapResponse(response, envelope.requestId)), signal)
      await stream.close({ signal })
    } catch (e) {
      const error = asExchangeError(e, signal)
      stream.abort(error)
      this.init.onInboundError?.(error, connection.remotePeer)
    } finally {
      signal.removeEventListener('abort', onAbort)
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
