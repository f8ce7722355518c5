/** The network actor (actors/peers/network.machine.ts): one `peer:<NodeID>` session per open, stopped on close. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createActor } from 'xstate'
import { networkMachine } from '../../../../actors/peers/network.machine.js'
import { SystemId } from '../../../../actors/system-ids.js'

const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg'
const B = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ'
const input = { remoteAddr: '127.0.0.1:9651', outbound: true }

describe('network actor', () => {
  it('spawns a session per NodeID, ignores a second open, stops it on close, reopens later', () => {
    const actor = createActor(networkMachine, { systemId: SystemId.Network }).start()
    actor.send({ type: 'network.openSession', nodeId: A, input })
    actor.send({ type: 'network.openSession', nodeId: B, input: { ...input, outbound: false } })
    actor.send({ type: 'network.openSession', nodeId: A, input })
    assert.deepEqual(actor.getSnapshot().context.nodeIds, [A, B])
    const a = actor.system.get(SystemId.peer(A))
    assert.ok(a)
    assert.equal(a.getSnapshot().context.nodeId, A)
    assert.equal(a.getSnapshot().context.outbound, true)
    assert.equal(actor.system.get(SystemId.peer(B))?.getSnapshot().context.outbound, false)
    assert.ok(actor.getSnapshot().children[SystemId.peer(A)])

    actor.send({ type: 'network.closeSession', nodeId: A })
    assert.deepEqual(actor.getSnapshot().context.nodeIds, [B])
    assert.equal(actor.system.get(SystemId.peer(A)), undefined)
    assert.equal(a.getSnapshot().status, 'stopped')
    actor.send({ type: 'network.closeSession', nodeId: A })
    assert.deepEqual(actor.getSnapshot().context.nodeIds, [B])

    actor.send({ type: 'network.openSession', nodeId: A, input })
    assert.deepEqual(actor.getSnapshot().context.nodeIds, [B, A])
    assert.notEqual(actor.system.get(SystemId.peer(A)), a)
    assert.equal(actor.system.get(SystemId.peer(A))?.getSnapshot().status, 'active')
    assert.doesNotThrow(() => JSON.stringify(actor.getSnapshot().context))
    actor.stop()
  })

  it('a session that ended can be replaced', () => {
    const actor = createActor(networkMachine, { systemId: SystemId.Network }).start()
    actor.send({ type: 'network.openSession', nodeId: A, input })
    const a = actor.system.get(SystemId.peer(A))
    a?.send({ type: 'session.closed', reason: 'connection closed' })
    assert.equal(a?.getSnapshot().status, 'done')
    actor.send({ type: 'network.closeSession', nodeId: A })
    actor.send({ type: 'network.openSession', nodeId: A, input })
    assert.equal(actor.system.get(SystemId.peer(A))?.getSnapshot().status, 'active')
    actor.stop()
  })
})
