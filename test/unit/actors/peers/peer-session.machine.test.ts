import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createActor, initialTransition, SimulatedClock, type SnapshotFrom, transition } from 'xstate'
import {
  CloseReason,
  type HandshakeInfo,
  type PeerSessionEmitted,
  type PeerSessionEvent,
  type PeerSessionInput,
  peerSessionMachine,
} from '../../../../actors/peers/peer-session.machine.js'

type Snapshot = SnapshotFrom<typeof peerSessionMachine>
const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg'
const input: PeerSessionInput = { remoteAddr: '127.0.0.1:40123', outbound: false }
const info: HandshakeInfo = { nodeId: NODE, version: 'firn/1.14.2', trackedSubnets: [], publicIp: '127.0.0.1:9651' }

function step(s: Snapshot, e: PeerSessionEvent): [Snapshot, PeerSessionEmitted[]] {
  const [next, actions] = transition(peerSessionMachine, s, e)
  const out = (actions as { type: string; params?: unknown }[])
    .filter((a) => a.type === 'xstate.emit')
    .map((a) => (a.params as { event: PeerSessionEmitted }).event)
  return [next, out]
}
const initial = (i: PeerSessionInput = input): Snapshot => initialTransition(peerSessionMachine, i)[0]
const handshake = (i: HandshakeInfo = info): PeerSessionEvent => ({
  type: 'session.handshakeReceived',
  ok: true,
  info: i,
})
/** the event a named delay raises when it fires (what a clock would deliver) */
const after = (delay: string, state: string) =>
  ({ type: `xstate.after.${delay}.peerSession.${state}` }) as unknown as PeerSessionEvent
const connected = (): Snapshot => {
  const [s1] = step(initial(), handshake())
  return step(s1, { type: 'session.peerListReceived', at: 1_700_000_000_000 })[0]
}

describe('peer session machine (pure steps)', () => {
  it('starts awaiting the handshake with JSON-safe context and the default timers', () => {
    const s = initial()
    assert.deepEqual(s.value, { handshaking: 'awaitingHandshake' })
    assert.equal(s.context.nodeId, null)
    assert.equal(s.context.pingIntervalMs, 22_500)
    assert.equal(s.context.pongTimeoutMs, 30_000)
    assert.equal(s.context.handshakeTimeoutMs, 15_000)
    assert.equal(s.context.observedUptime, 0)
    assert.deepEqual(JSON.parse(JSON.stringify(s.context)), s.context)
  })

  it('handshake -> awaitingPeerList (answering with our PeerList) -> connected, announced once', () => {
    const [s1, out1] = step(initial(), handshake({ ...info, trackedSubnets: ['sub1'], upgradeTime: 1607144400 }))
    assert.deepEqual(s1.value, { handshaking: 'awaitingPeerList' })
    assert.deepEqual(out1, [{ type: 'session.sendPeerList', nodeId: NODE }])
    assert.equal(s1.context.nodeId, NODE)
    assert.equal(s1.context.version, 'firn/1.14.2')
    assert.deepEqual(s1.context.trackedSubnets, ['sub1'])
    assert.equal(s1.context.upgradeTime, 1607144400)
    const [s2, out2] = step(s1, { type: 'session.peerListReceived', at: 42 })
    assert.ok(s2.matches('connected'))
    assert.equal(s2.context.connectedAt, 42)
    assert.deepEqual(out2, [
      { type: 'session.connected', nodeId: NODE, version: 'firn/1.14.2', trackedSubnets: ['sub1'], connectedAt: 42 },
    ])
    // later messages do not announce again
    const [s3, out3] = step(s2, { type: 'session.messageReceived' })
    assert.ok(s3.matches('connected'))
    assert.deepEqual(out3, [])
    const [, out4] = step(s3, { type: 'session.peerListReceived', at: 43 })
    assert.deepEqual(out4, [])
    assert.deepEqual(JSON.parse(JSON.stringify(s3.context)), s3.context)
  })

  it('a PeerList before the handshake is ignored', () => {
    const [s, out] = step(initial(), { type: 'session.peerListReceived', at: 1 })
    assert.deepEqual(s.value, { handshaking: 'awaitingHandshake' })
    assert.deepEqual(out, [])
  })

  for (const reason of [
    'network id mismatch',
    'clock difference too large',
    'incompatible version',
    'identity signature does not match the authenticated key',
  ]) {
    it(`an invalid handshake closes: ${reason}`, () => {
      const [s, out] = step(initial(), { type: 'session.handshakeReceived', ok: false, reason })
      assert.equal(s.value, 'closing')
      assert.equal(s.context.closeReason, reason)
      assert.deepEqual(out, [{ type: 'session.closing', nodeId: null, reason }])
    })
  }

  it('a handshake naming another NodeID than the one dialed closes', () => {
    const [s, out] = step(initial({ ...input, nodeId: 'NodeID-other', outbound: true }), handshake())
    assert.equal(s.value, 'closing')
    assert.equal(s.context.closeReason, CloseReason.UnexpectedNodeId)
    assert.deepEqual(out, [{ type: 'session.closing', nodeId: 'NodeID-other', reason: 'unexpected node ID' }])
    // the same NodeID is fine
    const [s2] = step(initial({ ...input, nodeId: NODE, outbound: true }), handshake())
    assert.deepEqual(s2.value, { handshaking: 'awaitingPeerList' })
  })

  it("a second handshake closes ('second handshake'), before and after connected", () => {
    const [s1] = step(initial(), handshake())
    const [s2] = step(s1, handshake())
    assert.equal(s2.value, 'closing')
    assert.equal(s2.context.closeReason, 'second handshake')
    const [s3] = step(s1, { type: 'session.handshakeReceived', ok: false, reason: 'network id mismatch' })
    assert.equal(s3.context.closeReason, 'second handshake')
    const [s4, out4] = step(connected(), handshake())
    assert.equal(s4.value, 'closing')
    assert.deepEqual(out4, [{ type: 'session.closing', nodeId: NODE, reason: 'second handshake' }])
  })

  it('a ping stores the observed uptime; over 100 closes', () => {
    const [s1, out1] = step(connected(), { type: 'session.ping', uptime: 87 })
    assert.ok(s1.matches('connected'))
    assert.equal(s1.context.observedUptime, 87)
    assert.deepEqual(out1, [])
    const [s2] = step(s1, { type: 'session.ping', uptime: 100 })
    assert.equal(s2.context.observedUptime, 100)
    const [s3, out3] = step(s2, { type: 'session.ping', uptime: 101 })
    assert.equal(s3.value, 'closing')
    assert.equal(s3.context.closeReason, CloseReason.invalidUptime(101))
    assert.equal(s3.context.observedUptime, 100)
    assert.deepEqual(out3, [{ type: 'session.closing', nodeId: NODE, reason: 'invalid uptime 101 (over 100)' }])
    // also while handshaking
    const [h1] = step(initial(), { type: 'session.ping', uptime: 12 })
    assert.equal(h1.context.observedUptime, 12)
    const [h2] = step(h1, { type: 'session.ping', uptime: 250 })
    assert.equal(h2.value, 'closing')
  })

  it("an unsolicited pong closes ('unexpected pong'); an answered ping's pong does not", () => {
    const [s1, out1] = step(connected(), { type: 'session.pong' })
    assert.equal(s1.value, 'closing')
    assert.equal(s1.context.closeReason, 'unexpected pong')
    assert.deepEqual(out1, [{ type: 'session.closing', nodeId: NODE, reason: 'unexpected pong' }])
    const [h1] = step(initial(), { type: 'session.pong' })
    assert.equal(h1.context.closeReason, 'unexpected pong')
    // with a ping outstanding, one pong is fine and clears it; a second one is unexpected
    const [pinged, outPing] = step(connected(), after('pingInterval', 'connected.pinging.waiting'))
    assert.deepEqual(outPing, [{ type: 'session.sendPing', nodeId: NODE }])
    assert.equal(pinged.context.pingOutstanding, true)
    const [p1] = step(pinged, { type: 'session.pong' })
    assert.ok(p1.matches('connected'))
    assert.equal(p1.context.pingOutstanding, false)
    const [p2] = step(p1, { type: 'session.pong' })
    assert.equal(p2.context.closeReason, 'unexpected pong')
  })

  it('timers as named delays: handshake timeout, ping interval, silence', () => {
    const [h1, outH1] = step(initial(), after('handshakeTimeout', 'handshaking'))
    assert.equal(h1.value, 'closing')
    assert.deepEqual(outH1, [{ type: 'session.closing', nodeId: null, reason: 'handshake timeout' }])
    const [p1, outP1] = step(connected(), after('pingInterval', 'connected.pinging.waiting'))
    assert.ok(p1.matches({ connected: { pinging: 'waiting' } }))
    assert.deepEqual(outP1, [{ type: 'session.sendPing', nodeId: NODE }])
    const [t1, outT1] = step(p1, after('pongTimeout', 'connected.liveness.listening'))
    assert.equal(t1.value, 'closing')
    assert.equal(t1.context.closeReason, CloseReason.PingTimeout)
    assert.deepEqual(outT1, [{ type: 'session.closing', nodeId: NODE, reason: 'ping timeout' }])
    // entering connected arms both timers; an inbound message re-arms the silence timer
    const [, arm] = transition(peerSessionMachine, step(initial(), handshake())[0], {
      type: 'session.peerListReceived',
      at: 0,
    })
    const delays = (actions: { type: string; params?: unknown }[]) =>
      actions
        .filter((a) => a.type === 'xstate.raise')
        .map((a) => (a.params as { delay?: number }).delay)
        .sort()
    assert.deepEqual(delays(arm as never), [22_500, 30_000])
    const [, rearm] = transition(peerSessionMachine, connected(), { type: 'session.messageReceived' })
    assert.deepEqual(delays(rearm as never), [30_000])
  })

  it('benched chains are tracked per chain, sorted', () => {
    let [s] = step(connected(), { type: 'session.benched', chainId: 'X', benched: true })
    ;[s] = step(s, { type: 'session.benched', chainId: 'C', benched: true })
    ;[s] = step(s, { type: 'session.benched', chainId: 'C', benched: true })
    assert.deepEqual(s.context.benchedChains, ['C', 'X'])
    ;[s] = step(s, { type: 'session.benched', chainId: 'X', benched: false })
    assert.deepEqual(s.context.benchedChains, ['C'])
    assert.ok(s.matches('connected'))
    const [h] = step(initial(), { type: 'session.benched', chainId: 'C', benched: true })
    assert.deepEqual(h.context.benchedChains, ['C'])
  })

  it('session.close closes with the given reason; the first reason sticks', () => {
    const [s1, out1] = step(connected(), { type: 'session.close', reason: 'no longer wanted' })
    assert.equal(s1.value, 'closing')
    assert.deepEqual(out1, [{ type: 'session.closing', nodeId: NODE, reason: 'no longer wanted' }])
    const [s2, out2] = step(s1, { type: 'session.close', reason: 'shutdown' })
    assert.equal(s2.context.closeReason, 'no longer wanted')
    assert.deepEqual(out2, [])
    // in closing, nothing but session.closed matters
    for (const e of [
      handshake(),
      { type: 'session.pong' },
      { type: 'session.ping', uptime: 500 },
    ] as PeerSessionEvent[]) {
      const [s3, out3] = step(s1, e)
      assert.equal(s3.value, 'closing')
      assert.deepEqual(out3, [])
    }
    const [h] = step(initial(), { type: 'session.close', reason: 'shutdown' })
    assert.equal(h.context.closeReason, 'shutdown')
  })

  it('closed after connected emits session.disconnected with the reason; the machine is done', () => {
    const [s1] = step(connected(), { type: 'session.pong' })
    const [s2, out2] = step(s1, { type: 'session.closed' })
    assert.equal(s2.value, 'closed')
    assert.equal(s2.status, 'done')
    assert.deepEqual(out2, [{ type: 'session.disconnected', nodeId: NODE, reason: 'unexpected pong' }])
  })

  it('the remote closing a connected session: disconnected with its reason', () => {
    const [s, out] = step(connected(), { type: 'session.closed', reason: 'stream reset' })
    assert.equal(s.value, 'closed')
    assert.equal(s.context.closeReason, 'stream reset')
    assert.deepEqual(out, [{ type: 'session.disconnected', nodeId: NODE, reason: 'stream reset' }])
    const [, out2] = step(connected(), { type: 'session.closed' })
    assert.deepEqual(out2, [{ type: 'session.disconnected', nodeId: NODE, reason: CloseReason.ConnectionClosed }])
  })

  it('closed without ever connecting emits no session.disconnected', () => {
    const [s1] = step(initial(), { type: 'session.handshakeReceived', ok: false, reason: 'network id mismatch' })
    const [s2, out2] = step(s1, { type: 'session.closed' })
    assert.equal(s2.value, 'closed')
    assert.deepEqual(out2, [])
    const [s3] = step(initial(), handshake())
    const [s4, out4] = step(s3, { type: 'session.closed' })
    assert.equal(s4.value, 'closed')
    assert.deepEqual(out4, [])
  })
})

describe('peer session machine (timers on a simulated clock)', () => {
  function start(i: PeerSessionInput = input) {
    const clock = new SimulatedClock()
    const actor = createActor(peerSessionMachine, { input: i, clock })
    const out: PeerSessionEmitted[] = []
    for (const type of [
      'session.sendPeerList',
      'session.connected',
      'session.sendPing',
      'session.closing',
      'session.disconnected',
    ] as const) {
      actor.on(type, (e) => out.push(e))
    }
    actor.start()
    return { clock, actor, out }
  }
  const types = (out: PeerSessionEmitted[]) => out.map((e) => e.type)

  it("no handshake within the handshake timeout closes ('handshake timeout')", () => {
    const { clock, actor, out } = start()
    clock.increment(14_999)
    assert.deepEqual(actor.getSnapshot().value, { handshaking: 'awaitingHandshake' })
    clock.increment(1)
    assert.equal(actor.getSnapshot().value, 'closing')
    assert.deepEqual(out, [{ type: 'session.closing', nodeId: null, reason: 'handshake timeout' }])
    actor.stop()
  })

  it('the handshake timeout also bounds the wait for the PeerList, and stops once connected', () => {
    const a = start()
    a.actor.send(handshake())
    a.clock.increment(15_000)
    assert.equal(a.actor.getSnapshot().context.closeReason, 'handshake timeout')
    a.actor.stop()

    const b = start()
    b.clock.increment(10_000)
    b.actor.send(handshake())
    b.actor.send({ type: 'session.peerListReceived', at: 10_000 })
    b.clock.increment(10_000)
    assert.ok(b.actor.getSnapshot().matches('connected'))
    b.actor.stop()
  })

  it('pings every ping interval while messages keep coming', () => {
    const { clock, actor, out } = start()
    actor.send(handshake())
    actor.send({ type: 'session.peerListReceived', at: 0 })
    for (let i = 1; i <= 4; i++) {
      clock.increment(22_500)
      actor.send({ type: 'session.messageReceived' })
      actor.send({ type: 'session.pong' })
    }
    const s = actor.getSnapshot()
    assert.ok(s.matches('connected'))
    assert.deepEqual(types(out), [
      'session.sendPeerList',
      'session.connected',
      'session.sendPing',
      'session.sendPing',
      'session.sendPing',
      'session.sendPing',
    ])
    assert.deepEqual(out[2], { type: 'session.sendPing', nodeId: NODE })
    assert.equal(s.context.pingOutstanding, false)
    actor.stop()
  })

  it("silence past the pong timeout closes ('ping timeout'); any inbound message resets it", () => {
    const { clock, actor, out } = start()
    actor.send(handshake())
    actor.send({ type: 'session.peerListReceived', at: 0 })
    clock.increment(29_999)
    actor.send({ type: 'session.messageReceived' })
    clock.increment(29_999)
    assert.ok(actor.getSnapshot().matches('connected'))
    clock.increment(1)
    const s = actor.getSnapshot()
    assert.equal(s.value, 'closing')
    assert.equal(s.context.closeReason, 'ping timeout')
    assert.deepEqual(out.at(-1), { type: 'session.closing', nodeId: NODE, reason: 'ping timeout' })
    // the pings that went out meanwhile
    assert.equal(types(out).filter((t) => t === 'session.sendPing').length, 2)
    actor.send({ type: 'session.closed' })
    assert.equal(actor.getSnapshot().status, 'done')
    assert.deepEqual(out.at(-1), { type: 'session.disconnected', nodeId: NODE, reason: 'ping timeout' })
  })

  it('a pong answered late after two pings leaves one unexpected pong', () => {
    const { clock, actor } = start()
    actor.send(handshake())
    actor.send({ type: 'session.peerListReceived', at: 0 })
    clock.increment(22_500)
    actor.send({ type: 'session.messageReceived' })
    clock.increment(22_500)
    actor.send({ type: 'session.messageReceived' })
    actor.send({ type: 'session.pong' })
    assert.ok(actor.getSnapshot().matches('connected'))
    actor.send({ type: 'session.pong' })
    assert.equal(actor.getSnapshot().context.closeReason, 'unexpected pong')
    actor.stop()
  })

  it('custom timer lengths from the input', () => {
    const { clock, actor, out } = start({
      ...input,
      pingIntervalMs: 1_000,
      pongTimeoutMs: 2_500,
      handshakeTimeoutMs: 500,
    })
    actor.send(handshake())
    actor.send({ type: 'session.peerListReceived', at: 0 })
    // a simulated clock starts timers set while firing at the new now: step one interval at a time
    clock.increment(1_000)
    clock.increment(1_000)
    assert.ok(actor.getSnapshot().matches('connected'))
    clock.increment(500)
    assert.equal(actor.getSnapshot().context.closeReason, 'ping timeout')
    assert.equal(types(out).filter((t) => t === 'session.sendPing').length, 2)
    actor.stop()
  })
})
