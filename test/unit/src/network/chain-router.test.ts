/**
 * The chain router in-process: two Networks on real libp2p hosts on 127.0.0.1 (real keys, the actor tree with
 * `benchlist:C`, memory-level). Every consensus, bootstrap and app request round trips with its fields and the
 * requester's NodeID; unregistered chains and unanswered requests time out; an AppError reaches the caller;
 * gossip arrives; a node that is not connected fails at once; malformed frames are refused without harm; Get -> Put
 * leaves the adaptive timeout's average alone while PushQuery moves it; app requests run 2 at a time per chain.
 * The pure parts (TaskQueue, fitAncestors, the tracker's observeLatency option) are in chain-inbound.test.ts.
 */
import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { multiaddr } from '@multiformats/multiaddr'
import type { Subscription } from 'rxjs'
import type { Chits } from '../../../../actors/consensus/types.js'
import { chainIds } from '../../../../src/config/chain-ids.js'
import { idToString } from '../../../../src/identity/ids.js'
import { newStakingIdentity, type StakingIdentity } from '../../../../src/identity/staking.js'
import { createHost, type Host } from '../../../../src/network/host.js'
import { AppRequestError, type ChainHandlers, type PeerEvent } from '../../../../src/network/network.js'
import { deferred } from '../../../helpers/deferred.js'
import { startNetworkNode } from '../../../helpers/network-node.js'
import { requestFailure, until } from '../../../helpers/until.js'

const NETWORK_ID = 12345
const C = chainIds(NETWORK_ID).C
const OTHER = idToString(new Uint8Array(32).fill(0x77))
const TIMEOUT = { initialMs: 400, minMs: 200, maxMs: 400, halflifeMs: 60_000, coefficient: 2 }
const hexId = (n: number): string => `0x${n.toString(16).padStart(2, '0').repeat(32)}`
const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b)

/** the value with every byte array (Buffers from the socket included) as a plain Uint8Array, for deepEqual */
function plain(x: unknown): unknown {
  if (x instanceof Uint8Array) return Uint8Array.from(x)
  if (Array.isArray(x)) return x.map(plain)
  if (x !== null && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, plain(v)]))
  return x
}
const same = (actual: unknown, expected: unknown, message?: string): void =>
  assert.deepEqual(plain(actual), plain(expected), message)

async function node(identity: StakingIdentity, bootstrap?: { ip: string; id: string }, appConcurrency?: number) {
  return startNetworkNode({
    identity,
    config: {
      networkId: NETWORK_ID,
      ...(bootstrap === undefined ? {} : { bootstrap: [bootstrap] }),
      ...(appConcurrency === undefined ? {} : { appConcurrency }),
    },
    chains: [{ chainId: C, alias: 'C' }],
    requestTimeout: TIMEOUT,
  })
}

const CHITS: Chits = { preferredId: hexId(1), preferredIdAtHeight: hexId(2), acceptedId: hexId(3), acceptedHeight: 42 }

/** What A's handlers saw, and how they answer (tests swap parts). */
function recordingHandlers() {
  const calls: { op: string; from: string; args: unknown[] }[] = []
  const gossip: { from: string; bytes: Uint8Array }[] = []
  const rec = (op: string, from: string, ...args: unknown[]) => calls.push({ op, from, args })
  const handlers: ChainHandlers = {
    pushQuery: async (from, container, height) => {
      rec('pushQuery', from, container, height)
      return CHITS
    },
    pullQuery: async (from, id, height) => {
      rec('pullQuery', from, id, height)
      return { ...CHITS, acceptedHeight: height }
    },
    get: async (from, id) => {
      rec('get', from, id)
      return id === hexId(9) ? undefined : bytes(7, 7, 7)
    },
    getAcceptedFrontier: async (from) => {
      rec('getAcceptedFrontier', from)
      return hexId(5)
    },
    getAccepted: async (from, ids) => {
      rec('getAccepted', from, ids)
      return ids.slice(1)
    },
    getAncestors: async (from, id) => {
      rec('getAncestors', from, id)
      return [bytes(1), bytes(2, 2), new Uint8Array(0)]
    },
    appRequest: async (from, b) => {
      rec('appRequest', from, b)
      if (b[0] === 0xee) throw new AppRequestError(-4, 'throttled, try later')
      if (b[0] === 0xff) throw new Error('a bug')
      return Uint8Array.from([...b].reverse())
    },
    appGossip: (from, b) => {
      gossip.push({ from, bytes: b })
    },
  }
  return { calls, gossip, handlers }
}

/** An app handler that holds every request until `gate` resolves, counting how many ran and at most at once. */
function gatedApp() {
  const stats = { started: 0, active: 0, max: 0 }
  const gate = deferred()
  const appRequest: ChainHandlers['appRequest'] = async (_from, b2) => {
    stats.started++
    stats.active++
    stats.max = Math.max(stats.max, stats.active)
    await gate.promise
    stats.active--
    return b2
  }
  return { stats, gate, appRequest }
}

describe('ChainRouter between two nodes', { timeout: 90_000 }, () => {
  let a: Awaited<ReturnType<typeof node>>
  let b: Awaited<ReturnType<typeof node>>
  const seenByA: PeerEvent[] = []
  let sub: Subscription | undefined
  const h = recordingHandlers()
  let unregister: () => void = () => {}

  before(async () => {
    a = await node(newStakingIdentity())
    sub = a.network.peerEvents$.subscribe((e) => seenByA.push(e))
    b = await node(newStakingIdentity(), { ip: `127.0.0.1:${a.network.port}`, id: a.nodeId })
    await until('b connected to a', () => (b.network.chains.isConnected(a.nodeId) ? true : undefined))
    await until('a connected to b', () => (a.network.chains.isConnected(b.nodeId) ? true : undefined))
    unregister = a.network.chains.register(C, h.handlers)
  })

  after(async () => {
    sub?.unsubscribe()
    await b?.close()
    await a?.close()
  })

  it('lists connected peers and streams their connection', () => {
    assert.deepEqual(b.network.chains.connectedNodeIds(), [a.nodeId])
    assert.deepEqual(a.network.chains.connectedNodeIds(), [b.nodeId])
    assert.equal(b.network.chains.isConnected(b.nodeId), false, 'never ourselves')
    assert.ok(seenByA.some((e) => e.type === 'connected' && e.nodeId === b.nodeId))
    assert.throws(() => a.network.chains.register(C, h.handlers), /already registered/)
  })

  it('round trips every consensus and bootstrap request with its fields and the requester', async () => {
    h.calls.length = 0
    const chains = b.network.chains
    assert.deepEqual(await chains.pushQuery(a.nodeId, C, bytes(1, 2, 3), 17), CHITS)
    assert.deepEqual(await chains.pullQuery(a.nodeId, C, hexId(4), 18), { ...CHITS, acceptedHeight: 18 })
    same(await chains.get(a.nodeId, C, hexId(4)), bytes(7, 7, 7))
    assert.equal(await chains.getAcceptedFrontier(a.nodeId, C), hexId(5))
    assert.deepEqual(await chains.getAccepted(a.nodeId, C, [hexId(1), hexId(2), hexId(3)]), [hexId(2), hexId(3)])
    same(await chains.getAncestors(a.nodeId, C, hexId(6)), [bytes(1), bytes(2, 2), new Uint8Array(0)])
    same(await chains.appRequest(a.nodeId, C, bytes(1, 2, 3)), bytes(3, 2, 1))
    same(h.calls, [
      { op: 'pushQuery', from: b.nodeId, args: [bytes(1, 2, 3), 17] },
      { op: 'pullQuery', from: b.nodeId, args: [hexId(4), 18] },
      { op: 'get', from: b.nodeId, args: [hexId(4)] },
      { op: 'getAcceptedFrontier', from: b.nodeId, args: [] },
      { op: 'getAccepted', from: b.nodeId, args: [[hexId(1), hexId(2), hexId(3)]] },
      { op: 'getAncestors', from: b.nodeId, args: [hexId(6)] },
      { op: 'appRequest', from: b.nodeId, args: [bytes(1, 2, 3)] },
    ])
  })

  it('an AppError reaches the caller with its code and message', async () => {
    await assert.rejects(
      b.network.chains.appRequest(a.nodeId, C, bytes(0xee)),
      (e: unknown) => e instanceof AppRequestError && e.code === -4 && e.message === 'throttled, try later',
    )
  })

  it('gossip arrives at the registered handler', async () => {
    h.gossip.length = 0
    b.network.chains.appGossip([a.nodeId, a.nodeId], C, bytes(9, 8, 7))
    b.network.chains.appGossip([a.nodeId], OTHER, bytes(1))
    await until('gossip', () => (h.gossip.length > 0 ? true : undefined))
    b.network.chains.appGossip([a.nodeId], C, bytes(6))
    await until('second gossip', () => (h.gossip.length > 1 ? true : undefined))
    same(h.gossip, [
      { from: b.nodeId, bytes: bytes(9, 8, 7) },
      { from: b.nodeId, bytes: bytes(6) },
    ])
  })

  it('an unregistered chain, an unanswered request and a failing handler make the requester time out', async () => {
    const chains = b.network.chains
    assert.equal((await requestFailure(chains.pushQuery(a.nodeId, OTHER, bytes(1), 1))).reason, 'timeout')
    assert.equal((await requestFailure(chains.get(a.nodeId, C, hexId(9)))).reason, 'timeout', 'get answered undefined')
    assert.equal((await requestFailure(chains.appRequest(a.nodeId, C, bytes(0xff)))).reason, 'timeout', 'handler threw')
    assert.ok(a.lines.some((l) => l.startsWith('DEBUG AppRequest handler failed')))
  })

  it('a node that is not connected fails at once; gossip to it is skipped', async () => {
    const stranger = newStakingIdentity().nodeId
    const chains = b.network.chains
    assert.equal((await requestFailure(chains.pushQuery(stranger, C, bytes(1), 1))).reason, 'failed')
    assert.equal((await requestFailure(chains.appRequest(stranger, C, bytes(1)))).reason, 'failed')
    assert.doesNotThrow(() => chains.appGossip([stranger], C, bytes(1)))
    assert.equal(chains.isConnected(stranger), false)
  })

  it('Get -> Put leaves the adaptive timeout average alone; PushQuery moves it', async () => {
    const tracker = b.network.requests
    const before = tracker.averageLatencyMs
    await b.network.chains.get(a.nodeId, C, hexId(4))
    assert.equal(tracker.averageLatencyMs, before)
    await b.network.chains.pushQuery(a.nodeId, C, bytes(1), 1)
    assert.notEqual(tracker.averageLatencyMs, before)
  })

  it('runs at most 2 app requests of a chain at once, and consensus requests meanwhile', async () => {
    const { stats, gate, appRequest } = gatedApp()
    const saved = h.handlers.appRequest
    h.handlers.appRequest = appRequest
    try {
      const requests = [1, 2, 3, 4].map((i) => b.network.chains.appRequest(a.nodeId, C, bytes(i)))
      await until('two app handlers running', () => (stats.started === 2 ? true : undefined))
      assert.deepEqual(await b.network.chains.pushQuery(a.nodeId, C, bytes(1), 1), CHITS, 'not behind the app queue')
      assert.equal(stats.started, 2)
      gate.resolve()
      same(await Promise.all(requests), [bytes(1), bytes(2), bytes(3), bytes(4)])
      assert.equal(stats.max, 2)
    } finally {
      h.handlers.appRequest = saved
    }
  })

  it('refuses oversized and undecodable frames on every chain protocol and keeps serving', async () => {
    const probe: Host = await createHost({
      privateKey: await generateKeyPair('Ed25519'),
      networkId: NETWORK_ID,
      host: '127.0.0.1',
      port: 0,
      handlers: { handshake: () => undefined, peers: () => undefined, ping: () => undefined },
    })
    h.calls.length = 0
    h.gossip.length = 0
    try {
      const conn = await probe.dial(multiaddr(`/ip4/127.0.0.1/tcp/${a.network.port}`))
      const frames = [
        Uint8Array.of(0x80, 0x80, 0xc0, 0x01, 1, 2, 3), // length 3 MiB
        Uint8Array.of(5, 0xff, 0xff, 0xff, 0xff, 0xff), // a body that is not protobuf
      ]
      for (const name of ['consensus', 'bootstrap', 'app', 'app-gossip']) {
        for (const frame of frames) {
          const stream = await conn.newStream(`/firn/${NETWORK_ID}/${name}/2`)
          stream.send(frame)
          await stream.close().catch(() => {})
          const chunks: Uint8Array[] = []
          try {
            for await (const chunk of stream) chunks.push(chunk instanceof Uint8Array ? chunk : chunk.subarray())
          } catch {
            // reset by a: the expected answer
          }
          assert.deepEqual(chunks, [], `no answer on ${name}`)
        }
      }
    } finally {
      await probe.stop()
    }
    same(h.calls, [])
    assert.deepEqual(h.gossip, [])
    assert.deepEqual(await b.network.chains.pushQuery(a.nodeId, C, bytes(5), 5), CHITS)
  })

  it('after unregistering, requests for the chain time out', async () => {
    unregister()
    assert.equal((await requestFailure(b.network.chains.getAcceptedFrontier(a.nodeId, C))).reason, 'timeout')
    unregister = a.network.chains.register(C, h.handlers)
    assert.equal(await b.network.chains.getAcceptedFrontier(a.nodeId, C), hexId(5))
  })
})

describe('--consensus-app-concurrency', { timeout: 60_000 }, () => {
  it('sets how many app requests of a chain run at once', async () => {
    const a = await node(newStakingIdentity(), undefined, 3)
    const b = await node(newStakingIdentity(), { ip: `127.0.0.1:${a.network.port}`, id: a.nodeId })
    try {
      await until('b connected to a', () => (b.network.chains.isConnected(a.nodeId) ? true : undefined))
      await until('a connected to b', () => (a.network.chains.isConnected(b.nodeId) ? true : undefined))
      const { stats, gate, appRequest } = gatedApp()
      const { handlers } = recordingHandlers()
      handlers.appRequest = appRequest
      a.network.chains.register(C, handlers)
      const requests = [1, 2, 3, 4, 5].map((i) => b.network.chains.appRequest(a.nodeId, C, bytes(i)))
      await until('three app handlers running', () => (stats.started === 3 ? true : undefined))
      await new Promise((r) => setTimeout(r, 50))
      assert.equal(stats.started, 3, 'the other two wait')
      gate.resolve()
      same(await Promise.all(requests), [bytes(1), bytes(2), bytes(3), bytes(4), bytes(5)])
      assert.equal(stats.max, 3)
    } finally {
      await b.close()
      await a.close()
    }
  })
})
