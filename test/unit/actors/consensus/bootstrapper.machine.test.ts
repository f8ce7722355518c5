import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type AnyActorRef, createActor, fromEventObservable, SimulatedClock, type SnapshotFrom } from 'xstate'
import { type BootstrapOptions, bootstrapRun } from '../../../../actors/consensus/bootstrapper.io.js'
import {
  type BootstrapIoInput,
  type BootstrapperEmitted,
  type BootstrapperEvent,
  type BootstrapperInput,
  bootstrapperMachine,
} from '../../../../actors/consensus/bootstrapper.machine.js'
import type { ParsedBlock } from '../../../../actors/consensus/types.js'
import { emitted$ } from '../../../../src/runtime/emitted.js'
import { extend, FakeNetwork, type FakePeer, genesisChain } from './bootstrap.fixtures.js'

type Snap = SnapshotFrom<typeof bootstrapperMachine>

const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

function start(net: FakeNetwork, options: BootstrapOptions = {}, input: BootstrapperInput = {}) {
  const bootstrapIo = fromEventObservable<BootstrapperEvent, BootstrapIoInput>(({ input }) =>
    bootstrapRun(net.io(), emitted$(input.self), options),
  )
  const logic = bootstrapperMachine.provide({ actors: { bootstrapIo } })
  const actor = createActor(logic, { clock: net.clock, input })
  const emitted: BootstrapperEmitted[] = []
  for (const t of [
    'bootstrap.progress',
    'bootstrap.done',
    'bootstrap.failed',
    'bootstrap.beaconsNotConnected',
  ] as const)
    actor.on(t, (e) => emitted.push(e))
  actor.start()
  return { actor, emitted }
}

/** Lets promises settle, advancing the simulated clock by `stepMs` whenever nothing else happens. */
async function runUntil(
  net: FakeNetwork,
  actor: AnyActorRef,
  pred: (s: Snap) => boolean,
  stepMs = 500,
  maxSteps = 2000,
) {
  for (let i = 0; i < maxSteps; i++) {
    for (let j = 0; j < 3; j++) await settle()
    const s = actor.getSnapshot() as Snap
    if (pred(s)) return s
    net.clock.increment(stepMs)
  }
  throw new Error(`condition not reached; state ${JSON.stringify((actor.getSnapshot() as Snap).value)}`)
}

const finished = (s: Snap) => s.status === 'done' || s.matches('failed')

const peers = (chain: ParsedBlock[], n: number, extra: Partial<FakePeer> = {}): FakePeer[] =>
  Array.from({ length: n }, (_, i) => ({ nodeId: `NodeID-p${i + 1}`, weight: 1n, chain, ...extra }))

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

describe('bootstrapper machine', () => {
  it('an empty beacon set is done at once with 0 executed', async () => {
    const net = new FakeNetwork(new SimulatedClock(), [], undefined)
    const { actor, emitted } = start(net)
    const s = await runUntil(net, actor, finished, 0, 10)
    assert.equal(s.value, 'done')
    assert.deepEqual(s.output, { executed: 0 })
    assert.deepEqual(net.calls, [])
    assert.deepEqual(emitted.at(-1), { type: 'bootstrap.done', executed: 0 })
  })

  it('self as the only beacon is done at once with 0 executed, asking nobody', async () => {
    const net = new FakeNetwork(new SimulatedClock(), [])
    const { actor } = start(net)
    const s = await runUntil(net, actor, finished, 0, 10)
    assert.equal(s.value, 'done')
    assert.deepEqual(s.output, { executed: 0 })
    assert.deepEqual(net.calls, [])
  })

  it('waits for (3W+3)/4 connected weight, re-checking on connectivity events and every second', async () => {
    const chain = extend(genesisChain(), 5)
    const net = new FakeNetwork(new SimulatedClock(), peers(chain, 4)) // W = 5, threshold 4
    net.connected = 1n
    const { actor } = start(net)
    await runUntil(net, actor, (s) => s.matches({ waitingForStake: 'waiting' }), 0, 5)
    net.clock.increment(5000)
    await settle()
    net.connected = 3n
    actor.send({ type: 'bootstrap.connectivityChanged' })
    await settle()
    assert.ok(actor.getSnapshot().matches('waitingForStake'))
    assert.deepEqual(net.calls, [])
    net.connected = 4n // no event: the periodic re-check finds it
    net.clock.increment(1000)
    const s = await runUntil(net, actor, finished)
    assert.equal(s.value, 'done')
    assert.deepEqual(net.executedHeights, range(1, 5))

    const net2 = new FakeNetwork(new SimulatedClock(), peers(chain, 4))
    net2.connected = 3n
    const second = start(net2)
    await runUntil(net2, second.actor, (s) => s.matches({ waitingForStake: 'waiting' }), 0, 5)
    net2.connected = 4n
    second.actor.send({ type: 'bootstrap.connectivityChanged' })
    await runUntil(net2, second.actor, (s) => !s.matches('waitingForStake'), 0, 5)
  })

  it('warns once when the beacons are still not connected after the beacon timeout, not when they are', async () => {
    const chain = extend(genesisChain(), 3)
    const net = new FakeNetwork(new SimulatedClock(), peers(chain, 4))
    net.connected = 1n
    const { actor, emitted } = start(net, {}, { beaconTimeoutMs: 60_000 })
    const warnings = () => emitted.filter((e) => e.type === 'bootstrap.beaconsNotConnected')
    await runUntil(net, actor, (s) => s.matches({ waitingForStake: 'waiting' }), 0, 5)
    for (let i = 0; i < 59; i++) {
      net.clock.increment(1000)
      await settle()
    }
    assert.deepEqual(warnings(), [])
    net.clock.increment(1000)
    await settle()
    assert.deepEqual(warnings(), [{ type: 'bootstrap.beaconsNotConnected', waitedMs: 60_000 }])
    for (let i = 0; i < 120; i++) {
      net.clock.increment(1000)
      await settle()
    }
    assert.equal(warnings().length, 1, 'once')
    net.connected = 4n
    assert.equal((await runUntil(net, actor, finished)).value, 'done')

    const quick = new FakeNetwork(new SimulatedClock(), peers(chain, 4))
    const second = start(quick, {}, { beaconTimeoutMs: 60_000 })
    await runUntil(quick, second.actor, finished)
    quick.clock.increment(120_000)
    await settle()
    assert.deepEqual(
      second.emitted.filter((e) => e.type === 'bootstrap.beaconsNotConnected'),
      [],
    )
  })

  it('a fresh node with 4 peers at height 500 executes 1..500 in order, then one empty round', async () => {
    const chain = extend(genesisChain(), 500)
    const net = new FakeNetwork(new SimulatedClock(), peers(chain, 4))
    const { actor, emitted } = start(net)
    const s = await runUntil(net, actor, finished)
    assert.equal(s.value, 'done')
    assert.deepEqual(net.executedHeights, range(1, 500))
    assert.deepEqual(s.output, { executed: 500 })
    assert.equal(s.context.round, 2)
    assert.equal(s.context.executedLastRound, 500)
    assert.equal(s.context.fetched, 500)
    const ends = emitted.filter((e) => e.type === 'bootstrap.progress' && e.phase === 'executing')
    assert.deepEqual(
      ends.map((e) => (e.type === 'bootstrap.progress' ? [e.round, e.executed] : [])),
      [
        [1, 500],
        [2, 500],
      ],
    )
    assert.deepEqual(emitted.at(-1), { type: 'bootstrap.done', executed: 500 })
    JSON.parse(JSON.stringify(s.context)) // JSON-safe
  })

  it('a tip that moves during round 1 is fetched and executed by round 2', async () => {
    const chain = extend(genesisChain(), 500)
    const ps = peers(chain, 4)
    const net = new FakeNetwork(new SimulatedClock(), ps)
    const grown = extend(chain, 300)
    net.onExecuted = (blk) => {
      if (blk.height === 250) for (const p of ps) p.chain = grown
    }
    const { actor } = start(net)
    const s = await runUntil(net, actor, finished)
    assert.equal(s.value, 'done')
    assert.deepEqual(net.executedHeights, range(1, 800))
    // round 2 executed 300 >= 500/2: no third round
    assert.equal(s.context.round, 2)
    assert.equal(s.context.executedLastRound, 500)
  })

  for (const fault of ['garbage', 'empty', 'wrong', 'timeout'] as const) {
    it(`a peer answering GetAncestors with ${fault} is not asked again for that id`, async () => {
      const chain = extend(genesisChain(), 300)
      const ps = peers(chain, 4, { maxContainers: 50 })
      for (const p of ps.slice(0, 3)) p.ancestorsFault = fault
      const net = new FakeNetwork(new SimulatedClock(), ps)
      const { actor } = start(net)
      const s = await runUntil(net, actor, finished)
      assert.equal(s.value, 'done')
      assert.deepEqual(net.executedHeights, range(1, 300))
      const asked = new Map<string, number>()
      for (const c of net.calls.filter((x) => x.op === 'ancestors')) {
        const key = `${c.peer} ${c.id}`
        asked.set(key, (asked.get(key) ?? 0) + 1)
      }
      assert.ok(
        [...asked.values()].every((n) => n === 1),
        'no (peer, id) asked twice',
      )
      assert.ok(
        net.calls.some((c) => c.op === 'ancestors' && c.peer !== 'NodeID-p4'),
        'the bad peers were tried',
      )
    })
  }

  it('with no other peer available, a failed id is retried after a delay', async () => {
    const chain = extend(genesisChain(), 20)
    const ps: FakePeer[] = [{ nodeId: 'NodeID-p1', weight: 3n, chain, ancestorsFault: 'reject', faultCount: 2 }]
    const net = new FakeNetwork(new SimulatedClock(), ps)
    const { actor } = start(net)
    const s = await runUntil(net, actor, finished)
    assert.equal(s.value, 'done')
    assert.deepEqual(net.executedHeights, range(1, 20))
    assert.equal(net.calls.filter((c) => c.op === 'ancestors').length, 3)
  })

  it('a round in which no other beacon answers the frontier is retried, not ended at our own genesis', async () => {
    const chain = extend(genesisChain(), 50)
    // ten weighted draws of the frontier sample: we are among them, the others fail the first time
    const net = new FakeNetwork(new SimulatedClock(), peers(chain, 4, { weight: 2n, frontierFails: 1 }), {
      nodeId: 'NodeID-self',
      weight: 2n,
    })
    const { actor } = start(net)
    const s = await runUntil(net, actor, finished)
    assert.equal(s.value, 'done')
    assert.deepEqual(net.executedHeights, range(1, 50))
    assert.ok(s.context.round >= 2)
  })

  it('a frontier reported by a minority is not fetched', async () => {
    const main = extend(genesisChain(), 100)
    const fork = extend(main.slice(0, 51), 70, 'fork')
    const ps = peers(main, 4)
    ;(ps[3] as FakePeer).chain = fork
    const net = new FakeNetwork(new SimulatedClock(), ps)
    const { actor } = start(net)
    const s = await runUntil(net, actor, finished)
    assert.equal(s.value, 'done')
    assert.deepEqual(net.executedHeights, range(1, 100))
    const forkTip = (fork.at(-1) as ParsedBlock).id
    assert.ok(
      net.calls.some((c) => c.op === 'frontier' && c.peer === 'NodeID-p4'),
      'the fork peer was sampled',
    )
    assert.ok(!net.calls.some((c) => c.op === 'ancestors' && c.id === forkTip))
    assert.deepEqual(
      net.local.map((b) => b.id),
      main.map((b) => b.id),
    )
  })

  it('a fetched chain that does not connect to our last accepted block fails with a clear message', async () => {
    const main = extend(genesisChain(), 40)
    const mine = extend(main.slice(0, 10), 1, 'mine') // our height 10 differs from theirs
    const net = new FakeNetwork(new SimulatedClock(), peers(main, 4), undefined, mine)
    const { actor, emitted } = start(net)
    const s = await runUntil(net, actor, finished)
    assert.equal(s.value, 'failed')
    assert.match(s.context.error ?? '', /does not build on the last accepted block/)
    assert.deepEqual(net.executedHeights, [])
    assert.equal(emitted.at(-1)?.type, 'bootstrap.failed')
  })

  it('past maxStored blocks, fetches and executes in chunks, still in height order', async () => {
    const chain = extend(genesisChain(), 230)
    const net = new FakeNetwork(new SimulatedClock(), peers(chain, 2))
    const { actor } = start(net, { maxStored: 50 })
    const s = await runUntil(net, actor, finished)
    assert.equal(s.value, 'done')
    assert.deepEqual(net.executedHeights, range(1, 230))
    assert.equal(s.context.round, 2)
  })

  it('emits progress at most once per interval while fetching slowly, with a rate', async () => {
    const chain = extend(genesisChain(), 200)
    const net = new FakeNetwork(
      new SimulatedClock(),
      peers(chain, 1, { weight: 3n, latencyMs: 300, maxContainers: 10 }),
    )
    const { actor, emitted } = start(net)
    const t0 = net.clock.now()
    const s = await runUntil(net, actor, finished, 100)
    assert.equal(s.value, 'done')
    const during = emitted.filter((e) => e.type === 'bootstrap.progress' && e.phase === 'fetchingAncestors')
    const elapsedS = (net.clock.now() - t0) / 1000
    assert.ok(during.length >= 4, `progress while fetching: ${during.length}`)
    assert.ok(during.length <= Math.ceil(elapsedS), `${during.length} progress events in ${elapsedS}s`)
    const last = during.at(-1)
    assert.ok(last?.type === 'bootstrap.progress' && last.rate > 0 && last.etaSeconds !== null)
  })
})
