/**
 * The session bridge's per-message bookkeeping: liveness (`session.messageReceived`) at most once per
 * LIVENESS_STAMP_MS per session, traffic stamps at most once per TRAFFIC_STAMP_MS per peer and direction, on the
 * network's clock. A real PeerSession actor would only add its timers; the bridge's own decisions are what is tested.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Subject } from 'rxjs'
import type { PeerSessionEvent } from '../../../../actors/peers/peer-session.machine.js'
import type { NetworkCore, PeerEvent, Session } from '../../../../src/network/core.js'
import { LIVENESS_STAMP_MS, Sessions, TRAFFIC_STAMP_MS } from '../../../../src/network/sessions.js'

function setup() {
  let now = 1_000_000
  const peerEvents$ = new Subject<PeerEvent>()
  const stamps: PeerEvent[] = []
  peerEvents$.subscribe((e) => stamps.push(e))
  const core = { now: () => now, peerEvents$ } as unknown as NetworkCore
  const sent: PeerSessionEvent[] = []
  const session = {
    nodeId: 'NodeID-A',
    done: false,
    ref: { getSnapshot: () => ({ status: 'active' }), send: (e: PeerSessionEvent) => sent.push(e) },
  } as unknown as Session
  return {
    bridge: new Sessions(core),
    session,
    sent,
    stamps,
    advance: (ms: number) => {
      now += ms
    },
  }
}

describe('session bridge bookkeeping', () => {
  it('tells a session about received messages at most once per LIVENESS_STAMP_MS', () => {
    const { bridge, session, sent, advance } = setup()
    const received = { type: 'session.messageReceived' } as const
    bridge.send(session, received)
    bridge.send(session, received)
    advance(LIVENESS_STAMP_MS - 1)
    bridge.send(session, received)
    assert.equal(sent.length, 1)
    advance(1)
    bridge.send(session, received)
    assert.equal(sent.length, 2)
    // other events are never held back
    bridge.send(session, { type: 'session.pong' })
    bridge.send(session, { type: 'session.pong' })
    assert.deepEqual(
      sent.map((e) => e.type),
      ['session.messageReceived', 'session.messageReceived', 'session.pong', 'session.pong'],
    )
  })

  it('stamps traffic at most once per TRAFFIC_STAMP_MS per direction', () => {
    const { bridge, stamps, advance } = setup()
    bridge.touch('NodeID-A', { sent: true, received: true })
    bridge.touch('NodeID-A', { sent: true })
    bridge.touch('NodeID-B', { received: true })
    advance(TRAFFIC_STAMP_MS - 1)
    bridge.touch('NodeID-A', { received: true })
    advance(1)
    bridge.touch('NodeID-A', { received: true })
    assert.deepEqual(
      stamps.map((e) => (e.type === 'traffic' ? `${e.nodeId} ${e.direction} +${e.at - 1_000_000}` : e.type)),
      ['NodeID-A out +0', 'NodeID-A in +0', 'NodeID-B in +0', `NodeID-A in +${TRAFFIC_STAMP_MS}`],
    )
  })
})
