/** Framing: round trips over split input, the 2 MiB cap, truncation, undecodable bodies, and random bytes. */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { describe, it } from 'node:test'
import {
  decodeFrames,
  encodeFrame,
  FrameAbortedError,
  FrameError,
  FrameSourceError,
  FrameTooLargeError,
  FrameTruncatedError,
  FrameUndecodableError,
  MAX_MESSAGE_SIZE,
  type MessageCodec,
  readFrame,
} from '../../../../protocols/codec/frame.js'
import { HandshakeMessage, PingMessage } from '../../../../protocols/messages/p2p.js'

async function* chunks(...parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield p
}

async function* byteByByte(data: Uint8Array): AsyncGenerator<Uint8Array> {
  for (const b of data) yield Uint8Array.of(b)
}

const varint = (n: number): Uint8Array => {
  const out: number[] = []
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80)
    n = Math.floor(n / 0x80)
  }
  out.push(n)
  return Uint8Array.from(out)
}

const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let o = 0
  for (const p of parts) {
    out.set(p, o)
    o += p.length
  }
  return out
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const x of it) out.push(x)
  return out
}

/** A codec over raw bytes, to size bodies exactly. */
const raw: MessageCodec<Uint8Array> = { encode: (m) => m, decode: (b) => b }

describe('frame codec', () => {
  it('round-trips messages, even split into single bytes', async () => {
    const a = { requestId: 1, deadlineMs: 1_700_000_000_000n, ping: { uptime: 80 } }
    const b = { requestId: 2, deadlineMs: 0n, pong: {} }
    const wire = concat(encodeFrame(PingMessage, a), encodeFrame(PingMessage, b))
    assert.equal(wire[0], PingMessage.encode(a).length)
    assert.deepEqual(await collect(decodeFrames(byteByByte(wire), PingMessage)), [a, b])
    assert.deepEqual(await readFrame(chunks(wire), PingMessage), a)
  })

  it('accepts exactly 2 MiB and refuses 2 MiB + 1 on both sides', async () => {
    assert.equal(MAX_MESSAGE_SIZE, 2_097_152)
    const max = new Uint8Array(MAX_MESSAGE_SIZE).fill(7)
    const frame = encodeFrame(raw, max)
    assert.equal((await readFrame(chunks(frame), raw)).length, MAX_MESSAGE_SIZE)

    assert.throws(() => encodeFrame(raw, new Uint8Array(MAX_MESSAGE_SIZE + 1)), FrameTooLargeError)
    // the declared length alone is enough to refuse: no body follows
    await assert.rejects(readFrame(chunks(varint(MAX_MESSAGE_SIZE + 1)), raw), (e: unknown) => {
      assert.ok(e instanceof FrameTooLargeError)
      assert.equal(e.code, 'FRAME_TOO_LARGE')
      return true
    })
    await assert.rejects(readFrame(chunks(new Uint8Array(12).fill(0xff)), raw), FrameTooLargeError)
  })

  it('honours a smaller maxLength', async () => {
    const frame = encodeFrame(raw, new Uint8Array(11))
    await assert.rejects(readFrame(chunks(frame), raw, { maxLength: 10 }), FrameTooLargeError)
  })

  it('reports truncated input', async () => {
    const frame = encodeFrame(HandshakeMessage, { requestId: 9, deadlineMs: 1n, peerList: { claimedIpPorts: [] } })
    await assert.rejects(readFrame(chunks(frame.subarray(0, frame.length - 1)), HandshakeMessage), FrameTruncatedError)
    await assert.rejects(readFrame(chunks(Uint8Array.of(0x85)), HandshakeMessage), FrameTruncatedError)
    await assert.rejects(readFrame(chunks(), HandshakeMessage), (e: unknown) => {
      assert.ok(e instanceof FrameTruncatedError)
      assert.equal(e.message, 'input ended before a message')
      return true
    })
    // a whole message then half of another: the first is delivered, then the error
    const it = decodeFrames(chunks(frame, frame.subarray(0, 3)), HandshakeMessage)
    assert.equal((await it.next()).value?.requestId, 9)
    await assert.rejects(it.next(), FrameTruncatedError)
  })

  it('reports undecodable bodies', async () => {
    // an unknown field (15) with wire type 7, which does not exist
    const bad = Uint8Array.of(0x7f, 0x01)
    await assert.rejects(readFrame(chunks(concat(varint(bad.length), bad)), PingMessage), (e: unknown) => {
      assert.ok(e instanceof FrameUndecodableError)
      assert.match(e.message, /^undecodable message: /)
      return true
    })
    // a length-delimited field longer than the body
    const short = Uint8Array.of(0x1a, 0x10, 0x08)
    await assert.rejects(readFrame(chunks(concat(varint(short.length), short)), PingMessage), FrameUndecodableError)
  })

  it('wraps source failures and honours the abort signal', async () => {
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield Uint8Array.of(5)
      throw new Error('stream reset')
    }
    await assert.rejects(readFrame(failing(), raw), (e: unknown) => {
      assert.ok(e instanceof FrameSourceError)
      assert.equal((e.cause as Error).message, 'stream reset')
      return true
    })
    const never = { [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<Uint8Array>>(() => {}) }) }
    const controller = new AbortController()
    const pending = readFrame(never, raw, { signal: controller.signal })
    controller.abort(new Error('deadline'))
    await assert.rejects(pending, FrameAbortedError)
    await assert.rejects(readFrame(chunks(), raw, { signal: AbortSignal.abort() }), FrameAbortedError)
  })

  it('turns 1,000 random inputs into messages or typed errors only', async () => {
    const seen = new Set<string>()
    for (let i = 0; i < 1000; i++) {
      const size = i % 10 === 0 ? 0 : 1 + ((randomBytes(1)[0] as number) % 64)
      const input = randomBytes(size)
      // a third of them with a plausible length prefix, so bodies reach the protobuf decoder
      const data = i % 3 === 0 ? concat(varint(input.length), input) : input
      const splits = [data.subarray(0, data.length >> 1), data.subarray(data.length >> 1)]
      for (const codec of [HandshakeMessage, PingMessage] as MessageCodec<unknown>[]) {
        try {
          for await (const _ of decodeFrames(chunks(...splits), codec, { maxLength: 1024 })) seen.add('message')
        } catch (e) {
          assert.ok(e instanceof FrameError, `untyped error: ${String(e)}`)
          seen.add(e.name)
        }
      }
    }
    for (const kind of ['message', 'FrameTooLargeError', 'FrameTruncatedError', 'FrameUndecodableError']) {
      assert.ok(seen.has(kind), `fuzzing never produced ${kind}: ${[...seen].join(', ')}`)
    }
  })
})
