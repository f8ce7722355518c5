import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { EMPTY, merge, mergeMap, type Observable, of } from 'rxjs'
import { createActor, fromEventObservable, SimulatedClock } from 'xstate'
import { type EngineEffect, engineSummary } from '../../../../actors/consensus/engine.js'
import {
  type EngineEmitted,
  type EngineIoInput,
  type EngineMachineEvent,
  type EngineReady,
  engineMachine,
} from '../../../../actors/consensus/engine.machine.js'
import { DEFAULT_SNOW_PARAMS } from '../../../../actors/consensus/params.js'
import { emitted$ } from '../../../../src/runtime/emitted.js'
import { makeBlock } from '../../../sim/consensus-sim.js'

const G = { id: 'G', height: 0 }

const ready = (validators: string[]): EngineReady => ({
  type: 'engine.ready',
  lastAccepted: G,
  validators: validators.map((nodeId) => ({ nodeId, weight: '100' })),
  connected: validators,
  seed: 1,
})

const input = (self: string) => ({
  chainId: 'chain',
  alias: 'X',
  self,
  params: { ...DEFAULT_SNOW_PARAMS, beta: 2, concurrentRepolls: 2 },
})

/** An engine whose IO only says `engine.ready`; the test sends its inputs itself and collects its effects. */
function start() {
  const clock = new SimulatedClock()
  const machine = engineMachine.provide({
    actors: { engineIo: fromEventObservable<EngineMachineEvent, EngineIoInput>(() => of(ready(['P']))) },
  })
  const actor = createActor(machine, { input: input('S'), clock })
  const effects: EngineEffect[] = []
  actor.on('engine.effects', (e) => effects.push(...e.effects))
  actor.start()
  return { clock, actor, effects }
}

const core = (actor: ReturnType<typeof start>['actor']) => {
  const c = actor.getSnapshot().context.core
  assert.ok(c, 'the core exists')
  return c
}

describe('engine machine', () => {
  it('goes quiescent -> active -> quiescent as a block is issued and accepted; the context is JSON-safe', () => {
    const { actor, effects } = start()
    assert.equal(actor.getSnapshot().value, 'quiescent')
    const B = makeBlock('B', 'G', 1)
    actor.send({ type: 'query', from: 'P', inboundId: 1, block: B, requestedHeight: 1 })
    assert.deepEqual(
      effects.map((e) => e.type),
      ['chits', 'verify'],
    )
    assert.equal(actor.getSnapshot().value, 'quiescent')
    actor.send({ type: 'verified', blockId: 'B', ok: true })
    assert.equal(actor.getSnapshot().value, 'active')
    assert.equal(engineSummary(core(actor)).numProcessing, 1)
    const context = actor.getSnapshot().context
    assert.deepEqual(JSON.parse(JSON.stringify(context)), context)
    const chits = { preferredId: 'B', preferredIdAtHeight: 'B', acceptedId: 'G', acceptedHeight: 0 }
    actor.send({ type: 'chits', from: 'P', requestId: 1, chits })
    assert.equal(actor.getSnapshot().value, 'active')
    actor.send({ type: 'chits', from: 'P', requestId: 2, chits })
    assert.equal(actor.getSnapshot().value, 'quiescent')
    assert.ok(effects.some((e) => e.type === 'accept' && e.blockId === 'B'))
    const summary = engineSummary(core(actor))
    assert.deepEqual(summary.lastAccepted, { id: 'B', height: 1 })
    const after = actor.getSnapshot().context
    assert.deepEqual(JSON.parse(JSON.stringify(after)), after)
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
    actor.send({ type: 'query', from: 'P', inboundId: 1, block: B, requestedHeight: 1 })
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

  it('connectivity and validator changes reach the core as data', () => {
    const { clock, actor, effects } = start()
    actor.send({ type: 'validatorsChanged', validators: [{ nodeId: 'Q', weight: '5' }] })
    actor.send({ type: 'connectivityChanged', connected: ['Q'] })
    assert.deepEqual(core(actor).validators, [{ nodeId: 'Q', weight: '5' }])
    assert.deepEqual(core(actor).connected, { Q: true })
    clock.increment(100)
    assert.deepEqual(effects, [{ type: 'pullQuery', to: ['Q'], requestId: 0, blockId: 'G', requestedHeight: 1 }])
    actor.send({ type: 'connectivityChanged', connected: [] })
    clock.increment(100)
    assert.equal(effects.length, 1) // nobody connected to frontier-poll
    actor.stop()
  })

  it('waits in starting for engine.ready (inputs before it are ignored) and fails loudly without engineIo', () => {
    const late = engineMachine.provide({
      actors: { engineIo: fromEventObservable<EngineMachineEvent, EngineIoInput>(() => EMPTY) },
    })
    const waiting = createActor(late, { input: input('S'), clock: new SimulatedClock() }).start()
    waiting.send({ type: 'pendingTxs' })
    assert.equal(waiting.getSnapshot().value, 'starting')
    assert.equal(waiting.getSnapshot().context.core, null)
    waiting.send(ready(['S']))
    assert.equal(waiting.getSnapshot().value, 'quiescent')
    assert.equal(engineSummary(core(waiting)).pendingBuild, 0)
    waiting.stop()

    const bare = createActor(engineMachine, { input: input('S'), clock: new SimulatedClock() })
    const errors: unknown[] = []
    bare.subscribe({ error: (e) => errors.push(e) })
    bare.start()
    assert.equal(bare.getSnapshot().status, 'error')
    assert.match(String(errors[0]), /engineIo was not provided/)
  })

  it('speaks through its IO slot: a lone validator builds, polls itself through the IO and accepts', async () => {
    // the IO: `engine.ready`, then every emitted effect carried out and answered with the result events
    const blocks: string[] = []
    const accepted: string[] = []
    /** inbound ID of a looped-back self-query -> the poll it answers */
    const pending = new Map<number, number>()
    const answer = (e: EngineEffect, inbound: { next: number }): Observable<EngineMachineEvent> => {
      switch (e.type) {
        case 'build': {
          const b = makeBlock(`B${blocks.length + 1}`, 'G', 1)
          blocks.push(b.id)
          return of({ type: 'built', block: b })
        }
        case 'pushQuery':
        case 'pullQuery': {
          // the self-query loops back as a query; its chits come out as a 'chits' effect below
          const q = e.type === 'pushQuery' ? { block: e.block } : { blockId: e.blockId }
          pending.set(inbound.next, e.requestId)
          return of({ type: 'query', from: 'S', inboundId: inbound.next++, requestedHeight: e.requestedHeight, ...q })
        }
        case 'chits': {
          const requestId = pending.get(e.inboundId) as number
          pending.delete(e.inboundId)
          return of({ type: 'chits', from: 'S', requestId, chits: e.chits })
        }
        case 'accept':
          accepted.push(e.blockId)
          return EMPTY
        default:
          return EMPTY
      }
    }
    const engineIo = fromEventObservable<EngineMachineEvent, EngineIoInput>(({ input: io }) => {
      const inbound = { next: 1 }
      const results = (emitted$(io.self) as Observable<EngineEmitted>).pipe(
        mergeMap((e) => merge(...e.effects.map((x) => answer(x, inbound)))),
      )
      return merge(of(ready(['S'])), results)
    })
    const actor = createActor(engineMachine.provide({ actors: { engineIo } }), {
      input: input('S'),
      clock: new SimulatedClock(),
    }).start()
    actor.send({ type: 'pendingTxs' })
    assert.deepEqual(blocks, ['B1'])
    assert.deepEqual(accepted, ['B1'])
    assert.equal(actor.getSnapshot().value, 'quiescent')
    assert.deepEqual(engineSummary(core(actor)).lastAccepted, { id: 'B1', height: 1 })
    actor.stop()
  })
})
