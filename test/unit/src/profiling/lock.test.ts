import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { assign, createActor, setup } from 'xstate'
import { createEventLoopMonitor } from '../../../../src/profiling/event-loop.js'
import { type LockSources, lockProfile, writeLockProfile } from '../../../../src/profiling/lock.js'
import { createMailboxStats } from '../../../../src/profiling/mailbox-stats.js'

const counter = setup({ types: { context: {} as { n: number }, events: {} as { type: 'inc' } } }).createMachine({
  context: { n: 0 },
  on: { inc: { actions: assign({ n: ({ context }) => context.n + 1 }) } },
})

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

function assertNumbers(obj: unknown, keys: string[]): void {
  assert.ok(typeof obj === 'object' && obj !== null)
  assert.deepEqual(Object.keys(obj).sort(), [...keys].sort())
  for (const k of keys) {
    const v = (obj as Record<string, unknown>)[k]
    assert.ok(typeof v === 'number' && Number.isFinite(v) && v >= 0, `${k} = ${String(v)}`)
  }
}

describe('lock profile', () => {
  let root = ''
  let sources: LockSources
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'firn-lock-'))
    sources = { eventLoop: createEventLoopMonitor(1), mailbox: createMailboxStats() }
  })
  after(async () => {
    sources.eventLoop.close()
    await rm(root, { recursive: true, force: true })
  })

  it('writes the documented firn-lock-profile/1 document', async () => {
    const actor = createActor(counter, { id: 'counter', systemId: 'profiler', inspect: sources.mailbox.observe })
    actor.start()
    for (let i = 0; i < 10; i++) actor.send({ type: 'inc' })
    actor.stop()
    sources.mailbox.recordAsk('profiler', 1.5)
    const dir = join(root, 'profiles')
    const path = await writeLockProfile(dir, undefined, sources)
    assert.equal(path, join(dir, 'lock.profile'))
    assert.equal((await stat(path)).mode & 0o007, 0)
    const doc = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>
    assert.deepEqual(Object.keys(doc), [
      'format',
      'createdAt',
      'uptimeSeconds',
      'eventLoopDelayMs',
      'eventLoopUtilization',
      'actors',
      'asks',
    ])
    assert.equal(doc['format'], 'firn-lock-profile/1')
    assert.match(String(doc['createdAt']), RFC3339)
    assert.ok(Math.abs(Date.parse(String(doc['createdAt'])) - Date.now()) < 60_000)
    assert.ok(typeof doc['uptimeSeconds'] === 'number' && doc['uptimeSeconds'] >= 0)
    assertNumbers(doc['eventLoopDelayMs'], ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99', 'p999', 'count'])
    assertNumbers(doc['eventLoopUtilization'], ['utilization', 'activeMs', 'idleMs'])
    const actors = doc['actors'] as Record<string, Record<string, number>>
    assertNumbers(actors['profiler'], ['events', 'meanMs', 'p50Ms', 'p99Ms', 'maxMs'])
    assert.equal(actors['profiler']?.['events'], 10)
    const asks = doc['asks'] as Record<string, Record<string, number>>
    assert.deepEqual(asks, { profiler: { calls: 1, meanMs: 1.5, p50Ms: 1.5, p99Ms: 1.5, maxMs: 1.5 } })
  })

  it('the event-loop figures are ordered and utilization is a ratio', () => {
    const profile = lockProfile(sources, new Date('2025-01-02T03:04:05.678Z'))
    assert.equal(profile.createdAt, '2025-01-02T03:04:05.678Z')
    const d = profile.eventLoopDelayMs
    if (d.count > 0) {
      assert.ok(d.min <= d.p50 && d.p50 <= d.p90 && d.p90 <= d.p99 && d.p99 <= d.p999 && d.p999 <= d.max)
    } else {
      assert.deepEqual(d, { min: 0, max: 0, mean: 0, stddev: 0, p50: 0, p90: 0, p99: 0, p999: 0, count: 0 })
    }
    assert.ok(profile.eventLoopUtilization.utilization >= 0 && profile.eventLoopUtilization.utilization <= 1)
  })

  it('refuses a file name that is a path', async () => {
    await assert.rejects(writeLockProfile(root, 'a/b', sources), { message: 'invalid profile file name: "a/b"' })
  })
})
