/**
 * The network actor (actors/peers/network.machine.ts) with its sessions, their IO slots filled by the test: one
 * session per connection from the moment it opens, registered as `peer:<NodeID>` once identified, duplicates and
 * self refused, sessions stopped and unregistered when they end, uptime accounting and what it emits.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Subject } from 'rxjs'
import { createActor, fromEventObservable, fromPromise } from 'xstate'
import {
  type NetworkEmitted,
  type NetworkEvent,
  type NetworkInput,
  networkMachine,
} from '../../../../actors/peers/network.machine.js'
import {
  type HandshakeInfo,
  type PeerSessionEvent,
  peerSessionMachine,
  type SessionIoInput,
} from '../../../../actors/peers/peer-session.machine.js'
import { SystemId } from '../../../../actors/system-ids.js'

const SELF = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg'
const A = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ'
const B = 'NodeID-NFBbbJ4qCmNaCzeW7sxErhvWqvEQMnYcN'

function setup(input: Partial<NetworkInput> = {}) {
  const connections = new Subject<NetworkEvent>()
  const sessionIo = new Map<string, Subject<PeerSessionEvent>>()
  /** what each connection's handshake says */
  const handshakes = new Map<string, HandshakeInfo>()
  const logic = networkMachine.provide({
    actors: {
      connections: fromEventObservable(() => connections),
      peerSession: peerSessionMachine.provide({
        actors: {
          sessionIo: fromEventObservable(({ input }: { input: SessionIoInput }) => {
            const s = new Subject<PeerSessionEvent>()
            sessionIo.set(input.connId, s)
            return s
          }),
          checkHandshake: fromPromise(async ({ input }: { input: { connId: string } }) => {
            const info = handshakes.get(input.connId)
            if (info === undefined) throw new Error('bad certificate')
            return info
          }),
        },
      }),
    },
  })
  const actor = createActor(logic, {
    systemId: SystemId.Network,
    input: { selfNodeId: SELF, sybilProtection: true, validatorIds: [SELF, A, B], startedAt: 1_000, ...input },
  })
  const emitted: NetworkEmitted[] = []
  actor.on('*', (e) => emitted.push(e))
  actor.start()
  const open = (connId: string, remotePeer: string, dialer = remotePeer) =>
    connections.next({
      type: 'network.connectionOpened',
      connId,
      remotePeer,
      dialer,
      remoteAddr: `127.0.0.1:${connId.length}`,
      outbound: false,
      expectedNodeId: null,
    })
  /** the session of `connId` gets a Handshake naming `nodeId`, checked asynchronously */
  const handshake = async (connId: string, nodeId: string) => {
    handshakes.set(connId, { nodeId, version: 'firn/0.1.0', trackedSubnets: [] })
    sessionIo.get(connId)?.next({ type: 'session.handshakeReceived' })
    await new Promise((r) => setImmediate(r))
  }
  const session = (connId: string) => actor.getSnapshot().children[`conn:${connId}`]
  return { actor, connections, sessionIo, emitted, open, handshake, session }
}

describe('network actor', () => {
  it('a session per connection from the moment it opens, registered as peer:<NodeID> once identified', async () => {
    const { actor, open, handshake, session, sessionIo } = setup()
    open('c1', 'p1')
    const s = session('c1')
    assert.ok(s, 'conn:c1 spawned at once')
    assert.deepEqual(s.getSnapshot().value, { handshaking: 'awaitingHandshake' })
    assert.equal(actor.system.get(SystemId.peer(A)), undefined)
    await handshake('c1', A)
    assert.equal(actor.system.get(SystemId.peer(A)), s)
    assert.equal((s as { systemId?: string }).systemId, SystemId.peer(A))
    assert.deepEqual(actor.getSnapshot().context.peers, { [A]: 'c1' })
    assert.deepEqual(s.getSnapshot().value, { handshaking: 'awaitingPeerList' })
    sessionIo.get('c1')?.next({ type: 'session.peerListReceived', at: 2_000 })
    assert.ok(s.getSnapshot().matches('connected'))
    assert.deepEqual(JSON.parse(JSON.stringify(actor.getSnapshot().context)), actor.getSnapshot().context)
    actor.stop()
  })

  it('refuses a second session of a NodeID and a session naming ourselves', async () => {
    const { actor, open, handshake, session } = setup()
    open('c1', 'p1')
    open('c2', 'p2')
    open('c3', 'p3')
    await handshake('c1', A)
    await handshake('c2', A)
    await handshake('c3', SELF)
    assert.equal(session('c2')?.getSnapshot().context.closeReason, 'duplicate connection')
    assert.equal(session('c3')?.getSnapshot().context.closeReason, 'connection to self')
    assert.equal(actor.system.get(SystemId.peer(A)), session('c1'))
    assert.equal(actor.system.get(SystemId.peer(SELF)), undefined)
    actor.stop()
  })

  it('two connections to one libp2p peer: the one the smaller PeerId dialed stays', () => {
    const { actor, open, session } = setup()
    open('c1', 'peerX', 'zzz')
    open('c2', 'peerX', 'aaa')
    assert.equal(session('c1')?.getSnapshot().context.closeReason, 'duplicate connection')
    assert.equal(session('c2')?.getSnapshot().value.toString(), '[object Object]')
    assert.equal(session('c2')?.getSnapshot().context.closeReason, null)
    open('c3', 'peerX', 'zzz')
    assert.equal(session('c3')?.getSnapshot().context.closeReason, 'duplicate connection')
    actor.stop()
  })

  it('connected and ended sessions: uptime, peer events, the child stopped and unregistered', async () => {
    const { actor, open, handshake, session, sessionIo, emitted } = setup()
    actor.send({ type: 'network.startTracking', at: 1_000 })
    open('c1', 'p1')
    await handshake('c1', A)
    const s = session('c1')
    sessionIo.get('c1')?.next({ type: 'session.peerListReceived', at: 2_000 })
    assert.deepEqual(
      emitted.filter((e) => e.type.startsWith('peer.')),
      [{ type: 'peer.connected', nodeId: A, at: 2_000 }],
    )
    assert.equal(actor.getSnapshot().context.uptime.connectedAt[A], 2_000)
    sessionIo.get('c1')?.next({ type: 'session.closed', at: 5_000 })
    assert.notEqual(s?.getSnapshot().status, 'active')
    assert.equal(session('c1'), undefined)
    assert.equal(actor.system.get(SystemId.peer(A)), undefined)
    assert.deepEqual(actor.getSnapshot().context.peers, {})
    assert.deepEqual(actor.getSnapshot().context.conns, {})
    assert.deepEqual(
      emitted.filter((e) => e.type === 'peer.disconnected' || e.type === 'session.ended'),
      [
        { type: 'peer.disconnected', nodeId: A, at: 5_000, reason: 'connection closed' },
        { type: 'session.ended', connId: 'c1', nodeId: A, outbound: false },
      ],
    )
    const persisted = emitted.filter((e) => e.type === 'uptime.persist')
    assert.ok(persisted.length >= 2, 'the validators at start, then A at its disconnect')
    const last = persisted.at(-1) as Extract<NetworkEmitted, { type: 'uptime.persist' }>
    assert.deepEqual(last.records[A], { upDurationMs: 3_000, lastUpdatedMs: 5_000, startTimeMs: 1_000 })
    // the NodeID can connect again
    open('c9', 'p1')
    await handshake('c9', A)
    assert.equal(actor.system.get(SystemId.peer(A)), session('c9'))
    actor.stop()
  })

  it('a closed connection ends its session; shutdown closes them all', async () => {
    const { actor, connections, open, handshake, emitted } = setup()
    open('c1', 'p1')
    open('c2', 'p2')
    await handshake('c1', A)
    connections.next({ type: 'network.connectionClosed', connId: 'c1', at: 3_000 })
    assert.deepEqual(Object.keys(actor.getSnapshot().context.conns), ['c2'])
    actor.send({ type: 'network.shutdown', at: 4_000 })
    assert.deepEqual(actor.getSnapshot().context.conns, {})
    assert.equal(actor.getSnapshot().context.shuttingDown, true)
    open('c3', 'p3')
    assert.deepEqual(actor.getSnapshot().context.conns, {}, 'no new sessions while shutting down')
    assert.deepEqual(
      emitted.filter((e) => e.type === 'session.ended').map((e) => (e as { connId: string }).connId),
      ['c1', 'c2'],
    )
    actor.stop()
  })
})
