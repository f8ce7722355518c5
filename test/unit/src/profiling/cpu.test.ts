import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createCpuProfiler } from '../../../../src/profiling/cpu.js'

interface CpuProfileJson {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[]
  startTime: number
  endTime: number
  samples: number[]
  timeDeltas: number[]
}

/** Some CPU work for the sampler to see. */
function work(): number {
  let x = 0
  for (let i = 0; i < 2_000_000; i++) x = (x + Math.sqrt(i)) % 1_000_003
  return x
}

const readProfile = async (path: string): Promise<CpuProfileJson> =>
  JSON.parse(await readFile(path, 'utf8')) as CpuProfileJson

function assertCpuProfile(p: CpuProfileJson): void {
  assert.ok(Array.isArray(p.nodes) && p.nodes.length > 0)
  assert.equal(typeof p.nodes[0]?.callFrame.functionName, 'string')
  assert.equal(p.nodes[0]?.callFrame.functionName, '(root)')
  assert.ok(Array.isArray(p.samples))
  assert.ok(Array.isArray(p.timeDeltas))
  assert.equal(p.samples.length, p.timeDeltas.length)
  assert.equal(typeof p.startTime, 'number')
  assert.equal(typeof p.endTime, 'number')
  assert.ok(p.endTime >= p.startTime)
}

describe('cpu profiler', () => {
  let root = ''
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'firn-cpu-'))
  })
  after(async () => {
    await rm(root, { recursive: true, force: true })
  })

  it('creates cpu.profile at start and writes a V8 .cpuprofile at stop', async () => {
    const dir = join(root, 'a', 'profiles')
    const profiler = createCpuProfiler({ dir, samplingIntervalUs: 100 })
    assert.equal(profiler.isRunning, false)
    const path = await profiler.start()
    assert.equal(path, join(dir, 'cpu.profile'))
    assert.equal(profiler.isRunning, true)
    assert.equal((await stat(path)).size, 0)
    assert.equal((await stat(dir)).mode & 0o007, 0)
    assert.equal((await stat(path)).mode & 0o007, 0)
    work()
    assert.equal(await profiler.stop(), path)
    assert.equal(profiler.isRunning, false)
    const profile = await readProfile(path)
    assertCpuProfile(profile)
    assert.ok(profile.samples.length > 0)
    assert.ok(profile.nodes.some((n) => n.callFrame.functionName === 'work'))
  })

  it('answers with the reference texts when already running or not running', async () => {
    const profiler = createCpuProfiler({ dir: join(root, 'b'), name: 'x.cpuprofile' })
    await assert.rejects(profiler.stop(), { message: "cpu profiler doesn't exist" })
    await profiler.start()
    await assert.rejects(profiler.start(), { message: 'cpu profiler already running' })
    await profiler.stop()
    await assert.rejects(profiler.stop(), { message: "cpu profiler doesn't exist" })
    assertCpuProfile(await readProfile(join(root, 'b', 'x.cpuprofile')))
  })

  it('runs two profilers side by side (one inspector session each)', async () => {
    const one = createCpuProfiler({ dir: join(root, 'one') })
    const two = createCpuProfiler({ dir: join(root, 'two') })
    await Promise.all([one.start(), two.start()])
    work()
    await Promise.all([one.stop(), two.stop()])
    assertCpuProfile(await readProfile(join(root, 'one', 'cpu.profile')))
    assertCpuProfile(await readProfile(join(root, 'two', 'cpu.profile')))
  })

  it('serializes calls: a stop issued during start runs after it', async () => {
    const profiler = createCpuProfiler({ dir: join(root, 'c') })
    const [started, stopped] = await Promise.all([profiler.start(), profiler.stop()])
    assert.equal(started, stopped)
    assertCpuProfile(await readProfile(stopped))
  })

  it('close() keeps the running profile and is idempotent', async () => {
    const profiler = createCpuProfiler({ dir: join(root, 'd') })
    await profiler.start()
    await profiler.close()
    await profiler.close()
    assert.equal(profiler.isRunning, false)
    assertCpuProfile(await readProfile(join(root, 'd', 'cpu.profile')))
  })

  it('refuses a file name that is a path', async () => {
    const profiler = createCpuProfiler({ dir: join(root, 'e'), name: '../escape.profile' })
    await assert.rejects(profiler.start(), { message: 'invalid profile file name: "../escape.profile"' })
    assert.equal(profiler.isRunning, false)
  })
})
