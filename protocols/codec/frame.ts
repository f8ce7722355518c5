/**
 * Framing of p2p messages: an unsigned varint length, then the protobuf bytes, at most 2 MiB per message.
 * Decoding only ever throws a `FrameError` subclass, whatever the input bytes or the source do.
 */
import * as lp from 'it-length-prefixed'

/** The largest message body, in bytes (the reference's 2 MiB). */
export const MAX_MESSAGE_SIZE = 2_097_152

/** What a generated protons namespace offers (`Handshake`, `PingMessage`, ...). */
export interface MessageCodec<T> {
  encode(message: T): Uint8Array
  decode(bytes: Uint8Array): T
}

/** A chunk of input: bytes, or a byte list (any Uint8ArrayList version) as libp2p streams yield. */
export type Chunk = Uint8Array | { subarray(): Uint8Array }

/** A byte source: a libp2p Stream, or any async iterable of chunks. */
export type ByteSource = AsyncIterable<Chunk>

export type FrameErrorCode =
  | 'FRAME_TOO_LARGE'
  | 'FRAME_TRUNCATED'
  | 'FRAME_UNDECODABLE'
  | 'FRAME_SOURCE'
  | 'FRAME_ABORTED'

/** The base of every error this module throws. */
export class FrameError extends Error {
  override name = 'FrameError'
  constructor(
    message: string,
    readonly code: FrameErrorCode,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** A declared (or encoded) length over the maximum, or a length prefix too long to be one. */
export class FrameTooLargeError extends FrameError {
  override name = 'FrameTooLargeError'
  constructor(message: string) {
    super(message, 'FRAME_TOO_LARGE')
  }
}

/** The input ended inside a frame, or before any frame. */
export class FrameTruncatedError extends FrameError {
  override name = 'FrameTruncatedError'
  constructor(message: string) {
    super(message, 'FRAME_TRUNCATED')
  }
}

/** A frame whose length prefix or protobuf body does not parse. */
export class FrameUndecodableError extends FrameError {
  override name = 'FrameUndecodableError'
  constructor(message: string, cause?: unknown) {
    super(message, 'FRAME_UNDECODABLE', { cause })
  }
}

/** The byte source itself failed (a reset stream, for instance); the original error is the cause. */
export class FrameSourceError extends FrameError {
  override name = 'FrameSourceError'
  constructor(cause: unknown) {
    super(`source failed: ${errorText(cause)}`, 'FRAME_SOURCE', { cause })
  }
}

/** The read was aborted through its signal. */
export class FrameAbortedError extends FrameError {
  override name = 'FrameAbortedError'
  constructor(cause: unknown) {
    super(`read aborted: ${errorText(cause)}`, 'FRAME_ABORTED', { cause })
  }
}

export interface FrameOptions {
  /** Defaults to MAX_MESSAGE_SIZE. */
  maxLength?: number
  signal?: AbortSignal
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** Encodes one message as varint length ‖ body; throws FrameTooLargeError over the maximum. */
export function encodeFrame<T>(codec: MessageCodec<T>, message: T, maxLength = MAX_MESSAGE_SIZE): Uint8Array {
  const body = codec.encode(message)
  if (body.byteLength > maxLength) throw new FrameTooLargeError(`message length ${body.byteLength} > ${maxLength}`)
  return lp.encode.single(body, { maxDataLength: maxLength }).subarray()
}

/** Wraps the source so that its own failures become FrameSourceError and are told apart from framing errors. */
async function* guarded(source: ByteSource): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of source) yield chunk instanceof Uint8Array ? chunk : chunk.subarray()
  } catch (e) {
    throw new FrameSourceError(e)
  }
}

function framingError(e: unknown, maxLength: number): FrameError {
  if (e instanceof FrameError) return e
  const name = e instanceof Error ? e.name : ''
  switch (name) {
    case 'InvalidDataLengthError':
      return new FrameTooLargeError(`message length > ${maxLength}`)
    case 'InvalidDataLengthLengthError':
      return new FrameTooLargeError('length prefix too long')
    case 'UnexpectedEOFError':
      return new FrameTruncatedError('input ended inside a frame')
    default:
      return new FrameUndecodableError(`bad length prefix: ${errorText(e)}`, e)
  }
}

function decodeBody<T>(codec: MessageCodec<T>, body: { subarray(): Uint8Array }): T {
  try {
    return codec.decode(body.subarray())
  } catch (e) {
    throw new FrameUndecodableError(`undecodable message: ${errorText(e)}`, e)
  }
}

/** Decodes every frame of `source`; throws only FrameError subclasses. */
export async function* decodeFrames<T>(
  source: ByteSource,
  codec: MessageCodec<T>,
  options: FrameOptions = {},
): AsyncGenerator<T> {
  const maxLength = options.maxLength ?? MAX_MESSAGE_SIZE
  const frames = lp.decode(guarded(source), { maxDataLength: maxLength })
  while (true) {
    const next = await frames.next().catch((e: unknown) => {
      throw framingError(e, maxLength)
    })
    if (next.done === true) return
    yield decodeBody(codec, next.value)
  }
}

/**
 * Reads the first message of `source` (one request or one response per stream). Anything after it is left
 * unread. Throws FrameTruncatedError if the source ends first, FrameAbortedError when `signal` fires.
 */
export async function readFrame<T>(source: ByteSource, codec: MessageCodec<T>, options: FrameOptions = {}): Promise<T> {
  const { signal } = options
  if (signal?.aborted === true) throw new FrameAbortedError(signal.reason)
  const frames = decodeFrames(source, codec, options)
  const first = frames.next()
  let result: IteratorResult<T>
  if (signal === undefined) {
    result = await first
  } else {
    first.catch(() => {})
    let onAbort = (): void => {}
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new FrameAbortedError(signal.reason))
      signal.addEventListener('abort', onAbort, { once: true })
    })
    try {
      result = await Promise.race([first, aborted])
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
  }
  if (result.done === true) throw new FrameTruncatedError('input ended before a message')
  return result.value
}
