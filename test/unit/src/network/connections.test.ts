/**
 * Connections' per-connection inbox: events told before the session subscribes are held (bounded) and delivered in
 * order; traffic is told to the session at most once per TRAFFIC_STAMP_MS per direction, on the network's clock.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Connection } from '@libp2p/interface'
import type { PeerSessionEvent } from '../../../../actors/peers/peer-session.machine.js'
import { Connections, TRAFFIC_STAMP_MS } from '../../../../src/network/connections.js'

const conn = (id: string) => ({ id }) as unknown as Connection

function setup() {
  let now = 1_000_000
  const connections = new Connections(() => now)
  return {
    connections,
    advance: (ms: number) => {
      now += ms
    },
  }
}

describe('Connections', () => {
  it('holds events until the session subscribes, then delivers them in order; completes on remove', () => {
    const { connections } = setup()
    const io = connections.open(conn('c1'))
    assert.equal(connections.open(conn('c1')), io, 'open is idempotent')
    connections.tell('c1', { type: 'session.handshakeReceived' })
    connections.tell('c1', { type: 'session.pong' })
    const seen: string[] = []
    let completed = false
    io.inbound.subscribe({ next: (e) => seen.push(e.type), complete: () => (completed = true) })
    connections.tell('c1', { type: 'session.identified' })
    assert.deepEqual(seen, ['session.handshakeReceived', 'session.pong', 'session.identified'])
    connections.remove('c1')
    assert.equal(completed, true)
    assert.equal(connections.get('c1'), undefined)
    connections.tell('c1', { type: 'session.pong' })
    assert.equal(seen.length, 3, 'nothing after the connection is gone')
  })

  it('holds at most 64 events for a session that never subscribes', () => {
    const { connections } = setup()
    const io = connections.open(conn('c1'))
    for (let i = 0; i < 100; i++) connections.tell('c1', { type: 'session.pong' })
    const seen: PeerSessionEvent[] = []
    io.inbound.subscribe((e) => seen.push(e))
    assert.equal(seen.length, 64)
  })

  it('tells traffic at most once per TRAFFIC_STAMP_MS per direction', () => {
    const { connections, advance } = setup()
    const io = connections.open(conn('c1'))
    const seen: string[] = []
    io.inbound.subscribe((e) => {
      if (e.type === 'session.traffic') seen.push(`${e.direction} +${e.at - 1_000_000}`)
    })
    connections.touchConnection(io, 'out')
    connections.touchConnection(io, 'in')
    connections.touchConnection(io, 'out')
    advance(TRAFFIC_STAMP_MS - 1)
    connections.touchConnection(io, 'in')
    advance(1)
    connections.touchConnection(io, 'in')
    assert.deepEqual(seen, ['out +0', 'in +0', `in +${TRAFFIC_STAMP_MS}`])
  })
})
