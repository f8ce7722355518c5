/**
 * The peer session machine: pure steps with transition() (what it emits and tells the network actor), then its
 * timers on a simulated clock with its IO slots filled by the test.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Subject } from 'rxjs'
import {
  createActor,
  fromEventObservable,
  fromPromise,
  initialTransition,
  SimulatedClock,
  type SnapshotFrom,
  transition,
} from 'xstate'
import {
  CloseReason,
  type HandshakeInfo,
  type PeerSessionEmitted,
  type PeerSessionEvent,
  type PeerSessionInput,
  peerSessionMachine,
  type SessionToNetwork,
} from '../../../../actors/peers/peer-session.machine.js'

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg'
const input: PeerSessionInput = { connId: 'c1', remoteAddr: '127.0.0.1:40123', outbound: false }
const info: HandshakeInfo = { nodeId: NODE, version: 'firn/1.14.2', trackedSubnets: [], publicIp: '127.0.0.1:9651' }

/** the machine with `notifyNetwork` as a recordable action (sendParent needs a parent) */
const machine = peerSessionMachine.provide({ actions: { notifyNetwork: () => {} } })
type Snapshot = SnapshotFrom<typeof machine>
type Out = PeerSessionEmitted | SessionToNetwork

function outputsOf(actions: unknown[]): Out[] {
  const out: Out[] = []
  for (const a of actions as { type: string; params?: unknown }[]) {
    if (a.type === 'xstate.emit') out.push((a.params as { event: PeerSessionEmitted }).event)
    if (a.type === 'notifyNetwork') out.push(a.params as SessionToNetwork)
  }
  return out
}
function step(s: Snapshot, e: PeerSessionEvent | { type: string; [k: string]: unknown }): [Snapshot, Out[]] {
  const [next, actions] = transition(machine, s, e as PeerSessionEvent)
  return [next, outputsOf(actions)]
}
const initial = (i: PeerSessionInput = input): Snapshot => initialTransition(machine, i)[0]
const checked = (i: HandshakeInfo = info) => ({ type: 'xstate.done.actor.checkHandshake', output: i })
const failedCheck = (reason: string) => ({ type: 'xstate.error.actor.checkHandshake', error: new Error(reason) })
/** the event a named delay raises when it fires (what a clock would deliver) */
const after = (delay: string, state: string) => ({ type: `xstate.after.${delay}.peerSession.${state}` })
const steps = (s: Snapshot, ...events: Parameters<typeof step>[1][]): [Snapshot, Out[]] => {
  let out: Out[] = []
  for (const e of events) {
    const [next, o] = step(s, e)
    s = next
    out = [...out, ...o]
  }
  return [s, out]
}
const identified = (i: HandshakeInfo = info): Snapshot =>
  steps(initial(), { type: 'session.handshakeReceived' }, checked(i), { type: 'session.identified' })[0]
const connected = (): Snapshot => step(identified(), { type: 'session.peerListReceived', at: 1_700_000_000_000 })[0]

describe('peer session machine (pure steps)', () => {
  it('starts handshaking: JSON-safe context, the default timers, our Handshake goes out', () => {
    const [s, actions] = initialTransition(machine, input)
    assert.deepEqual(s.value, { handshaking: 'awaitingHandshake' })
    assert.equal(s.context.nodeId, null)
    assert.equal(s.context.connId, 'c1')
    assert.equal(s.context.pingIntervalMs, 22_500)
    assert.equal(s.context.pongTimeoutMs, 30_000)
    assert.equal(s.context.handshakeTimeoutMs, 15_000)
    assert.deepEqual(JSON.parse(JSON.stringify(s.context)), s.context)
    assert.deepEqual(outputsOf(actions), [{ type: 'session.sendHandshake', connId: 'c1' }])
  })

  it('handshake -> checked -> identified by the network -> our PeerList -> their PeerList -> connected', () => {
    const [s1, out1] = step(initial(), { type: 'session.handshakeReceived' })
    assert.deepEqual(s1.value, { handshaking: 'checking' })
    assert.deepEqual(out1, [])
    const [s2, out2] = step(s1, checked({ ...info, trackedSubnets: ['sub1'], upgradeTime: 1607144400 }))
    assert.deepEqual(s2.value, { handshaking: 'identifying' })
    assert.deepEqual(out2, [{ type: 'network.sessionIdentified', connId: 'c1', nodeId: NODE }])
    assert.equal(s2.context.nodeId, NODE)
    assert.equal(s2.context.version, 'firn/1.14.2')
    assert.deepEqual(s2.context.trackedSubnets, ['sub1'])
    assert.equal(s2.context.upgradeTime, 1607144400)
    const [s3, out3] = step(s2, { type: 'session.identified' })
    assert.deepEqual(s3.value, { handshaking: 'awaitingPeerList' })
    assert.deepEqual(out3, [{ type: 'session.sendPeerList', connId: 'c1', nodeId: NODE }])
    const [s4, out4] = step(s3, { type: 'session.peerListReceived', at: 42 })
    assert.ok(s4.matches('connected'))
    assert.equal(s4.context.connectedAt, 42)
    assert.deepEqual(out4, [{ type: 'network.peerConnected', connId: 'c1', nodeId: NODE, at: 42 }])
    // later messages announce nothing
    const [s5, out5] = step(s4, { type: 'session.traffic', direction: 'in', at: 50 })
    const [, out6] = step(s5, { type: 'session.peerListReceived', at: 43 })
    assert.deepEqual([...out5, ...out6], [])
    assert.deepEqual(JSON.parse(JSON.stringify(s5.context)), s5.context)
  })

  it('their PeerList may come first: remembered, and connected as soon as the network identifies us', () => {
    const [s1, out1] = step(initial(), { type: 'session.peerListReceived', at: 7 })
    assert.deepEqual(s1.value, { handshaking: 'awaitingHandshake' })
    assert.deepEqual(out1, [])
    const [s2, out2] = steps(s1, { type: 'session.handshakeReceived' }, checked(), { type: 'session.identified' })
    assert.ok(s2.matches('connected'))
    assert.equal(s2.context.connectedAt, 7)
    assert.deepEqual(
      out2.map((o) => o.type),
      ['network.sessionIdentified', 'session.sendPeerList', 'network.peerConnected'],
    )
  })

  it('a failed check closes with its reason; the NodeID stays unknown', () => {
    const [s, out] = steps(initial(), { type: 'session.handshakeReceived' }, failedCheck('clock skew of 100 s'))
    assert.equal(s.value, 'closing')
    assert.deepEqual(out, [{ type: 'session.closing', connId: 'c1', nodeId: null, reason: 'clock skew of 100 s' }])
  })

  it('a handshake naming another NodeID than the one dialed closes', () => {
    const [s, out] = steps(
      initial({ ...input, outbound: true, expectedNodeId: 'NodeID-other' }),
      { type: 'session.handshakeReceived' },
      checked(),
    )
    assert.equal(s.value, 'closing')
    assert.deepEqual(out, [
      { type: 'session.closing', connId: 'c1', nodeId: NODE, reason: CloseReason.UnexpectedNodeId },
    ])
    const [ok] = steps(initial({ ...input, expectedNodeId: NODE }), { type: 'session.handshakeReceived' }, checked())
    assert.deepEqual(ok.value, { handshaking: 'identifying' })
  })

  it("a second handshake closes ('second handshake') while checking, identifying, awaiting and connected", () => {
    const checking = step(initial(), { type: 'session.handshakeReceived' })[0]
    const identifying = step(checking, checked())[0]
    for (const s of [checking, identifying, identified(), connected()]) {
      const [next, out] = step(s, { type: 'session.handshakeReceived' })
      assert.equal(next.value, 'closing')
      assert.equal((out[0] as { reason: string }).reason, CloseReason.SecondHandshake)
    }
  })

  it('the network closes a duplicate or ourselves with its reason', () => {
    const identifying = steps(initial(), { type: 'session.handshakeReceived' }, checked())[0]
    const [s, out] = step(identifying, { type: 'session.close', reason: CloseReason.Duplicate })
    assert.equal(s.value, 'closing')
    assert.deepEqual(out, [{ type: 'session.closing', connId: 'c1', nodeId: NODE, reason: 'duplicate connection' }])
  })

  it('a ping stores the observed uptime; over 100 closes', () => {
    const [s1] = step(connected(), { type: 'session.ping', uptime: 87 })
    assert.equal(s1.context.observedUptime, 87)
    assert.ok(s1.matches('connected'))
    const [s2] = step(initial(), { type: 'session.ping', uptime: 50 })
    assert.equal(s2.context.observedUptime, 50)
    const [s3, out3] = step(connected(), { type: 'session.ping', uptime: 101 })
    assert.equal(s3.value, 'closing')
    assert.deepEqual(out3, [
      { type: 'session.closing', connId: 'c1', nodeId: NODE, reason: 'invalid uptime 101 (over 100)' },
    ])
  })

  it("an unsolicited pong closes ('unexpected pong'); an answered ping's pong does not", () => {
    const [h] = step(initial(), { type: 'session.pong' })
    assert.equal(h.context.closeReason, CloseReason.UnexpectedPong)
    const [c] = step(connected(), { type: 'session.pong' })
    assert.equal(c.context.closeReason, CloseReason.UnexpectedPong)
    const [p1, out1] = step(connected(), after('pingInterval', 'connected.pinging.waiting'))
    assert.deepEqual(out1, [{ type: 'session.sendPing', connId: 'c1', nodeId: NODE }])
    assert.equal(p1.context.pingOutstanding, true)
    const [p2] = step(p1, { type: 'session.pong' })
    assert.ok(p2.matches('connected'))
    assert.equal(p2.context.pingOutstanding, false)
    const [p3] = step(p2, { type: 'session.pong' })
    assert.equal(p3.context.closeReason, 'unexpected pong')
  })

  it('timers as named delays: handshake timeout, ping interval, silence; inbound traffic re-arms the silence', () => {
    const [h1, outH1] = step(initial(), after('handshakeTimeout', 'handshaking'))
    assert.equal(h1.value, 'closing')
    assert.deepEqual(outH1, [{ type: 'session.closing', connId: 'c1', nodeId: null, reason: 'handshake timeout' }])
    const [t1, outT1] = step(connected(), after('pongTimeout', 'connected.liveness.listening'))
    assert.equal(t1.value, 'closing')
    assert.deepEqual(outT1, [{ type: 'session.closing', connId: 'c1', nodeId: NODE, reason: 'ping timeout' }])
    const delays = (actions: unknown[]) =>
      (actions as { type: string; params?: unknown }[])
        .filter((a) => a.type === 'xstate.raise')
        .map((a) => (a.params as { delay?: number }).delay)
        .sort()
    const [, arm] = transition(machine, identified(), { type: 'session.peerListReceived', at: 0 })
    assert.deepEqual(delays(arm), [22_500, 30_000])
    const [s, rearm] = transition(machine, connected(), { type: 'session.traffic', direction: 'in', at: 5 })
    assert.deepEqual(delays(rearm), [30_000])
    assert.equal(s.context.lastReceivedAt, 5)
    const [o, none] = transition(machine, connected(), { type: 'session.traffic', direction: 'out', at: 6 })
    assert.deepEqual(delays(none), [])
    assert.equal(o.context.lastSentAt, 6)
  })

  it('benched chains are tracked per chain, sorted', () => {
    const [s] = steps(
      connected(),
      { type: 'session.benched', chainId: 'X', benched: true },
      { type: 'session.benched', chainId: 'C', benched: true },
      { type: 'session.benched', chainId: 'C', benched: true },
    )
    assert.deepEqual(s.context.benchedChains, ['C', 'X'])
    const [t] = step(s, { type: 'session.benched', chainId: 'X', benched: false })
    assert.deepEqual(t.context.benchedChains, ['C'])
    assert.ok(t.matches('connected'))
  })

  it('session.close closes with the given reason; the first reason sticks; closing ignores the rest', () => {
    const [s1, out1] = step(connected(), { type: 'session.close', reason: 'bad known peers filter' })
    assert.equal(s1.value, 'closing')
    assert.deepEqual(out1, [{ type: 'session.closing', connId: 'c1', nodeId: NODE, reason: 'bad known peers filter' }])
    for (const e of [
      { type: 'session.close', reason: 'shutdown' },
      { type: 'session.handshakeReceived' },
      { type: 'session.pong' },
      { type: 'session.ping', uptime: 500 },
    ] as PeerSessionEvent[]) {
      const [s2, out2] = step(s1, e)
      assert.equal(s2.value, 'closing')
      assert.equal(s2.context.closeReason, 'bad known peers filter')
      assert.deepEqual(out2, [])
    }
  })

  it('closed: the network hears sessionEnded, with whether it was connected, the reason and the time', () => {
    const [s1] = step(connected(), { type: 'session.pong' })
    const [s2, out2] = step(s1, { type: 'session.closed', at: 99 })
    assert.equal(s2.value, 'closed')
    assert.equal(s2.status, 'done')
    assert.deepEqual(out2, [
      {
        type: 'network.sessionEnded',
        connId: 'c1',
        nodeId: NODE,
        wasConnected: true,
        reason: 'unexpected pong',
        at: 99,
      },
    ])
    const [, out3] = step(connected(), { type: 'session.closed', at: 5 })
    assert.equal((out3[0] as { reason: string }).reason, CloseReason.ConnectionClosed)
    const [, out4] = step(initial(), { type: 'session.closed', reason: 'shutdown', at: 1 })
    assert.deepEqual(out4, [
      { type: 'network.sessionEnded', connId: 'c1', nodeId: null, wasConnected: false, reason: 'shutdown', at: 1 },
    ])
  })
})

describe('peer session machine (timers on a simulated clock)', () => {
  function start(i: PeerSessionInput = input, check: () => Promise<HandshakeInfo> = async () => info) {
    const clock = new SimulatedClock()
    const io = new Subject<PeerSessionEvent>()
    const told: SessionToNetwork[] = []
    const logic = peerSessionMachine.provide({
      actors: {
        sessionIo: fromEventObservable(() => io),
        checkHandshake: fromPromise(check),
      },
      actions: { notifyNetwork: (_, e) => told.push(e) },
    })
    const actor = createActor(logic, { input: i, clock })
    const out: PeerSessionEmitted[] = []
    actor.on('*', (e) => out.push(e))
    actor.start()
    /** the handshake checked and the NodeID accepted by the network */
    const handshake = async () => {
      io.next({ type: 'session.handshakeReceived' })
      await new Promise((r) => setImmediate(r))
      actor.send({ type: 'session.identified' })
    }
    return { clock, actor, out, told, io, handshake }
  }
  const types = (out: PeerSessionEmitted[]) => out.map((e) => e.type)

  it("no handshake within the handshake timeout closes ('handshake timeout')", () => {
    const { clock, actor, out } = start()
    clock.increment(14_999)
    assert.deepEqual(actor.getSnapshot().value, { handshaking: 'awaitingHandshake' })
    clock.increment(1)
    assert.equal(actor.getSnapshot().value, 'closing')
    assert.deepEqual(out.at(-1), { type: 'session.closing', connId: 'c1', nodeId: null, reason: 'handshake timeout' })
    actor.stop()
  })

  it('the handshake timeout also bounds the wait for the PeerList, and stops once connected', async () => {
    const a = start()
    await a.handshake()
    a.clock.increment(15_000)
    assert.equal(a.actor.getSnapshot().context.closeReason, 'handshake timeout')
    a.actor.stop()

    const b = start()
    b.clock.increment(10_000)
    await b.handshake()
    b.io.next({ type: 'session.peerListReceived', at: 10_000 })
    b.clock.increment(10_000)
    assert.ok(b.actor.getSnapshot().matches('connected'))
    assert.deepEqual(b.told.at(-1), { type: 'network.peerConnected', connId: 'c1', nodeId: NODE, at: 10_000 })
    b.actor.stop()
  })

  it('pings every ping interval while traffic keeps coming', async () => {
    const { clock, actor, out, io, handshake } = start()
    await handshake()
    io.next({ type: 'session.peerListReceived', at: 0 })
    for (let i = 1; i <= 4; i++) {
      clock.increment(22_500)
      io.next({ type: 'session.traffic', direction: 'in', at: i })
      io.next({ type: 'session.pong' })
    }
    const s = actor.getSnapshot()
    assert.ok(s.matches('connected'))
    assert.deepEqual(types(out), [
      'session.sendHandshake',
      'session.sendPeerList',
      'session.sendPing',
      'session.sendPing',
      'session.sendPing',
      'session.sendPing',
    ])
    assert.equal(s.context.pingOutstanding, false)
    actor.stop()
  })

  it("silence past the pong timeout closes ('ping timeout'); inbound traffic resets it", async () => {
    const { clock, actor, out, io, told, handshake } = start()
    await handshake()
    io.next({ type: 'session.peerListReceived', at: 0 })
    clock.increment(29_999)
    io.next({ type: 'session.traffic', direction: 'in', at: 1 })
    clock.increment(29_999)
    assert.ok(actor.getSnapshot().matches('connected'))
    clock.increment(1)
    assert.equal(actor.getSnapshot().value, 'closing')
    assert.deepEqual(out.at(-1), { type: 'session.closing', connId: 'c1', nodeId: NODE, reason: 'ping timeout' })
    io.next({ type: 'session.closed', at: 60_000 })
    assert.equal(actor.getSnapshot().status, 'done')
    assert.deepEqual(told.at(-1), {
      type: 'network.sessionEnded',
      connId: 'c1',
      nodeId: NODE,
      wasConnected: true,
      reason: 'ping timeout',
      at: 60_000,
    })
  })

  it('a failing check closes with its reason', async () => {
    const { actor, out, io } = start(input, async () => {
      throw new Error('incompatible version firn/0.0.1')
    })
    io.next({ type: 'session.handshakeReceived' })
    await new Promise((r) => setImmediate(r))
    assert.equal(actor.getSnapshot().value, 'closing')
    assert.deepEqual(out.at(-1), {
      type: 'session.closing',
      connId: 'c1',
      nodeId: null,
      reason: 'incompatible version firn/0.0.1',
    })
    actor.stop()
  })

  it('custom timer lengths from the input', async () => {
    const { clock, actor, out, io, handshake } = start({
      ...input,
      pingIntervalMs: 1_000,
      pongTimeoutMs: 2_500,
      handshakeTimeoutMs: 500,
    })
    await handshake()
    io.next({ type: 'session.peerListReceived', at: 0 })
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
