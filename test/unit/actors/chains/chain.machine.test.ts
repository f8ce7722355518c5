import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { NEVER, Observable, of, throwError } from 'rxjs'
import {
  type AnyActorRef,
  createActor,
  fromEventObservable,
  fromPromise,
  initialTransition,
  transition,
  waitFor,
} from 'xstate'
import {
  type AwaitVmInput,
  type ChainEvent,
  type ChainInitResult,
  type ChainIoInput,
  type ChainSlotInput,
  chainMachine,
} from '../../../../actors/chains/chain.machine.js'
import {
  type BootstrapIoInput,
  type BootstrapperEvent,
  bootstrapperMachine,
} from '../../../../actors/consensus/bootstrapper.machine.js'
import {
  type EngineIoInput,
  type EngineMachineEvent,
  engineMachine,
} from '../../../../actors/consensus/engine.machine.js'
import { SystemId } from '../../../../actors/system-ids.js'

const input = {
  chainId: '2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC',
  alias: 'C',
  vm: 'evm',
  nodeId: 'NodeID-self',
}

type Action = { type: string; params?: unknown }

const emitted = (actions: Action[]) =>
  actions
    .filter((a) => a.type === 'xstate.emit')
    .map((a) => (a.params as { event: { type: string; state?: string } }).event)

/** ids of the children spawned by these actions */
const spawned = (actions: Action[]) =>
  actions.filter((a) => a.type === 'xstate.spawnChild').map((a) => (a.params as { id: string }).id)

/** ids of the children stopped by these actions */
const stopped = (actions: Action[]) =>
  actions.filter((a) => a.type === 'xstate.stopChild').map((a) => (a.params as { id?: string } | undefined)?.id)

const done = (actorId: string, output: unknown) =>
  ({ type: `xstate.done.actor.${actorId}`, actorId, output }) as unknown as ChainEvent

/** the chain once its VM is registered (initializing) */
const started = (i: typeof input) => {
  const [w] = initialTransition(chainMachine, i)
  return transition(chainMachine, w, done('awaitVm', undefined))
}

describe('chain machine (pure steps)', () => {
  it('keeps the last accepted block its IO reports, in any state', () => {
    const [s0] = started(input)
    const [s1] = transition(chainMachine, s0, { type: 'chain.accepted', height: 7, id: '0x07', at: 1_000 })
    const [s2] = transition(chainMachine, s1, { type: 'chain.accepted', height: 8, id: '0x08', at: 2_000 })
    assert.deepEqual(s2.context.lastAccepted, { height: 8, id: '0x08', at: 2_000 })
    assert.equal(s2.context.acceptedCount, 2)
  })

  it('starts waiting for its VM with its benchlist, then invokes initializeChain; a profiler when the chain has one', () => {
    const [w0, actions] = initialTransition(chainMachine, input)
    assert.equal(w0.value, 'waitingForVm')
    assert.deepEqual(spawned(actions as Action[]), ['benchlist:C', 'io', 'awaitVm'])
    assert.deepEqual(emitted(actions as Action[]), [
      { type: 'chain.stateChanged', chainId: input.chainId, state: 'waitingForVm' },
    ])
    const [s0, a0] = started(input)
    assert.equal(s0.value, 'initializing')
    assert.deepEqual(spawned(a0 as Action[]), ['initializeChain'])
    const [, withProfiler] = transition(
      chainMachine,
      s0,
      done('initializeChain', { hasOtherValidators: false, profiler: true }),
    )
    assert.deepEqual(spawned(withProfiler as Action[]), ['profiler:C', 'producer:C'])
    const [, booting] = transition(
      chainMachine,
      s0,
      done('initializeChain', { hasOtherValidators: true, profiler: true }),
    )
    assert.deepEqual(spawned(booting as Action[]), ['profiler:C', 'bootstrapper:C'])
    // a VM that never comes is not an error; a failed wait is a failed chain with the reason
    const [f] = transition(chainMachine, w0, {
      type: 'xstate.error.actor.awaitVm',
      error: new Error('VM x is not a chain VM'),
    } as never)
    assert.equal(f.value, 'failed')
    assert.equal(f.context.error, 'VM x is not a chain VM')
  })

  it('with no other validators goes straight to normalOp and runs the producer, no engine', () => {
    const [s0] = started(input)
    const [s1, actions] = transition(chainMachine, s0, done('initializeChain', { hasOtherValidators: false }))
    assert.equal(s1.value, 'normalOp')
    assert.deepEqual(emitted(actions as Action[]), [
      { type: 'chain.stateChanged', chainId: input.chainId, state: 'normalOp' },
    ])
    assert.deepEqual(spawned(actions as Action[]), ['producer:C'])
  })

  it('with other validators bootstraps (keeping its progress), then reaches normalOp with the engine', () => {
    const [s0] = started(input)
    const [s1, a1] = transition(chainMachine, s0, done('initializeChain', { hasOtherValidators: true }))
    assert.equal(s1.value, 'bootstrapping')
    assert.deepEqual(spawned(a1 as Action[]), ['bootstrapper:C'])
    const [s2] = transition(chainMachine, s1, {
      type: 'chain.bootstrapProgress',
      phase: 'fetchingAncestors',
      round: 1,
      fetched: 10,
      executed: 4,
      remaining: 90,
      rate: 5,
      etaSeconds: 18,
    })
    assert.deepEqual(s2.context.progress, {
      phase: 'fetchingAncestors',
      round: 1,
      fetched: 10,
      executed: 4,
      remaining: 90,
      rate: 5,
      etaSeconds: 18,
    })
    // another child's end is not the bootstrapper's
    const [s3] = transition(chainMachine, s2, done('profiler:C', undefined))
    assert.equal(s3.value, 'bootstrapping')
    const [s4, a4] = transition(chainMachine, s3, done('bootstrapper:C', { executed: 3 }))
    assert.equal(s4.value, 'normalOp')
    assert.deepEqual(spawned(a4 as Action[]), ['engine:C'])
    assert.deepEqual(JSON.parse(JSON.stringify(s4.context)), s4.context)
  })

  it('a bootstrap that ends with an error, or a failed initialization, is a failed chain with the reason', () => {
    const [s0] = started(input)
    const [s1] = transition(chainMachine, s0, done('initializeChain', { hasOtherValidators: true }))
    const [s2] = transition(chainMachine, s1, done('bootstrapper:C', { executed: 2, error: 'conflict' }))
    assert.equal(s2.value, 'failed')
    assert.equal(s2.context.error, 'conflict')
    const [s3] = transition(chainMachine, s0, {
      type: 'xstate.error.actor.initializeChain',
      error: new Error('genesis mismatch'),
    } as never)
    assert.equal(s3.value, 'failed')
    assert.equal(s3.context.error, 'genesis mismatch')
  })

  it('chain.stop stops it from any state', () => {
    const [s0] = started(input)
    const [s1] = transition(chainMachine, s0, { type: 'chain.stop' })
    assert.equal(s1.value, 'stopped')
    assert.equal(s1.status, 'done')
    const [n0] = transition(chainMachine, s0, done('initializeChain', { hasOtherValidators: true }))
    const [n1] = transition(chainMachine, n0, done('bootstrapper:C', { executed: 0 }))
    const [n2, actions] = transition(chainMachine, n1, { type: 'chain.stop' })
    assert.equal(n2.value, 'stopped')
    assert.ok(stopped(actions as Action[]).includes('engine:C'))
    assert.ok(stopped(actions as Action[]).includes('benchlist:C'))
  })
})

/** An engine whose IO says it is ready and then stays quiet. */
/** the chain with an IO slot that never says anything (no transactions in these tests) */
const withIo = chainMachine.provide({
  actors: {
    chainIo: fromEventObservable<ChainEvent, ChainIoInput>(() => NEVER),
    awaitVm: fromPromise<void, AwaitVmInput>(async () => undefined),
  },
})

const quietEngine = engineMachine.provide({
  actors: {
    engineIo: fromEventObservable<EngineMachineEvent, EngineIoInput>(
      () =>
        new Observable<EngineMachineEvent>((sub) => {
          sub.next({
            type: 'engine.ready',
            lastAccepted: { id: 'G', height: 0 },
            validators: [],
            connected: [],
            seed: 1,
          })
        }),
    ),
  },
})

/** A bootstrapper whose IO finds no beacons: it executes nothing and is done at once. */
const emptyBootstrapper = bootstrapperMachine.provide({
  actors: {
    bootstrapIo: fromEventObservable<BootstrapperEvent, BootstrapIoInput>(
      ({ input: io }) =>
        new Observable<BootstrapperEvent>((sub) => {
          const listener = io.self.on('*', (e: { type: string }) => {
            if (e.type === 'bootstrap.checkStake')
              sub.next({ type: 'bootstrap.stake', ready: true, noBeacons: true, at: 0 })
            if (e.type === 'bootstrap.execute') sub.next({ type: 'bootstrap.executed', more: false, at: 0 })
          })
          return () => listener.unsubscribe()
        }),
    ),
  },
})

const parentOf = (ref: AnyActorRef | undefined) => (ref as { _parent?: AnyActorRef } | undefined)?._parent?.id

describe('chain machine (running)', () => {
  it('owns its children: benchlist for life, bootstrapper while bootstrapping, then the engine; stop stops them', async () => {
    const logic = withIo.provide({
      actors: {
        initializeChain: fromPromise<ChainInitResult, ChainSlotInput>(async () => ({ hasOtherValidators: true })),
        bootstrapper: emptyBootstrapper,
        engine: quietEngine,
      },
    })
    const actor = createActor(logic, { input, systemId: SystemId.chain('C') }).start()
    const seen: string[] = []
    actor.on('chain.stateChanged', (e) => seen.push((e as { state: string }).state))
    const benchlist = actor.system.get(SystemId.benchlist('C'))
    assert.ok(benchlist)
    assert.equal(parentOf(benchlist), actor.id)
    const s = await waitFor(actor, (x) => x.value === 'normalOp', { timeout: 5_000 })
    assert.deepEqual(seen, ['bootstrapping', 'normalOp'])
    // the bootstrapper told its parent where it got to, then ended
    assert.deepEqual(s.context.progress, {
      phase: 'executing',
      round: 0,
      fetched: 0,
      executed: 0,
      remaining: 0,
      rate: 0,
      etaSeconds: null,
    })
    assert.equal(actor.system.get(SystemId.bootstrapper('C')), undefined)
    const engine = actor.system.get(SystemId.engine('C'))
    assert.ok(engine)
    assert.equal(parentOf(engine), actor.id)
    assert.equal(engine.getSnapshot().value, 'quiescent')
    assert.deepEqual(JSON.parse(JSON.stringify(s.context)), s.context)
    actor.send({ type: 'chain.stop' })
    assert.equal(actor.getSnapshot().status, 'done')
    assert.equal(engine.getSnapshot().status, 'stopped')
    assert.equal(benchlist.getSnapshot().status, 'stopped')
    actor.stop()
  })

  it('a lone validator runs its producer slot in normalOp only; the engine never starts', async () => {
    const production: string[] = []
    const logic = withIo.provide({
      actors: {
        initializeChain: fromPromise<ChainInitResult, ChainSlotInput>(async () => ({ hasOtherValidators: false })),
        produceBlocks: fromEventObservable<ChainEvent, ChainSlotInput>(
          ({ input: chain }) =>
            new Observable<ChainEvent>(() => {
              production.push(`start ${chain.alias}`)
              return () => production.push(`stop ${chain.alias}`)
            }),
        ),
        engine: quietEngine,
      },
    })
    const actor = createActor(logic, { input }).start()
    await waitFor(actor, (s) => s.value === 'normalOp', { timeout: 5_000 })
    assert.deepEqual(production, ['start C'])
    assert.equal(actor.system.get(SystemId.engine('C')), undefined)
    actor.send({ type: 'chain.stop' })
    assert.deepEqual(production, ['start C', 'stop C'])
    actor.stop()
  })

  it('a bootstrapper ending with an error, or an engine whose IO fails, leaves the chain failed', async () => {
    const failing = withIo.provide({
      actors: {
        initializeChain: fromPromise<ChainInitResult, ChainSlotInput>(async () => ({ hasOtherValidators: true })),
        bootstrapper: bootstrapperMachine.provide({
          actors: {
            bootstrapIo: fromEventObservable<BootstrapperEvent, BootstrapIoInput>(() =>
              of({ type: 'bootstrap.failed', message: 'conflict' } as const),
            ),
          },
        }),
      },
    })
    const a = createActor(failing, { input }).start()
    const s = await waitFor(a, (x) => x.value === 'failed' || x.value === 'normalOp', { timeout: 5_000 })
    assert.equal(s.value, 'failed')
    assert.equal(s.context.error, 'conflict')
    assert.ok(a.system.get(SystemId.benchlist('C')), 'the benchlist lives on')
    a.stop()

    const broken = withIo.provide({
      actors: {
        initializeChain: fromPromise<ChainInitResult, ChainSlotInput>(async () => ({ hasOtherValidators: true })),
        bootstrapper: emptyBootstrapper,
        engine: engineMachine.provide({
          actors: {
            engineIo: fromEventObservable<EngineMachineEvent, EngineIoInput>(() =>
              throwError(() => new Error('no consensus')),
            ),
          },
        }),
      },
    })
    const b = createActor(broken, { input }).start()
    const t = await waitFor(b, (x) => x.value === 'failed', { timeout: 5_000 })
    assert.match(t.context.error ?? '', /no consensus/)
    assert.equal(b.system.get(SystemId.engine('C')), undefined)
    b.stop()
  })

  it('fails loudly when a slot is not provided', async () => {
    const actor = createActor(withIo, { input }).start()
    const s = await waitFor(actor, (x) => x.value === 'failed', { timeout: 5_000 })
    assert.match(s.context.error ?? '', /initializeChain was not provided/)
    actor.stop()
    // without its IO slot the chain actor itself fails
    const bare = createActor(chainMachine, { input })
    const errors: unknown[] = []
    bare.subscribe({ error: (err) => errors.push(err) })
    bare.start()
    assert.match(String(errors[0]), /chainIo was not provided/)
  })

  it('admits transactions only in normalOp: a command answered by the chain IO, or refused with the reference text', async () => {
    const admitted: string[][] = []
    const logic = withIo.provide({
      actors: {
        initializeChain: fromPromise<ChainInitResult, ChainSlotInput>(
          () => new Promise((resolve) => setTimeout(() => resolve({ hasOtherValidators: false }), 20)),
        ),
        produceBlocks: fromEventObservable<ChainEvent, ChainSlotInput>(() => NEVER),
        chainIo: fromEventObservable<ChainEvent, ChainIoInput>(
          ({ input: io }) =>
            new Observable<ChainEvent>((sub) => {
              const l = io.self.on(
                'chain.admitTxs',
                (e: { requestId: string; txs: { ticket: number; hash: string }[] }) => {
                  admitted.push(e.txs.map((t) => t.hash))
                  sub.next({
                    type: 'chain.txsAdmitted',
                    requestId: e.requestId,
                    results: e.txs.map((t) =>
                      t.ticket === 1
                        ? { ok: true as const, hash: t.hash }
                        : { ok: false as const, error: { code: -32000, message: 'nonce too low', data: null } },
                    ),
                  })
                },
              )
              return () => l.unsubscribe()
            }),
        ),
      },
    })
    const actor = createActor(logic, { input })
    const replies: unknown[] = []
    actor.on('reply', (r) => replies.push(r))
    actor.start()
    actor.send({ type: 'chain.submitTxs', requestId: 'r0', txs: [{ ticket: 1, hash: '0xaa' }] })
    assert.deepEqual(replies, [
      {
        type: 'reply',
        requestId: 'r0',
        ok: false,
        error: { code: -32000, message: 'API call rejected because chain is not done bootstrapping', data: null },
      },
    ])
    await waitFor(actor, (x) => x.value === 'normalOp', { timeout: 5_000 })
    actor.send({
      type: 'chain.submitTxs',
      requestId: 'r1',
      txs: [
        { ticket: 1, hash: '0xbb' },
        { ticket: 2, hash: '0xcc' },
      ],
    })
    assert.deepEqual(admitted, [['0xbb', '0xcc']])
    assert.deepEqual(replies.slice(1), [
      {
        type: 'reply',
        requestId: 'r1',
        ok: true,
        result: [
          { ok: true, hash: '0xbb' },
          { ok: false, error: { code: -32000, message: 'nonce too low', data: null } },
        ],
      },
    ])
    actor.stop()
  })
})
