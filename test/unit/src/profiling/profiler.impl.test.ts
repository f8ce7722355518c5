import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createActor } from 'xstate'
import { profilerMachine } from '../../../../actors/profiler/profiler.machine.js'
import { createEventLoopMonitor } from '../../../../src/profiling/event-loop.js'
import type { LockSources } from '../../../../src/profiling/lock.js'
import { createMailboxStats } from '../../../../src/profiling/mailbox-stats.js'
import { profilerImplementation } from '../../../../src/profiling/profiler.impl.js'
import { ask } from '../../../../src/runtime/ask.js'

describe('profiler machine with real profile writers', () => {
  let root = ''
  let sources: LockSources
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'firn-profiler-'))
    sources = { eventLoop: createEventLoopMonitor(), mailbox: createMailboxStats() }
  })
  after(async () => {
    sources.eventLoop.close()
    await rm(root, { recursive: true, force: true })
  })

  it('serves start, memory, lock and stop through ask, writing the files', async () => {
    const dir = join(root, 'node')
    const io = profilerImplementation({ dir, lockSources: sources })
    const actor = createActor(profilerMachine.provide(io.implementation), {
      systemId: 'profiler',
      input: { label: 'node' },
      inspect: sources.mailbox.observe,
    }).start()
    const opts = { timeoutMs: 60_000, stats: sources.mailbox }

    assert.deepEqual(await ask(actor, { type: 'profiler.start' }, opts), {})
    assert.equal((await stat(join(dir, 'cpu.profile'))).size, 0)
    await assert.rejects(ask(actor, { type: 'profiler.start' }, opts), {
      code: -32000,
      message: 'cpu profiler already running',
      data: null,
    })
    const [memory, lock, snapshot] = await Promise.all([
      ask(actor, { type: 'profiler.memory' }, opts),
      ask(actor, { type: 'profiler.lock' }, opts),
      ask(actor, { type: 'profiler.heapSnapshot' }, opts),
    ])
    assert.deepEqual([memory, lock, snapshot], [{}, {}, {}])
    assert.deepEqual(await ask(actor, { type: 'profiler.stop' }, opts), {})
    await assert.rejects(ask(actor, { type: 'profiler.stop' }, opts), {
      code: -32000,
      message: "cpu profiler doesn't exist",
      data: null,
    })

    const cpu = JSON.parse(await readFile(join(dir, 'cpu.profile'), 'utf8')) as { nodes: unknown[]; samples: unknown[] }
    assert.ok(cpu.nodes.length > 0 && Array.isArray(cpu.samples))
    const sampled = await readFile(join(dir, 'mem.profile'), 'utf8')
    const heap = JSON.parse(sampled) as { head: { callFrame: { functionName: string } }; samples: unknown[] }
    assert.equal(heap.head.callFrame.functionName, '(root)')
    assert.ok(Array.isArray(heap.samples))
    assert.equal(await readFile(join(dir, 'mem.heapprofile'), 'utf8'), sampled)
    const full = JSON.parse(await readFile(join(dir, 'mem.heapsnapshot'), 'utf8')) as { snapshot: { meta: unknown } }
    assert.ok(full.snapshot.meta)
    const lockDoc = JSON.parse(await readFile(join(dir, 'lock.profile'), 'utf8')) as {
      format: string
      actors: Record<string, { events: number }>
      asks: Record<string, { calls: number }>
    }
    assert.equal(lockDoc.format, 'firn-lock-profile/1')
    assert.ok((lockDoc.actors['profiler']?.events ?? 0) >= 4)
    assert.ok((lockDoc.asks['profiler']?.calls ?? 0) >= 3)
    actor.stop()
    await io.close()
  })

  it('uses the given file names, its own event-loop monitor, and close() keeps a running profile', async () => {
    const dir = join(root, 'chain-C')
    const io = profilerImplementation({
      dir,
      files: { cpu: 'C.cpuprofile', memory: 'C.heapsnapshot', lock: 'C.lock.json' },
      lockSources: { mailbox: createMailboxStats() },
    })
    const actor = createActor(profilerMachine.provide(io.implementation), { input: { label: 'C' } }).start()
    await ask(actor, { type: 'profiler.start' })
    await ask(actor, { type: 'profiler.lock' })
    actor.stop()
    await io.close()
    await io.close()
    const cpu = JSON.parse(await readFile(join(dir, 'C.cpuprofile'), 'utf8')) as { nodes: unknown[] }
    assert.ok(cpu.nodes.length > 0)
    const lockDoc = JSON.parse(await readFile(join(dir, 'C.lock.json'), 'utf8')) as {
      format: string
      eventLoopDelayMs: { count: number }
      actors: Record<string, unknown>
    }
    assert.equal(lockDoc.format, 'firn-lock-profile/1')
    assert.equal(typeof lockDoc.eventLoopDelayMs.count, 'number')
    assert.deepEqual(lockDoc.actors, {})
  })
})
