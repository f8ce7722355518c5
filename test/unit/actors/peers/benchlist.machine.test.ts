import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { assign, createActor, enqueueActions, initialTransition, type SnapshotFrom, setup, transition } from 'xstate'
import {
  type BenchlistEmitted,
  type BenchlistMachineEvent,
  benchlistMachine,
  isBenched,
  type SessionBenched,
} from '../../../../actors/peers/benchlist.machine.js'
import { SystemId } from '../../../../actors/system-ids.js'

type Snapshot = SnapshotFrom<typeof benchlistMachine>
const CHAIN = '2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC'
const validators = Array.from({ length: 20 }, (_, i) => ({ nodeId: `N${i}`, weight: 100 }))

function step(s: Snapshot, e: BenchlistMachineEvent): [Snapshot, BenchlistEmitted[]] {
  const [next, actions] = transition(benchlistMachine, s, e)
  const emitted = (actions as { type: string; params?: unknown }[])
    .filter((a) => a.type === 'xstate.emit')
    .map((a) => (a.params as { event: BenchlistEmitted }).event)
  return [next, emitted]
}

describe('benchlist machine', () => {
  it('starts tracking with the validator set and JSON-safe context', () => {
    const [s] = initialTransition(benchlistMachine, { chainId: CHAIN, validators })
    assert.equal(s.value, 'tracking')
    assert.equal(s.context.bench.totalWeight, 2_000)
    assert.deepEqual(JSON.parse(JSON.stringify(s.context)), s.context)
  })

  it('emits bench.changed on bench and unbench, and isBenched follows', () => {
    let [s] = initialTransition(benchlistMachine, { chainId: CHAIN, validators })
    let out: BenchlistEmitted[]
    ;[s, out] = step(s, { type: 'bench.failure', nodeId: 'N3', weight: 100, now: 1_000 })
    assert.deepEqual(out, [])
    ;[s, out] = step(s, { type: 'bench.failure', nodeId: 'N3', weight: 100, now: 1_500 })
    assert.deepEqual(out, [{ type: 'bench.changed', chainId: CHAIN, nodeId: 'N3', benched: true }])
    assert.equal(isBenched(s, 'N3'), true)
    assert.equal(isBenched(s, 'N4'), false)
    assert.equal(isBenched(s, 'N3', 1_500 + 5 * 60_000), false)
    ;[s, out] = step(s, { type: 'bench.success', nodeId: 'N4', weight: 100, now: 2_000 })
    assert.deepEqual(out, [])
    ;[s, out] = step(s, { type: 'bench.tick', now: 1_500 + 5 * 60_000 })
    assert.deepEqual(out, [{ type: 'bench.changed', chainId: CHAIN, nodeId: 'N3', benched: false }])
    assert.equal(isBenched(s, 'N3'), false)
    assert.deepEqual(JSON.parse(JSON.stringify(s.context)), s.context)
  })

  it('a validator set change unbenches nodes that left', () => {
    let [s] = initialTransition(benchlistMachine, { chainId: CHAIN, validators })
    ;[s] = step(s, { type: 'bench.failure', nodeId: 'N3', weight: 100, now: 0 })
    ;[s] = step(s, { type: 'bench.failure', nodeId: 'N3', weight: 100, now: 0 })
    const [s2, out] = step(s, { type: 'bench.validatorsChanged', validators: validators.slice(4), now: 0 })
    assert.deepEqual(out, [{ type: 'bench.changed', chainId: CHAIN, nodeId: 'N3', benched: false }])
    assert.equal(s2.context.bench.totalWeight, 1_600)
  })

  it('delivers bench.changed to listeners of a running actor', () => {
    const actor = createActor(benchlistMachine, { input: { chainId: CHAIN, validators } })
    const seen: BenchlistEmitted[] = []
    actor.on('bench.changed', (e) => seen.push(e))
    actor.start()
    actor.send({ type: 'bench.failure', nodeId: 'N0', weight: 100, now: 0 })
    actor.send({ type: 'bench.failure', nodeId: 'N0', weight: 100, now: 0 })
    assert.deepEqual(seen, [{ type: 'bench.changed', chainId: CHAIN, nodeId: 'N0', benched: true }])
    assert.equal(isBenched(actor.getSnapshot(), 'N0'), true)
    actor.stop()
  })

  it('tells the session of a benched peer itself (session.benched), and skips a peer without a session', () => {
    // a session that records what it is told
    const session = setup({
      types: { context: {} as { told: SessionBenched[] }, events: {} as SessionBenched },
    }).createMachine({
      context: { told: [] },
      on: { 'session.benched': { actions: assign({ told: ({ context, event }) => [...context.told, event] }) } },
    })
    const root = setup({ actors: { session, benchlist: benchlistMachine } }).createMachine({
      entry: enqueueActions(({ enqueue }) => {
        enqueue.spawnChild('session', { id: 's', systemId: SystemId.peer('N0') })
        enqueue.spawnChild('benchlist', {
          id: 'b',
          systemId: SystemId.benchlist('C'),
          input: { chainId: CHAIN, validators },
        })
      }),
    })
    const actor = createActor(root).start()
    const bench = actor.system.get(SystemId.benchlist('C'))
    const peer = actor.system.get(SystemId.peer('N0'))
    assert.ok(bench && peer)
    for (const nodeId of ['N0', 'N1']) {
      bench.send({ type: 'bench.failure', nodeId, weight: 100, now: 0 })
      bench.send({ type: 'bench.failure', nodeId, weight: 100, now: 0 })
    }
    assert.deepEqual(peer.getSnapshot().context.told, [{ type: 'session.benched', chainId: CHAIN, benched: true }])
    bench.send({ type: 'bench.tick', now: 5 * 60_000 })
    assert.deepEqual(peer.getSnapshot().context.told, [
      { type: 'session.benched', chainId: CHAIN, benched: true },
      { type: 'session.benched', chainId: CHAIN, benched: false },
    ])
    assert.equal(bench.getSnapshot().status, 'active')
    actor.stop()
  })
})
