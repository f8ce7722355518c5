import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createActor, fromCallback, fromPromise, initialTransition, transition, waitFor } from 'xstate'
import {
  type BootstrapOutput,
  type ChainEvent,
  type ChainInitResult,
  type ChainInput,
  chainMachine,
} from '../../../../actors/chains/chain.machine.js'

const input = { chainId: '2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC', alias: 'C' }

const emitted = (actions: { type: string; params?: unknown }[]) =>
  actions
    .filter((a) => a.type === 'xstate.emit')
    .map((a) => (a.params as { event: { type: string; state?: string } }).event)

describe('chain machine (pure steps)', () => {
  it('starts initializing and invokes initializeChain', () => {
    const [s0, actions] = initialTransition(chainMachine, input)
    assert.equal(s0.value, 'initializing')
    assert.ok(
      actions.some((a) => a.type === 'xstate.spawnChild' && (a.params as { id: string }).id === 'initializeChain'),
    )
  })

  it('with no other validators goes straight to normalOp', () => {
    const [s0] = initialTransition(chainMachine, input)
    const [s1, actions] = transition(chainMachine, s0, {
      type: 'xstate.done.actor.initializeChain',
      output: { hasOtherValidators: false },
    } as never)
    assert.equal(s1.value, 'normalOp')
    assert.deepEqual(emitted(actions as never), [
      { type: 'chain.stateChanged', chainId: input.chainId, state: 'normalOp' },
    ])
  })

  it('with other validators bootstraps, then reaches normalOp', () => {
    const [s0] = initialTransition(chainMachine, input)
    const [s1] = transition(chainMachine, s0, {
      type: 'xstate.done.actor.initializeChain',
      output: { hasOtherValidators: true },
    } as never)
    assert.equal(s1.value, 'bootstrapping')
    const [s2] = transition(chainMachine, s1, { type: 'chain.bootstrapProgress', fetched: 10, executed: 4 })
    assert.deepEqual(s2.context.progress, { fetched: 10, executed: 4 })
    const [s3] = transition(chainMachine, s2, { type: 'xstate.done.actor.bootstrapChain', output: undefined } as never)
    assert.equal(s3.value, 'normalOp')
    const [s4] = transition(chainMachine, s1, { type: 'chain.bootstrapped' })
    assert.equal(s4.value, 'normalOp')
  })

  it('a failed initialization is a failed chain with the reason', () => {
    const [s0] = initialTransition(chainMachine, input)
    const [s1] = transition(chainMachine, s0, {
      type: 'xstate.error.actor.initializeChain',
      error: new Error('genesis mismatch'),
    } as never)
    assert.equal(s1.value, 'failed')
    assert.equal(s1.context.error, 'genesis mismatch')
  })

  it('chain.stop stops it from any state', () => {
    const [s0] = initialTransition(chainMachine, input)
    const [s1] = transition(chainMachine, s0, { type: 'chain.stop' })
    assert.equal(s1.value, 'stopped')
    assert.equal(s1.status, 'done')
  })
})

describe('chain machine (running)', () => {
  it('runs the provided slots; block production runs only in normalOp', async () => {
    const production: string[] = []
    const logic = chainMachine.provide({
      actors: {
        initializeChain: fromPromise<ChainInitResult, ChainInput>(async () => ({ hasOtherValidators: true })),
        bootstrapChain: fromPromise<BootstrapOutput, ChainInput>(async () => ({ executed: 3 })),
        produceBlocks: fromCallback<ChainEvent, ChainInput>(({ input: chain }) => {
          production.push(`start ${chain.alias}`)
          return () => production.push(`stop ${chain.alias}`)
        }),
      },
    })
    const actor = createActor(logic, { input }).start()
    const seen: string[] = []
    actor.on('chain.stateChanged', (e) => seen.push(e.state))
    await waitFor(actor, (s) => s.value === 'normalOp', { timeout: 5_000 })
    assert.deepEqual(seen, ['bootstrapping', 'normalOp'])
    assert.deepEqual(production, ['start C'])
    actor.send({ type: 'chain.stop' })
    assert.deepEqual(production, ['start C', 'stop C'])
    actor.stop()
  })

  it('a bootstrap that ends with an error leaves the chain failed, not in normalOp', async () => {
    const logic = chainMachine.provide({
      actors: {
        initializeChain: fromPromise<ChainInitResult, ChainInput>(async () => ({ hasOtherValidators: true })),
        bootstrapChain: fromPromise<BootstrapOutput, ChainInput>(async () => ({ executed: 2, error: 'conflict' })),
        produceBlocks: fromCallback<ChainEvent, ChainInput>(() => undefined),
      },
    })
    const actor = createActor(logic, { input }).start()
    const s = await waitFor(actor, (x) => x.value === 'failed' || x.value === 'normalOp', { timeout: 5_000 })
    assert.equal(s.value, 'failed')
    assert.equal(s.context.error, 'conflict')
    actor.stop()
  })
})
