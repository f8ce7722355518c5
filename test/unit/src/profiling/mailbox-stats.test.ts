import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { assign, createActor, enqueueActions, sendTo, setup } from 'xstate'
import { createMailboxStats } from '../../../../src/profiling/mailbox-stats.js'

const counter = setup({
  types: { context: {} as { n: number }, events: {} as { type: 'inc' } },
}).createMachine({
  id: 'counter',
  context: { n: 0 },
  on: { inc: { actions: assign({ n: ({ context }) => context.n + 1 }) } },
})

const parent = setup({
  types: { events: {} as { type: 'ping' } | { type: 'relay' } },
  actors: { counter },
}).createMachine({
  id: 'parent',
  entry: enqueueActions(({ enqueue }) => enqueue.spawnChild('counter', { id: 'counter', systemId: 'worker' })),
  on: { relay: { actions: sendTo('counter', { type: 'inc' }) }, ping: {} },
})

/** A clock that moves one ms each time it is read. */
const ticking = () => {
  let t = 0
  return () => {
    t += 1
    return t
  }
}

describe('mailbox stats', () => {
  it('measures relayed -> processed per actor from a real actor system', () => {
    const stats = createMailboxStats({ now: ticking() })
    const root = createActor(parent, { systemId: 'node', inspect: stats.observe }).start()
    for (let i = 0; i < 3; i++) root.send({ type: 'ping' })
    const report1 = stats.snapshot()
    // xstate.init is not a mailbox message; each ping is relayed (t) then processed (t+1)
    assert.deepEqual(report1.actors, { node: { count: 3, meanMs: 1, p50Ms: 1, p99Ms: 1, maxMs: 1 } })
    root.send({ type: 'relay' })
    root.send({ type: 'relay' })
    const report2 = stats.snapshot()
    assert.equal(report2.actors['node']?.count, 5)
    assert.equal(report2.actors['worker']?.count, 2)
    assert.equal(root.system.get('worker')?.getSnapshot().context.n, 2)
    assert.deepEqual(report2.asks, {})
    root.stop()
  })

  it('uses the real clock by default and reports finite milliseconds', () => {
    const stats = createMailboxStats()
    const actor = createActor(counter, { id: 'counter', inspect: stats.observe }).start()
    for (let i = 0; i < 50; i++) actor.send({ type: 'inc' })
    const row = stats.snapshot().actors['counter']
    assert.equal(row?.count, 50)
    for (const v of [row.meanMs, row.p50Ms, row.p99Ms, row.maxMs]) assert.ok(Number.isFinite(v) && v >= 0)
    assert.ok(row.maxMs >= row.p99Ms && row.p99Ms >= row.p50Ms)
    actor.stop()
  })

  it('records asks per actor and caps the number of rows', () => {
    const stats = createMailboxStats({ maxActors: 1 })
    stats.recordAsk('profiler', 2)
    stats.recordAsk('profiler', 4)
    stats.recordAsk('chain:C', 10)
    assert.deepEqual(stats.snapshot().asks, {
      '(other)': { count: 1, meanMs: 10, p50Ms: 10, p99Ms: 10, maxMs: 10 },
      profiler: { count: 2, meanMs: 3, p50Ms: 2, p99Ms: 4, maxMs: 4 },
    })
  })

  it('an event relayed to a stopped actor is never counted', () => {
    const stats = createMailboxStats({ now: ticking() })
    const actor = createActor(counter, { id: 'counter', inspect: stats.observe }).start()
    actor.send({ type: 'inc' })
    actor.stop()
    const warn = console.warn
    console.warn = () => {}
    try {
      actor.send({ type: 'inc' })
    } finally {
      console.warn = warn
    }
    assert.deepEqual(stats.snapshot().actors, { counter: { count: 1, meanMs: 1, p50Ms: 1, p99Ms: 1, maxMs: 1 } })
  })
})
