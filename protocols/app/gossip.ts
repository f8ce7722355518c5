/**
 * `/firn/<networkId>/app-gossip/1`, one way: the sender opens a stream, writes one AppGossip frame and closes; the
 * receiver reads that frame (within a timeout), closes its end and hands the message to the injected handler. No
 * reply, no request id: nothing tracks gossip. Any failure resets the stream and is reported, never thrown.
 */
import type { Connection, PeerId, Startable, Stream } from '@libp2p/interface'
import { encodeFrame, readFrame } from '../codec/frame.js'
import {
  DEFAULT_MAX_INBOUND_STREAMS,
  DEFAULT_MAX_OUTBOUND_STREAMS,
  DEFAULT_TIMEOUT_MS,
  type ExchangeComponents,
  protocolId,
} from '../service/exchange.js'
import { AppGossip } from './app.js'

export const APP_GOSSIP_PROTOCOL_NAME = 'app-gossip'
export const appGossipProtocol = (networkId: number): string => protocolId(networkId, APP_GOSSIP_PROTOCOL_NAME)

export interface AppGossipInit {
  networkId: number
  /** one received message; must not throw (a throw is reported like a failed read) */
  handle: (message: AppGossip, connection: Connection) => void
  /** how long a frame may take to arrive or be sent; DEFAULT_TIMEOUT_MS */
  timeoutMs?: number
  maxInboundStreams?: number
  maxOutboundStreams?: number
  /** inbound failures (the stream was reset), for a log line */
  onInboundError?: (error: Error, peer: PeerId) => void
}

const failure = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)))

export class AppGossipService implements Startable {
  readonly protocol: string
  readonly #timeoutMs: number
  #started = false

  constructor(
    private readonly components: ExchangeComponents,
    private readonly init: AppGossipInit,
  ) {
    this.protocol = appGossipProtocol(init.networkId)
    this.#timeoutMs = init.timeoutMs ?? DEFAULT_TIMEOUT_MS
  }

  get [Symbol.toStringTag](): string {
    return `@firn/${APP_GOSSIP_PROTOCOL_NAME}`
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

  /** Writes one message on a new stream and closes it; rejects on failure (callers that fire and forget catch). */
  async send(peer: PeerId, message: AppGossip): Promise<void> {
    const signal = AbortSignal.timeout(this.#timeoutMs)
    let stream: Stream | undefined
    try {
      stream = await this.components.connectionManager.openStream(peer, this.protocol, { signal })
      if (!stream.send(encodeFrame(AppGossip, message))) await stream.onDrain({ signal })
      await stream.close({ signal })
    } catch (e) {
      stream?.abort(failure(e))
      throw e
    }
  }

  async #onStream(stream: Stream, connection: Connection): Promise<void> {
    const signal = AbortSignal.timeout(this.#timeoutMs)
    try {
      const message = await readFrame<AppGossip>(stream, AppGossip, { signal })
      await stream.close({ signal })
      this.init.handle(message, connection)
    } catch (e) {
      const error = failure(e)
      stream.abort(error)
      this.init.onInboundError?.(error, connection.remotePeer)
    }
  }
}

/** The service factory, in the shape libp2p's `services` option wants. */
export const appGossipService =
  (init: AppGossipInit) =>
  (components: ExchangeComponents): AppGossipService =>
    new AppGossipService(components, init)
