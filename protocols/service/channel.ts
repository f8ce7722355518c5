/**
 * Long-lived streams, one per peer and protocol (the reference keeps one connection per peer and frames every
 * message on it; opening a libp2p stream per message cost about 7 times the CPU of a frame on an open stream, see
 * docs/architecture.md). `StreamPool` opens a peer's stream on first use, keeps it while it lives and drops it
 * when its reader ends, so the next use opens a new one. `serveFrames` is the reading side of a served stream.
 */
import type { AbortOptions, PeerId, Stream } from '@libp2p/interface'
import { decodeFrames, type MessageCodec } from '../codec/frame.js'

/** The part of libp2p's ConnectionManager a service uses. */
export interface StreamOpener {
  openStream(peer: PeerId, protocol: string, options?: AbortOptions & { negotiateFully?: boolean }): Promise<Stream>
}

/** Writes one frame, waiting for the stream to drain when its buffer is full. */
export async function writeFrame(stream: Stream, frame: Uint8Array, signal?: AbortSignal): Promise<void> {
  if (!stream.send(frame)) await stream.onDrain(signal === undefined ? {} : { signal })
}

export interface StreamPoolInit<C> {
  opener: StreamOpener
  protocol: string
  /** how long opening a stream may take */
  openTimeoutMs: number
  /** the channel state of a new stream */
  create(stream: Stream, peer: PeerId): C
  /** reads the stream until it ends; the channel is dropped when this settles */
  read(channel: C): Promise<void>
  /** the channel was dropped (its stream ended, failed or was closed): fail whatever waits on it */
  dropped(channel: C, error: Error): void
}

interface Entry<C> {
  opening: Promise<C>
  channel?: C
  stream?: Stream
}

export class StreamPool<C> {
  readonly #entries = new Map<string, Entry<C>>()
  readonly #served = new Set<Stream>()

  constructor(private readonly init: StreamPoolInit<C>) {}

  /** The open channel to `peer`, opening its stream first if there is none. */
  get(peer: PeerId): Promise<C> {
    const key = peer.toString()
    const existing = this.#entries.get(key)
    if (existing !== undefined) return existing.opening
    const entry = {} as Entry<C>
    entry.opening = this.#open(peer, key, entry)
    entry.opening.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key)
    })
    this.#entries.set(key, entry)
    return entry.opening
  }

  async #open(peer: PeerId, key: string, entry: Entry<C>): Promise<C> {
    // the protocol name goes out with the first frame (no round trip of its own): one protocol, nothing to choose
    const stream = await this.init.opener.openStream(peer, this.init.protocol, {
      signal: AbortSignal.timeout(this.init.openTimeoutMs),
      negotiateFully: false,
    })
    if (this.#entries.get(key) !== entry) {
      const closed = new Error('the service stopped')
      stream.abort(closed)
      throw closed
    }
    const channel = this.init.create(stream, peer)
    entry.channel = channel
    entry.stream = stream
    this.init.read(channel).then(
      () => this.#drop(key, stream, channel, new Error('stream closed by the peer')),
      (err: unknown) => this.#drop(key, stream, channel, err instanceof Error ? err : new Error(String(err))),
    )
    return channel
  }

  #drop(key: string, stream: Stream, channel: C, error: Error): void {
    const entry = this.#entries.get(key)
    if (entry?.stream === stream) this.#entries.delete(key)
    stream.abort(error)
    this.init.dropped(channel, error)
  }

  /** Drops the channel to `peer` if its stream is `stream` (after a write to it failed). */
  fail(peer: PeerId, stream: Stream, error: Error): void {
    const key = peer.toString()
    const entry = this.#entries.get(key)
    if (entry?.stream === stream && entry.channel !== undefined) this.#drop(key, stream, entry.channel, error)
  }

  /** Tracks a served (inbound) stream until `serving` settles, so `closeAll` can reset it. */
  serve(stream: Stream, serving: Promise<void>): void {
    this.#served.add(stream)
    void serving.finally(() => this.#served.delete(stream))
  }

  /** Resets every outbound and served stream. */
  closeAll(error: Error): void {
    for (const [key, entry] of [...this.#entries]) {
      if (entry.stream !== undefined && entry.channel !== undefined) this.#drop(key, entry.stream, entry.channel, error)
    }
    this.#entries.clear()
    for (const stream of this.#served) stream.abort(error)
    this.#served.clear()
  }

  /** open outbound streams (tests, metrics) */
  get size(): number {
    return this.#entries.size
  }
}

/**
 * Reads the frames of a served stream in order and hands each to `onFrame` (which must not throw); resolves when
 * the peer closes its side, after the work `onFrame` returned has settled; rejects with the frame error (the
 * caller resets the stream) on bytes that are not frames of `codec`.
 */
export async function serveFrames<T>(
  stream: Stream,
  codec: MessageCodec<T>,
  onFrame: (message: T) => Promise<void> | undefined,
): Promise<void> {
  const work = new Set<Promise<void>>()
  for await (const message of decodeFrames(stream, codec)) {
    const w = onFrame(message)
    if (w !== undefined) {
      work.add(w)
      void w.finally(() => work.delete(w))
    }
  }
  await Promise.allSettled([...work])
}
