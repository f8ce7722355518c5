/**
 * `/firn/<networkId>/app-gossip/2`, one way: each peer's messages travel as AppGossip frames on one long-lived
 * stream (../service/channel.ts); the receiver hands each to the injected handler. No reply, no request id:
 * nothing tracks gossip. Bytes that are not frames reset the stream and are reported, never thrown; the sender's
 * next message opens a new stream.
 */
import type { Connection, PeerId, Startable, Stream } from '@libp2p/interface'
import { encodeFrame } from '../codec/frame.js'
import { StreamPool, serveFrames, writeFrame } from '../service/channel.js'
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
  /** how long opening a stream or sending a frame may take; DEFAULT_TIMEOUT_MS */
  timeoutMs?: number
  maxInboundStreams?: number
  maxOutboundStreams?: number
  /** inbound failures (the stream was reset, or the handler threw), for a log line */
  onInboundError?: (error: Error, peer: PeerId) => void
}

const failure = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)))

export class AppGossipService implements Startable {
  readonly protocol: string
  readonly #pool: StreamPool<Stream>
  #started = false

  constructor(
    private readonly components: ExchangeComponents,
    private readonly init: AppGossipInit,
  ) {
    this.protocol = appGossipProtocol(init.networkId)
    this.#pool = new StreamPool<Stream>({
      opener: components.connectionManager,
      protocol: this.protocol,
      openTimeoutMs: init.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      create: (stream) => stream,
      // nothing comes back: the loop only sees the stream end
      read: async (stream) => {
        for await (const _ of stream) throw new Error('unexpected bytes on an app-gossip stream')
      },
      dropped: () => {},
    })
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
        const serving = serveFrames<AppGossip>(stream, AppGossip, (message) => {
          this.#deliver(message, connection)
          return undefined
        }).then(
          () => stream.close().catch((e: unknown) => stream.abort(failure(e))),
          (e: unknown) => {
            const error = failure(e)
            stream.abort(error)
            this.init.onInboundError?.(error, connection.remotePeer)
          },
        )
        this.#pool.serve(stream, serving)
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
    this.#pool.closeAll(new Error('app-gossip service stopped'))
    this.#started = false
  }

  /** Writes one message on the peer's stream; rejects on failure (callers that fire and forget catch). */
  async send(peer: PeerId, message: AppGossip): Promise<void> {
    const frame = encodeFrame(AppGossip, message)
    const stream = await this.#pool.get(peer)
    try {
      await writeFrame(stream, frame, AbortSignal.timeout(this.init.timeoutMs ?? DEFAULT_TIMEOUT_MS))
    } catch (e) {
      this.#pool.fail(peer, stream, failure(e))
      throw e
    }
  }

  #deliver(message: AppGossip, connection: Connection): void {
    try {
      this.init.handle(message, connection)
    } catch (e) {
      this.init.onInboundError?.(failure(e), connection.remotePeer)
    }
  }
}

/** The service factory, in the shape libp2p's `services` option wants. */
export const appGossipService =
  (init: AppGossipInit) =>
  (components: ExchangeComponents): AppGossipService =>
    new AppGossipService(components, init)
