/** registerSystemId: an actor spawned without a systemId is found under one afterwards and unregistered on stop. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createActor, createMachine, enqueueActions, setup } from 'xstate'
import { registerSystemId } from '../../../actors/system-register.js'

const parent = setup({
  actors: { child: createMachine({ id: 'child' }) },
  types: { events: {} as { type: 'spawn'; id: string } | { type: 'stop'; id: string } },
}).createMachine({
  id: 'parent',
  on: {
    spawn: { actions: enqueueActions(({ event, enqueue }) => enqueue.spawnChild('child', { id: event.id })) },
    stop: { actions: enqueueActions(({ event, enqueue }) => enqueue.stopChild(event.id)) },
  },
})

describe('registerSystemId', () => {
  it('registers after spawn; stopping unregisters; a taken id throws', () => {
    const actor = createActor(parent).start()
    actor.send({ type: 'spawn', id: 'a' })
    actor.send({ type: 'spawn', id: 'b' })
    const { a, b } = actor.getSnapshot().children
    assert.ok(a && b)
    registerSystemId(actor.system, 'peer:A', a)
    assert.equal(actor.system.get('peer:A'), a)
    assert.equal((a as { systemId?: string }).systemId, 'peer:A')
    assert.throws(() => registerSystemId(actor.system, 'peer:A', b), /already exists/)
    actor.send({ type: 'stop', id: 'a' })
    assert.equal(actor.system.get('peer:A'), undefined)
    registerSystemId(actor.system, 'peer:A', b)
    assert.equal(actor.system.get('peer:A'), b)
    actor.stop()
  })
})
