import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createActor, SimulatedClock } from 'xstate'
import type { EngineDeps, EngineEffect } from '../../../../actors/consensus/engine.js'
import { type ExecuteEffectsParams, engineMachine } from '../../../../actors/consensus/engine.machine.js'
import { DEFAULT_SNOW_PARAMS } from '../../../../actors/consensus/params.js'
import { makeBlock, mulberry32, parseBlock } from '../../../helpers/consensus-sim.js'

const deps = (): EngineDeps => ({
  params: { ...DEFAULT_SNOW_PARAMS, beta: 2, concurrentRepolls: 2 },
  self: 'S',
  validators: () => [{ nodeId: 'P', weight: 100n }],
  isConnected: () => true,
  parse: parseBlock,
  random: mulberry32(1),
})

function start() {
  const clock = new SimulatedClock()
  const effects: EngineEffect[] = []
  const machine = engineMachine.provide({
    actions: {
      executeEffects: (_: unknown, params: ExecuteEffectsParams) => {
        effects.push(...params.effects)
      },
    },
  })
  const actor = createActor(machine, { input: { deps: deps(), lastAccepted: { id: 'G', height: 0 } }, clock })
  actor.start()
  return { clock, actor, effects }
}

describe('engine machine', () => {
  it('goes quiescent -> active -> quiescent as a block is issued and accepted', () => {
    const { actor, effects } = start()
    assert.equal(actor.getSnapshot().value, 'quiescent')
    const B = makeBlock('B', 'G', 1)
    actor.send({ type: 'query', from: 'P', inboundId: 1, container: B.bytes, requestedHeight: 1 })
    assert.deepEqual(
      effects.map((e) => e.type),
      ['chits', 'verify'],
    )
    assert.equal(actor.getSnapshot().value, 'quiescent')
    actor.send({ type: 'verified', blockId: 'B', ok: true })
    assert.equal(actor.getSnapshot().value, 'active')
    assert.equal(actor.getSnapshot().context.summary.numProcessing, 1)
    const chits = { preferredId: 'B', preferredIdAtHeight: 'B', acceptedId: 'G', acceptedHeight: 0 }
    actor.send({ type: 'chits', from: 'P', requestId: 1, chits })
    assert.equal(actor.getSnapshot().value, 'active')
    actor.send({ type: 'chits', from: 'P', requestId: 2, chits })
    assert.equal(actor.getSnapshot().value, 'quiescent')
    assert.ok(effects.some((e) => e.type === 'accept' && e.blockId === 'B'))
    const summary = actor.getSnapshot().context.summary
    assert.deepEqual(summary.lastAccepted, { id: 'B', height: 1 })
    assert.deepEqual(JSON.parse(JSON.stringify(summary)), summary)
    actor.stop()
  })

  it('ticks every 100 ms on the simulated clock: a frontier pull query while quiescent', () => {
    const { clock, actor, effects } = start()
    clock.increment(99)
    assert.deepEqual(effects, [])
    clock.increment(1)
    assert.deepEqual(effects, [{ type: 'pullQuery', to: ['P'], requestId: 0, blockId: 'G', requestedHeight: 1 }])
    clock.increment(100)
    assert.equal(effects.length, 2)
    actor.stop()
  })

  it('ticks repoll while active', () => {
    const { clock, actor, effects } = start()
    const B = makeBlock('B', 'G', 1)
    actor.send({ type: 'query', from: 'P', inboundId: 1, container: B.bytes, requestedHeight: 1 })
    actor.send({ type: 'verified', blockId: 'B', ok: true })
    const polls = () => effects.filter((e) => e.type === 'pullQuery').length
    assert.equal(polls(), 2) // the first query + one repoll
    actor.send({ type: 'queryFailed', from: 'P', requestId: 1 }) // poll released, repoll sends #3
    assert.equal(polls(), 3)
    effects.length = 0
    clock.increment(100)
    assert.deepEqual(effects, []) // two polls outstanding already: nothing to add
    assert.equal(actor.getSnapshot().value, 'active')
    actor.stop()
  })

  it('stops on engine.stop and fails loudly without executeEffects', () => {
    const { actor } = start()
    actor.send({ type: 'engine.stop' })
    assert.equal(actor.getSnapshot().status, 'done')
    const bare = createActor(engineMachine, {
      input: { deps: deps(), lastAccepted: { id: 'G', height: 0 } },
      clock: new SimulatedClock(),
    })
    const errors: unknown[] = []
    bare.subscribe({ error: (e) => errors.push(e) })
    bare.start()
    bare.send({ type: 'pendingTxs' })
    assert.equal(bare.getSnapshot().status, 'error')
    assert.match(String(errors[0]), /executeEffects was not provided/)
  })
})
