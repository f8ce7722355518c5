/**
 * The handshake, peers and ping services over in-memory stream pairs: registration, many requests on one stream
 * per peer answered in any order, refusals, deadlines, aborts, in-flight caps, malformed frames and broken streams.
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
  it('register their protocol ids on start; stop resets served streams and removes the ids', async () => {
    const { net, A, B } = await pingPair()
    assert.equal(B.protocol, '/firn/12345/ping/2')
    assert.deepEqual([...(net.nodes.get(b.toString())?.keys() ?? [])], ['/firn/12345/ping/2'])
    assert.equal(Object.prototype.toString.call(B), '[object @firn/ping]')
    assert.deepEqual(await A.request(b, { uptime: 1 }), {})
    await B.stop()
    assert.equal(B.isStarted(), false)
    assert.equal(net.nodes.get(b.toString())?.size, 0)
    assert.ok(net.opened[0]?.abortedWith, 'the served stream was reset')
    await assert.rejects(A.request(b, { uptime: 1 }), code('NO_RESPONSE'))
  })

  it('ping: requests share one stream, with request ids and deadlines', async () => {
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
    assert.equal(net.opened.length, 1, 'one stream for both requests')
    assert.ok(!net.opened[0]?.abortedWith && !net.opened[0]?.writeClosed, 'and it stays open')
  })

  it('match answers that come back in another order', async () => {
    const { A, net } = await pingPair({
      // the first request is answered last
      handle: async (p) => {
        await new Promise((r) => setTimeout(r, 50 - p.uptime * 10))
        return {}
      },
    })
    const order: number[] = []
    await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        A.request(b, { uptime: i }).then(() => {
          order.push(i)
        }),
      ),
    )
    assert.deepEqual(order, [4, 3, 2, 1, 0])
    assert.equal(net.opened.length, 1)
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
    assert.equal(hB.protocol, '/firn/12345/handshake/2')
    assert.equal(pB.protocol, '/firn/12345/peers/2')
    assert.deepEqual(await hA.request(b, hs), peerList)
    const get = {
      knownPeers: { filter: Uint8Array.of(1, 0, 0, 0, 0, 0, 0, 0, 0, 0), salt: Uint8Array.of(7) },
      allSubnets: true,
    }
    assert.deepEqual(await pA.request(b, get), { claimedIpPorts: [] })
    assert.deepEqual(received, [hs, get])
    // B refuses: the empty answer
    await assert.rejects(hB.request(a, hs), code('REFUSED'))
  })

  it('refuse with the empty answer when the handler gives none or fails, and keep the stream', async () => {
    const { A, errors, net } = await pingPair({
      handle: (p) => {
        if (p.uptime === 7) throw new Error('actor gone')
        return p.uptime > 100 ? undefined : {}
      },
    })
    await assert.rejects(A.request(b, { uptime: 101 }), (e: unknown) => {
      assert.ok(e instanceof ExchangeError)
      assert.equal(e.name, 'RequestRefusedError')
      assert.equal(e.message, 'ping: request refused')
      return true
    })
    await assert.rejects(A.request(b, { uptime: 7 }), code('REFUSED'))
    await until(() => errors.length === 2)
    assert.deepEqual(
      errors.map((e) => [e.code, e.message]),
      [
        ['REFUSED', 'ping: request refused'],
        ['REFUSED', 'ping: handler failed: actor gone'],
      ],
    )
    assert.deepEqual(await A.request(b, { uptime: 1 }), {})
    assert.equal(net.opened.length, 1)
    assert.ok(!net.opened[0]?.abortedWith)
  })

  it('time out: the requester at its timeout, the responder at the request deadline', async () => {
    const { A, errors, net } = await pingPair(
      { handle: (p) => (p.uptime === 1 ? new Promise<object>(() => {}) : {}) },
      { timeoutMs: 50 },
    )
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
    // nothing came back late; the stream still serves
    assert.deepEqual(await A.request(b, { uptime: 2 }), {})
    assert.equal(net.opened.length, 1)
  })

  it('drop requests whose deadline has passed', async () => {
    const { A, errors, seen } = await pingPair({ now: () => Date.now() + 60_000 }, { timeoutMs: 100 })
    await assert.rejects(A.request(b, { uptime: 1 }), code('TIMEOUT'))
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

  it('cap the requests of a peer in flight, each way', async () => {
    let handled = 0
    const hang = () => {
      handled++
      return new Promise<object>(() => {})
    }
    const server = await pingPair({ handle: hang, maxInflight: 2 }, { timeoutMs: 2000 })
    const two = [1, 2].map((i) => server.A.request(b, { uptime: i }))
    for (const p of two) p.catch(() => {})
    await until(() => handled === 2)
    await assert.rejects(server.A.request(b, { uptime: 3 }), code('REFUSED'))
    assert.equal(server.errors[0]?.message, 'ping: 2 requests already in flight')

    const client = await pingPair({ handle: hang }, { maxInflight: 1, timeoutMs: 2000 })
    client.A.request(b, { uptime: 1 }).catch(() => {})
    await until(() => handled === 3)
    await assert.rejects(client.A.request(b, { uptime: 2 }), (e: unknown) => {
      assert.ok(e instanceof ExchangeError)
      assert.equal(e.message, 'ping: 1 requests already in flight to the peer')
      return true
    })
    await new Promise((r) => setTimeout(r, 20))
    assert.equal(handled, 3, 'the refused request was never sent')
  })

  it('reset the stream on bytes that are not frames; refuse a frame without a request', async () => {
    const { net, errors, seen } = await pingPair()
    const send = async (bytes: Uint8Array) => {
      const end = net.raw(a, b, '/firn/12345/ping/2')
      end.send(bytes)
      await end.close()
      await until(() => end.resetByRemote)
    }
    await send(Uint8Array.of(3, 0x7f, 0x01, 0x00))
    await send(Uint8Array.of(0x81, 0x80, 0x80, 0x01))
    await send(Uint8Array.of(10, 1, 2))
    const end = net.raw(a, b, '/firn/12345/ping/2')
    end.send(encodeFrame(PingMessage, { requestId: 5, deadlineMs: 0n, pong: {} }))
    await until(() => end.inbox.length === 1)
    assert.deepEqual(PingMessage.decode((end.inbox[0] as Uint8Array).subarray(1)), { requestId: 5, deadlineMs: 0n })
    assert.ok(!end.resetByRemote)
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

  it('ignore answers nobody waits for; fail every waiting request when the stream breaks, then open another', async () => {
    const net = network()
    const A = pingService({ networkId: 1, handle: () => ({}) })(net.components(a))
    // a misbehaving server written by hand: answers each request with `reply(requestId)`
    const handlers = new Map<string, StreamHandler>()
    net.nodes.set(b.toString(), handlers)
    let reply = (id: number): Uint8Array[] => [
      encodeFrame(PingMessage, { requestId: 99, deadlineMs: 0n, pong: {} }),
      encodeFrame(PingMessage, { requestId: id, deadlineMs: 0n, pong: {} }),
    ]
    handlers.set('/firn/1/ping/2', async (stream) => {
      try {
        for await (const chunk of stream) {
          const { requestId } = PingMessage.decode((chunk as Uint8Array).subarray(1))
          for (const frame of reply(requestId)) stream.send(frame)
        }
      } catch {
        // reset by the requester after the garbage
      }
    })
    assert.deepEqual(await A.request(b, { uptime: 1 }), {})
    reply = (id) => [encodeFrame(PingMessage, { requestId: id, deadlineMs: 0n, ping: { uptime: 1 } })]
    await assert.rejects(A.request(b, { uptime: 1 }), (e: unknown) => {
      assert.ok(e instanceof ExchangeError)
      assert.equal(e.message, 'ping: a request where the response was expected')
      return true
    })
    assert.equal(net.opened.length, 1)
    reply = () => [Uint8Array.of(3, 0x7f, 0x01, 0x00)]
    await assert.rejects(A.request(b, { uptime: 1 }), code('PROTOCOL'))
    assert.ok(net.opened[0]?.resetByRemote, 'the broken stream was reset')
    reply = (id) => [encodeFrame(PingMessage, { requestId: id, deadlineMs: 0n, pong: {} })]
    assert.deepEqual(await A.request(b, { uptime: 1 }), {})
    assert.equal(net.opened.length, 2, 'a new stream')
  })
})
