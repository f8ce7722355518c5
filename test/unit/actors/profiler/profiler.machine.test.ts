import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createActor, fromPromise, initialTransition, type SnapshotFrom, transition, waitFor } from 'xstate'
import {
  PROFILER_ERROR_ALREADY_RUNNING,
  PROFILER_ERROR_NOT_RUNNING,
  PROFILER_ERROR_QUEUE_FULL,
  type ProfilerCommand,
  type ProfilerSlotInput,
  profilerMachine,
} from '../../../../actors/profiler/profiler.machine.js'
import type { Reply } from '../../../../actors/reply.js'

type Snapshot = SnapshotFrom<typeof profilerMachine>
type Action = { type: string; params?: unknown }
type Command = ProfilerCommand['type']

const replies = (actions: Action[]): Reply[] =>
  actions.filter((a) => a.type === 'xstate.emit').map((a) => (a.params as { event: Reply }).event)
const spawned = (actions: Action[]): string[] =>
  actions.filter((a) => a.type === 'xstate.spawnChild').map((a) => (a.params as { id: string }).id)

const ok = (requestId: string): Reply => ({ type: 'reply', requestId, ok: true, result: {} })
const err = (requestId: string, message: string): Reply => ({
  type: 'reply',
  requestId,
  ok: false,
  error: { code: -32000, message, data: null },
})

/** One step; returns the next snapshot and the replies it emitted. */
function step(
  s: Snapshot,
  event: ProfilerCommand | { type: string; [k: string]: unknown },
): [Snapshot, Reply[], string[]] {
  const [next, actions] = transition(profilerMachine, s, event as ProfilerCommand)
  return [next, replies(actions as Action[]), spawned(actions as Action[])]
}
const command = (type: Command, requestId: string) => ({ type, requestId })
const done = (id: string) => ({ type: `xstate.done.actor.${id}`, output: undefined })
const failed = (id: string, message: string) => ({ type: `xstate.error.actor.${id}`, error: new Error(message) })

/** Finishes whatever IO is under way, successfully, until nothing is, collecting the replies. */
function settle(s0: Snapshot): [Snapshot, Reply[]] {
  let s = s0
  const all: Reply[] = []
  for (let i = 0; i < 100; i++) {
    const id = s.matches({ cpu: 'starting' })
      ? 'startCpuProfile'
      : s.matches({ cpu: 'stopping' })
        ? 'stopCpuProfile'
        : s.matches({ snapshot: { writing: 'memory' } })
          ? 'writeMemoryProfile'
          : s.matches({ snapshot: { writing: 'lock' } })
            ? 'writeLockProfile'
            : s.matches({ snapshot: { writing: 'heapSnapshot' } })
              ? 'writeHeapSnapshot'
              : null
    if (id === null) return [s, all]
    const [next, r] = step(s, done(id))
    s = next
    all.push(...r)
  }
  throw new Error('did not settle')
}

const initial = (input = {}): Snapshot => initialTransition(profilerMachine, input)[0]

/** Snapshots with the cpu region in each state and the snapshot region ready or writing. */
function states(): Record<string, Snapshot> {
  const out: Record<string, Snapshot> = {}
  for (const writing of [false, true]) {
    let s = initial()
    if (writing) s = step(s, command('profiler.memory', 'bg-memory'))[0]
    const idle = s
    const starting = step(idle, command('profiler.start', 'bg-start'))[0]
    const running = step(starting, done('startCpuProfile'))[0]
    const stopping = step(running, command('profiler.stop', 'bg-stop'))[0]
    const region = writing ? 'writing' : 'ready'
    Object.assign(out, {
      [`idle/${region}`]: idle,
      [`starting/${region}`]: starting,
      [`running/${region}`]: running,
      [`stopping/${region}`]: stopping,
    })
  }
  return out
}

/** What each command must eventually get, by cpu state. */
const expected: Record<string, Record<Command, string | null>> = {
  idle: {
    'profiler.start': null,
    'profiler.stop': PROFILER_ERROR_NOT_RUNNING,
    'profiler.memory': null,
    'profiler.lock': null,
    'profiler.heapSnapshot': null,
  },
  starting: {
    'profiler.start': PROFILER_ERROR_ALREADY_RUNNING,
    'profiler.stop': null,
    'profiler.memory': null,
    'profiler.lock': null,
    'profiler.heapSnapshot': null,
  },
  running: {
    'profiler.start': PROFILER_ERROR_ALREADY_RUNNING,
    'profiler.stop': null,
    'profiler.memory': null,
    'profiler.lock': null,
    'profiler.heapSnapshot': null,
  },
  stopping: {
    'profiler.start': null,
    'profiler.stop': PROFILER_ERROR_NOT_RUNNING,
    'profiler.memory': null,
    'profiler.lock': null,
    'profiler.heapSnapshot': null,
  },
}

describe('profiler machine (pure steps)', () => {
  it('starts idle and ready with JSON-safe context', () => {
    const s = initial({ label: 'node' })
    assert.deepEqual(s.value, { cpu: 'idle', snapshot: 'ready' })
    assert.equal(s.context.label, 'node')
    assert.equal(s.context.queueLimit, 16)
    assert.deepEqual(JSON.parse(JSON.stringify(s.context)), s.context)
  })

  const all = states()
  for (const [name, s] of Object.entries(all)) {
    const cpuState = name.split('/')[0] as string
    for (const type of Object.keys(expected[cpuState] ?? {}) as Command[]) {
      it(`${name} answers ${type} exactly once`, () => {
        const [next, immediate] = step(s, command(type, 'cmd'))
        const [settled, later] = settle(next)
        const mine = [...immediate, ...later].filter((r) => r.requestId === 'cmd')
        const message = expected[cpuState]?.[type] ?? null
        assert.deepEqual(mine, [message === null ? ok('cmd') : err('cmd', message)])
        // refusals come at once, in the same step
        if (message !== null) assert.deepEqual(immediate, [err('cmd', message)])
        // every other request in flight got exactly one reply too
        const ids = [...immediate, ...later].map((r) => r.requestId)
        assert.equal(new Set(ids).size, ids.length)
        assert.ok(settled.matches({ snapshot: 'ready' }))
        assert.deepEqual(JSON.parse(JSON.stringify(settled.context)), settled.context)
      })
    }
  }

  it('start -> starting -> running, replying {} once started', () => {
    const [s1, r1, spawn1] = step(initial(), command('profiler.start', 'a'))
    assert.deepEqual(s1.value, { cpu: 'starting', snapshot: 'ready' })
    assert.deepEqual(r1, [])
    assert.deepEqual(spawn1, ['startCpuProfile'])
    const [s2, r2] = step(s1, done('startCpuProfile'))
    assert.deepEqual(s2.value, { cpu: 'running', snapshot: 'ready' })
    assert.deepEqual(r2, [ok('a')])
    const [s3, r3, spawn3] = step(s2, command('profiler.stop', 'b'))
    assert.deepEqual(s3.value, { cpu: 'stopping', snapshot: 'ready' })
    assert.deepEqual(r3, [])
    assert.deepEqual(spawn3, ['stopCpuProfile'])
    const [s4, r4] = step(s3, done('stopCpuProfile'))
    assert.deepEqual(s4.value, { cpu: 'idle', snapshot: 'ready' })
    assert.deepEqual(r4, [ok('b')])
    assert.equal(s4.context.startRequest, null)
    assert.equal(s4.context.stopRequest, null)
  })

  it('a stop while starting waits for the start, then stops', () => {
    const [s1] = step(initial(), command('profiler.start', 'a'))
    const [s2, r2] = step(s1, command('profiler.stop', 'b'))
    assert.deepEqual(r2, [])
    assert.equal(s2.context.deferredStop, 'b')
    const [s3, r3] = step(s2, command('profiler.stop', 'c'))
    assert.deepEqual(r3, [err('c', PROFILER_ERROR_NOT_RUNNING)])
    const [s4, r4, spawn4] = step(s3, done('startCpuProfile'))
    assert.deepEqual(s4.value, { cpu: 'stopping', snapshot: 'ready' })
    assert.deepEqual(r4, [ok('a')])
    assert.deepEqual(spawn4, ['stopCpuProfile'])
    assert.equal(s4.context.stopRequest, 'b')
    assert.equal(s4.context.deferredStop, null)
    const [s5, r5] = step(s4, done('stopCpuProfile'))
    assert.deepEqual(s5.value, { cpu: 'idle', snapshot: 'ready' })
    assert.deepEqual(r5, [ok('b')])
  })

  it('a start while stopping waits for the stop, then starts again', () => {
    let [s] = step(initial(), command('profiler.start', 'a'))
    ;[s] = step(s, done('startCpuProfile'))
    ;[s] = step(s, command('profiler.stop', 'b'))
    const [s1, r1] = step(s, command('profiler.start', 'c'))
    assert.deepEqual(r1, [])
    assert.equal(s1.context.deferredStart, 'c')
    const [s2, r2] = step(s1, command('profiler.start', 'd'))
    assert.deepEqual(r2, [err('d', PROFILER_ERROR_ALREADY_RUNNING)])
    const [s3, r3, spawn3] = step(s2, done('stopCpuProfile'))
    assert.deepEqual(s3.value, { cpu: 'starting', snapshot: 'ready' })
    assert.deepEqual(r3, [ok('b')])
    assert.deepEqual(spawn3, ['startCpuProfile'])
    assert.equal(s3.context.startRequest, 'c')
    const [s4, r4] = step(s3, done('startCpuProfile'))
    assert.deepEqual(s4.value, { cpu: 'running', snapshot: 'ready' })
    assert.deepEqual(r4, [ok('c')])
  })

  it('a failed start replies its message, refuses the waiting stop and returns to idle', () => {
    let [s] = step(initial(), command('profiler.start', 'a'))
    ;[s] = step(s, command('profiler.stop', 'b'))
    const [s1, r1] = step(s, failed('startCpuProfile', 'EACCES: permission denied'))
    assert.deepEqual(s1.value, { cpu: 'idle', snapshot: 'ready' })
    assert.deepEqual(r1, [err('a', 'EACCES: permission denied'), err('b', PROFILER_ERROR_NOT_RUNNING)])
    assert.equal(s1.context.deferredStop, null)
    const [s2, r2] = step(s1, command('profiler.start', 'c'))
    assert.deepEqual(s2.value, { cpu: 'starting', snapshot: 'ready' })
    assert.deepEqual(r2, [])
  })

  it('a failed stop replies its message and the machine stays usable', () => {
    let [s] = step(initial(), command('profiler.start', 'a'))
    ;[s] = step(s, done('startCpuProfile'))
    ;[s] = step(s, command('profiler.stop', 'b'))
    const [s1, r1] = step(s, failed('stopCpuProfile', 'ENOSPC: no space left on device'))
    assert.deepEqual(s1.value, { cpu: 'idle', snapshot: 'ready' })
    assert.deepEqual(r1, [err('b', 'ENOSPC: no space left on device')])
    const [, r2] = step(s1, command('profiler.stop', 'c'))
    assert.deepEqual(r2, [err('c', PROFILER_ERROR_NOT_RUNNING)])
  })

  it('a failed stop with a start waiting goes on to start', () => {
    let [s] = step(initial(), command('profiler.start', 'a'))
    ;[s] = step(s, done('startCpuProfile'))
    ;[s] = step(s, command('profiler.stop', 'b'))
    ;[s] = step(s, command('profiler.start', 'c'))
    const [s1, r1, spawn1] = step(s, failed('stopCpuProfile', 'disk gone'))
    assert.deepEqual(s1.value, { cpu: 'starting', snapshot: 'ready' })
    assert.deepEqual(r1, [err('b', 'disk gone')])
    assert.deepEqual(spawn1, ['startCpuProfile'])
    const [, r2] = step(s1, done('startCpuProfile'))
    assert.deepEqual(r2, [ok('c')])
  })

  it('memory and lock requests are written in order, one reply each, whatever the cpu region does', () => {
    let [s] = step(initial(), command('profiler.start', 'cpu'))
    const [s1, r1, spawn1] = step(s, command('profiler.memory', 'm1'))
    assert.deepEqual(s1.value, { cpu: 'starting', snapshot: { writing: 'memory' } })
    assert.deepEqual(r1, [])
    assert.deepEqual(spawn1, ['writeMemoryProfile'])
    s = s1
    for (const [type, id] of [
      ['profiler.lock', 'l1'],
      ['profiler.memory', 'm2'],
      ['profiler.lock', 'l2'],
    ] as const) {
      const [next, r] = step(s, command(type, id))
      assert.deepEqual(r, [])
      s = next
    }
    assert.deepEqual(s.context.queue, [
      { kind: 'lock', requestId: 'l1' },
      { kind: 'memory', requestId: 'm2' },
      { kind: 'lock', requestId: 'l2' },
    ])
    const [s2, r2, spawn2] = step(s, done('writeMemoryProfile'))
    assert.deepEqual(r2, [ok('m1')])
    assert.deepEqual(spawn2, ['writeLockProfile'])
    assert.deepEqual(s2.value, { cpu: 'starting', snapshot: { writing: 'lock' } })
    const [s3, r3, spawn3] = step(s2, done('writeLockProfile'))
    assert.deepEqual(r3, [ok('l1')])
    assert.deepEqual(spawn3, ['writeMemoryProfile'])
    const [s4, r4, spawn4] = step(s3, failed('writeMemoryProfile', 'ENOSPC'))
    assert.deepEqual(r4, [err('m2', 'ENOSPC')])
    assert.deepEqual(spawn4, ['writeLockProfile'])
    const [s5, r5] = step(s4, done('writeLockProfile'))
    assert.deepEqual(r5, [ok('l2')])
    assert.deepEqual(s5.value, { cpu: 'starting', snapshot: 'ready' })
    assert.equal(s5.context.writing, null)
    assert.deepEqual(s5.context.queue, [])
  })

  it('two memory requests in a row write twice (the slot is invoked again)', () => {
    let [s] = step(initial(), command('profiler.memory', 'm1'))
    ;[s] = step(s, command('profiler.memory', 'm2'))
    const [s1, r1, spawn1] = step(s, done('writeMemoryProfile'))
    assert.deepEqual(r1, [ok('m1')])
    assert.deepEqual(spawn1, ['writeMemoryProfile'])
    assert.deepEqual(s1.value, { cpu: 'idle', snapshot: { writing: 'memory' } })
    const [, r2] = step(s1, done('writeMemoryProfile'))
    assert.deepEqual(r2, [ok('m2')])
  })

  it('a heap snapshot has its own slot and queues behind a memory profile', () => {
    let [s] = step(initial(), command('profiler.memory', 'm1'))
    const [s1, r1, spawn1] = step(s, command('profiler.heapSnapshot', 'h1'))
    assert.deepEqual(r1, [])
    assert.deepEqual(spawn1, [])
    assert.deepEqual(s1.context.queue, [{ kind: 'heapSnapshot', requestId: 'h1' }])
    const [s2, r2, spawn2] = step(s1, done('writeMemoryProfile'))
    assert.deepEqual(r2, [ok('m1')])
    assert.deepEqual(spawn2, ['writeHeapSnapshot'])
    assert.deepEqual(s2.value, { cpu: 'idle', snapshot: { writing: 'heapSnapshot' } })
    const [s3, r3] = step(s2, failed('writeHeapSnapshot', 'heap snapshot larger than 10 bytes'))
    assert.deepEqual(r3, [err('h1', 'heap snapshot larger than 10 bytes')])
    s = s3
    assert.deepEqual(s.value, { cpu: 'idle', snapshot: 'ready' })
  })

  it('the queue is bounded: past queueLimit requests are refused at once', () => {
    let [s] = step(initial({ queueLimit: 2 }), command('profiler.lock', 'w'))
    ;[s] = step(s, command('profiler.memory', 'q1'))
    ;[s] = step(s, command('profiler.lock', 'q2'))
    const [s1, r1] = step(s, command('profiler.memory', 'q3'))
    assert.deepEqual(r1, [err('q3', PROFILER_ERROR_QUEUE_FULL)])
    assert.equal(s1.context.queue.length, 2)
    const [s2, r2] = settle(s1)
    assert.deepEqual(r2, [ok('w'), ok('q1'), ok('q2')])
    assert.deepEqual(s2.value, { cpu: 'idle', snapshot: 'ready' })
  })

  it('the default bound is 16 queued requests', () => {
    let [s] = step(initial(), command('profiler.memory', 'w'))
    for (let i = 0; i < 16; i++) {
      const [next, r] = step(s, command('profiler.lock', `q${i}`))
      assert.deepEqual(r, [])
      s = next
    }
    const [, r] = step(s, command('profiler.lock', 'q16'))
    assert.deepEqual(r, [err('q16', PROFILER_ERROR_QUEUE_FULL)])
  })
})

describe('profiler machine (running actor)', () => {
  it('runs with provided IO and answers through emitted replies', async () => {
    const calls: string[] = []
    const fake = (name: string) =>
      fromPromise<void, ProfilerSlotInput>(async () => {
        calls.push(name)
      })
    const actor = createActor(
      profilerMachine.provide({
        actors: {
          startCpuProfile: fake('start'),
          stopCpuProfile: fake('stop'),
          writeMemoryProfile: fake('memory'),
          writeLockProfile: fromPromise<void, ProfilerSlotInput>(async () => {
            throw new Error('lock profile failed')
          }),
        },
      }),
      { input: { label: 'test' } },
    )
    const got: Reply[] = []
    actor.on('reply', (r) => got.push(r))
    actor.start()
    actor.send({ type: 'profiler.start', requestId: 'a' })
    actor.send({ type: 'profiler.stop', requestId: 'b' })
    actor.send({ type: 'profiler.memory', requestId: 'c' })
    actor.send({ type: 'profiler.lock', requestId: 'd' })
    await waitFor(actor, (s) => s.matches({ cpu: 'idle', snapshot: 'ready' }) && got.length === 4, { timeout: 5000 })
    assert.deepEqual(calls.sort(), ['memory', 'start', 'stop'])
    assert.deepEqual(
      got.sort((x, y) => x.requestId.localeCompare(y.requestId)),
      [ok('a'), ok('b'), ok('c'), err('d', 'lock profile failed')],
    )
    actor.stop()
  })

  it('an IO slot that was not provided fails loudly', async () => {
    const actor = createActor(profilerMachine, { input: {} })
    const got: Reply[] = []
    actor.on('reply', (r) => got.push(r))
    actor.start()
    actor.send({ type: 'profiler.start', requestId: 'a' })
    await waitFor(actor, () => got.length === 1, { timeout: 5000 })
    assert.deepEqual(got, [err('a', 'startCpuProfile was not provided')])
    assert.deepEqual(actor.getSnapshot().value, { cpu: 'idle', snapshot: 'ready' })
    actor.stop()
  })
})
