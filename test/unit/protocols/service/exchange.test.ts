/**
 * The handshake, peers and ping services over in-memory stream pairs: registration, one request per stream,
 * answers, resets, deadlines, aborts and malformed requests.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { generateKeyPair } from '@libp2p/crypto/keys'
import type { Connection, PeerId, Stream, StreamHandler } from '@libp2p/interface'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { encodeFrame } from '../../../../protocols/codec/frame.js'
import { handshakeService } from '../../../../protocols/handshake/service.js'
import { type Handshake, Handshake as HandshakeCodec, PingMessage } from '../../../../protocols/messages/p2p.js'
import { peersService } from '../../../../protocols/peers/service.js'
import { pingService } from '../../../../protocols/ping/service.js'
import {
  type ExchangeComponents,
  ExchangeError,
  type ExchangeInit,
  type InboundRequest,
} from '../../../../protocols/service/exchange.js'

/** One end of an in-memory stream: what the services use of a libp2p Stream. */
class End {
  peer!: End
  readonly inbox: Uint8Array[] = []
  remoteClosed = false
  error: Error | undefined
  abortedWith: Error | undefined
  resetByRemote = false
  writeClosed = false
  #wake: Array<() => void> = []

  send(data: Uint8Array | { subarray(): Uint8Array }): boolean {
    if (this.writeClosed || this.abortedWith) throw new Error('stream not writable')
    this.peer.#deliver(data instanceof Uint8Array ? data : data.subarray())
    return true
  }
  async close(): Promise<void> {
    if (this.abortedWith) throw new Error('stream aborted')
    this.writeClosed = true
    this.peer.remoteClosed = true
    this.peer.#notify()
  }
  abort(err: Error): void {
    if (this.abortedWith) return
    this.abortedWith = err
    this.#fail(err)
    this.peer.resetByRemote = true
    this.peer.#fail(new Error('stream reset by remote'))
  }
  async onDrain(): Promise<void> {}
  #deliver(data: Uint8Array): void {
    this.inbox.push(data)
    this.#notify()
  }
  #fail(e: Error): void {
    this.error ??= e
    this.#notify()
  }
  #notify(): void {
    for (const w of this.#wake.splice(0)) w()
  }
  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    while (true) {
      const next = this.inbox.shift()
      if (next !== undefined) yield next
      else if (this.error) throw this.error
      else if (this.remoteClosed) return
      else await new Promise<void>((r) => this.#wake.push(r))
    }
  }
}

function pair(): [End, End] {
  const a = new End()
  const b = new End()
  a.peer = b
  b.peer = a
  return [a, b]
}

const asStream = (end: End): Stream => end as unknown as Stream
const newPeerId = async (): Promise<PeerId> => peerIdFromPrivateKey(await generateKeyPair('Ed25519'))

/** A tiny network: each node's registrar, and openStream that hands the other end to the remote handler. */
function network() {
  const nodes = new Map<string, Map<string, StreamHandler>>()
  const opened: End[] = []
  const components = (self: PeerId): ExchangeComponents => {
    const handlers = nodes.get(self.toString()) ?? new Map<string, StreamHandler>()
    nodes.set(self.toString(), handlers)
    return {
      registrar: {
        handle: async (protocol, handler) => {
          handlers.set(protocol, handler)
        },
        unhandle: async (protocol) => {
          handlers.delete(protocol)
        },
      },
      connectionManager: {
        openStream: async (peer, protocol) => {
          const handler = nodes.get(peer.toString())?.get(protocol)
          if (handler === undefined) throw new Error(`protocol selection failed: ${protocol}`)
          const [local, remote] = pair()
          opened.push(remote)
          void handler(asStream(remote), { remotePeer: self } as unknown as Connection)
          return asStream(local)
        },
      },
    }
  }
  /** Opens a raw stream to `peer`'s handler, for malformed requests. */
  const raw = (from: PeerId, peer: PeerId, protocol: string): End => {
    const handler = nodes.get(peer.toString())?.get(protocol)
    assert.ok(handler)
    const [local, remote] = pair()
    void handler(asStream(remote), { remotePeer: from } as unknown as Connection)
    return local
  }
  return { components, raw, nodes, opened }
}

const a = await newPeerId()
const b = await newPeerId()

async function pingPair(server: Partial<ExchangeInit<{ uptime: number }, object>> = {}, client = {}) {
  const net = network()
  const errors: ExchangeError[] = []
  const seen: Array<{ uptime: number; ctx: InboundRequest }> = []
  const mk = (self: PeerId, init: Partial<ExchangeInit<{ uptime: number }, object>>) => {
    const service = pingService({
      networkId: 12345,
      handle: (ping, ctx) => {
        seen.push({ uptime: ping.uptime, ctx })
        return {}
      },
      onInboundError: (e) => errors.push(e),
      ...init,
    })(net.components(self))
    return service
  }
  const A = mk(a, client)
  const B = mk(b, server)
  await A.start()
  await B.start()
  return { net, A, B, errors, seen }
}

const code = (expected: string) => (e: unknown) => {
  assert.ok(e instanceof ExchangeError, `not an ExchangeError: ${String(e)}`)
  assert.equal(e.code, expected, e.message)
  return true
}

const until = async (f: () => boolean, ms = 2000): Promise<void> => {
  const end = Date.now() + ms
  while (!f()) {
    if (Date.now() > end) assert.fail('condition not reached')
    await new Promise((r) => setTimeout(r, 5))
  }
}

describe('exchange services', () => {
  it('register their protocol ids on start and remove them on stop', async () => {
    const { net, A, B } = await pingPair()
    assert.equal(B.protocol, '/firn/12345/ping/1')
    assert.deepEqual([...(net.nodes.get(b.toString())?.keys() ?? [])], ['/firn/12345/ping/1'])
    assert.equal(Object.prototype.toString.call(B), '[object @firn/ping]')
    await B.stop()
    assert.equal(B.isStarted(), false)
    assert.equal(net.nodes.get(b.toString())?.size, 0)
    await assert.rejects(A.request(b, { uptime: 1 }), code('NO_RESPONSE'))
  })

  it('ping: one request, one answer, with request ids and deadlines', async () => {
    const { A, seen, net } = await pingPair({ now: () => 1_000_000 }, { now: () => 1_000_000, timeoutMs: 3000 })
    assert.deepEqual(await A.request(b, { uptime: 97 }), {})
    assert.deepEqual(await A.request(b, { uptime: 98 }), {})
    assert.deepEqual(
      seen.map((s) => [s.uptime, s.ctx.requestId, s.ctx.deadlineMs, s.ctx.remotePeer.toString()]),
      [
        [97, 1, 1_003_000, a.toString()],
        [98, 2, 1_003_000, a.toString()],
      ],
    )
    // the responder closed its side cleanly
    assert.ok(net.opened.every((end) => end.writeClosed && !end.abortedWith))
  })

  it('handshake and peers carry their bodies', async () => {
    const net = network()
    const hs: Handshake = { ...HandshakeCodec.decode(new Uint8Array(0)), networkId: 12345, ipPort: 9651 }
    const claim = { ...{ x509Certificate: Uint8Array.of(1), ipAddr: new Uint8Array(16), ipPort: 1 } }
    const peerList = {
      claimedIpPorts: [
        { ...claim, timestamp: 5n, signature: Uint8Array.of(2), txId: new Uint8Array(32), peerId: Uint8Array.of(3) },
      ].map((c) => ({ ...c, identitySig: Uint8Array.of(4) })),
    }
    const received: unknown[] = []
    const hA = handshakeService({ networkId: 12345, handle: () => undefined })(net.components(a))
    const hB = handshakeService({
      networkId: 12345,
      handle: (h) => {
        received.push(h)
        return peerList
      },
    })(net.components(b))
    const pB = peersService({
      networkId: 12345,
      handle: (g) => {
        received.push(g)
        return { claimedIpPorts: [] }
      },
    })(net.components(b))
    const pA = peersService({ networkId: 12345, handle: () => undefined })(net.components(a))
    for (const s of [hA, hB, pA, pB]) await s.start()
    assert.equal(hB.protocol, '/firn/12345/handshake/1')
    assert.equal(pB.protocol, '/firn/12345/peers/1')
    assert.deepEqual(await hA.request(b, hs), peerList)
    const get = {
      knownPeers: { filter: Uint8Array.of(1, 0, 0, 0, 0, 0, 0, 0, 0, 0), salt: Uint8Array.of(7) },
      allSubnets: true,
    }
    assert.deepEqual(await pA.request(b, get), { claimedIpPorts: [] })
    assert.deepEqual(received, [hs, get])
  })

  it('reset the stream when the handler refuses or fails', async () => {
    const { A, errors, net } = await pingPair({ handle: (p) => (p.uptime > 100 ? undefined : {}) })
    await assert.rejects(A.request(b, { uptime: 101 }), code('NO_RESPONSE'))
    await until(() => errors.length === 1)
    assert.equal(errors[0]?.code, 'REFUSED')
    assert.ok(net.opened[0]?.abortedWith)

    const failing = await pingPair({
      handle: () => {
        throw new Error('actor gone')
      },
    })
    await assert.rejects(failing.A.request(b, { uptime: 1 }), code('NO_RESPONSE'))
    await until(() => failing.errors.length === 1)
    assert.equal(failing.errors[0]?.message, 'ping: handler failed: actor gone')
  })

  it('time out: the requester at its timeout, the responder at the request deadline', async () => {
    const { A, errors } = await pingPair({ handle: () => new Promise<object>(() => {}) }, { timeoutMs: 50 })
    const started = Date.now()
    await assert.rejects(A.request(b, { uptime: 1 }), (e: unknown) => {
      assert.ok(e instanceof ExchangeError)
      assert.equal(e.name, 'TimeoutError')
      assert.equal(e.message, 'ping request timed out after 50 ms')
      return true
    })
    // the responder's own cap is 10 s; the 50 ms deadline in the request ends it much sooner
    await until(() => errors.length === 1, 1000)
    assert.equal(errors[0]?.code, 'TIMEOUT')
    assert.ok(Date.now() - started < 1000)
  })

  it('drop requests whose deadline has passed', async () => {
    const { A, errors, seen } = await pingPair({ now: () => Date.now() + 60_000 })
    await assert.rejects(A.request(b, { uptime: 1 }), code('NO_RESPONSE'))
    await until(() => errors.length === 1)
    assert.equal(errors[0]?.code, 'DEADLINE_PASSED')
    assert.equal(seen.length, 0)
  })

  it('abort on the caller signal', async () => {
    const { A } = await pingPair({ handle: () => new Promise<object>(() => {}) })
    const controller = new AbortController()
    const pending = A.request(b, { uptime: 1 }, { signal: controller.signal })
    setTimeout(() => controller.abort(), 10)
    await assert.rejects(pending, (e: unknown) => e instanceof ExchangeError && e.name === 'AbortError')
    await assert.rejects(A.request(b, { uptime: 1 }, { signal: AbortSignal.abort() }), code('ABORTED'))
  })

  it('reset malformed, oversized, truncated and wrong-body requests', async () => {
    const { net, errors, seen } = await pingPair()
    const send = async (bytes: Uint8Array, close = true) => {
      const end = net.raw(a, b, '/firn/12345/ping/1')
      end.send(bytes)
      if (close) await end.close()
      await until(() => end.resetByRemote)
    }
    await send(Uint8Array.of(3, 0x7f, 0x01, 0x00))
    await send(Uint8Array.of(0x81, 0x80, 0x80, 0x01))
    await send(Uint8Array.of(10, 1, 2))
    await send(encodeFrame(PingMessage, { requestId: 1, deadlineMs: 0n, pong: {} }))
    await until(() => errors.length === 4)
    assert.deepEqual(
      errors.map((e) => [e.code, e.message]),
      [
        ['PROTOCOL', 'undecodable message: invalid wire type 7 at offset 1'],
        ['PROTOCOL', 'message length > 2097152'],
        ['NO_RESPONSE', 'no response: input ended inside a frame'],
        ['PROTOCOL', 'ping: request without a body'],
      ],
    )
    assert.equal(seen.length, 0)
  })

  it('reject a response with another request id or without a body', async () => {
    const net = network()
    const A = pingService({ networkId: 1, handle: () => ({}) })(net.components(a))
    // a misbehaving server written by hand
    const handlers = new Map<string, StreamHandler>()
    net.nodes.set(b.toString(), handlers)
    let reply = encodeFrame(PingMessage, { requestId: 99, deadlineMs: 0n, pong: {} })
    handlers.set('/firn/1/ping/1', async (stream) => {
      for await (const _ of stream) break
      stream.send(reply)
      await stream.close()
    })
    await assert.rejects(A.request(b, { uptime: 1 }), (e: unknown) => {
      assert.ok(e instanceof ExchangeError)
      assert.equal(e.message, 'ping: response id 99 != 1')
      return true
    })
    reply = encodeFrame(PingMessage, { requestId: 2, deadlineMs: 0n, ping: { uptime: 1 } })
    await assert.rejects(A.request(b, { uptime: 1 }), code('PROTOCOL'))
    reply = HandshakeCodec.encode({ ...HandshakeCodec.decode(new Uint8Array(0)), networkId: 1 }).subarray(0, 1)
    await assert.rejects(A.request(b, { uptime: 1 }), code('NO_RESPONSE'))
  })
})
