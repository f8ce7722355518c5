import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createHeapSampler, devtoolsName } from '../../../../src/profiling/heap-sampler.js'

interface SamplingNode {
  callFrame: { functionName: string; url: string }
  selfSize: number
  id: number
  children: SamplingNode[]
}
interface SamplingProfile {
  head: SamplingNode
  samples: { size: number; nodeId: number; ordinal: number }[]
}

/** every function name in the profile's tree */
const names = (n: SamplingNode, out = new Set<string>()): Set<string> => {
  out.add(n.callFrame.functionName)
  for (const c of n.children) names(c, out)
  return out
}

describe('heap sampler (V8 sampling heap profiler)', () => {
  let root = ''
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'firn-heap-sampler-'))
  })
  after(async () => {
    await rm(root, { recursive: true, force: true })
  })

  it('names the DevTools twin by the .heapprofile extension', () => {
    assert.equal(devtoolsName('mem.profile'), 'mem.heapprofile')
    assert.equal(devtoolsName('C.heapsnapshot'), 'C.heapprofile')
    assert.equal(devtoolsName('mem'), 'mem.heapprofile')
    assert.equal(devtoolsName('x.heapprofile'), 'x.heapprofile')
  })

  it('writes what was allocated since start, by allocating stack, as a .heapprofile', async (t) => {
    const sampler = createHeapSampler({ intervalBytes: 4096 })
    t.after(() => sampler.close())
    await sampler.start()
    // keep objects alive from a named function, so the profile must show it
    const kept: string[][] = []
    function allocateForTheSamplerTest(): void {
      for (let i = 0; i < 2_000; i++) kept.push([`row ${i} `.repeat(20)])
    }
    allocateForTheSamplerTest()
    const dir = join(root, 'profiles')
    const path = await sampler.write(dir)
    assert.equal(path, join(dir, 'mem.profile'))
    assert.equal((await stat(path)).mode & 0o777, 0o640)
    const text = await readFile(path, 'utf8')
    assert.equal(await readFile(join(dir, 'mem.heapprofile'), 'utf8'), text)
    const profile = JSON.parse(text) as SamplingProfile
    assert.equal(profile.head.callFrame.functionName, '(root)')
    assert.ok(profile.samples.length > 0)
    assert.ok(names(profile.head).has('allocateForTheSamplerTest'))
    assert.ok(kept.length > 0)
  })

  it('resumes when another session in the process stopped the shared sampler', async (t) => {
    const a = createHeapSampler({ intervalBytes: 4096 })
    const b = createHeapSampler({ intervalBytes: 4096 })
    t.after(async () => {
      await a.close()
      await b.close()
    })
    await a.start()
    await b.start()
    await b.close() // stops V8's one sampler for everyone
    const path = await a.write(join(root, 'resumed'), 'x.profile')
    const profile = JSON.parse(await readFile(path, 'utf8')) as SamplingProfile
    assert.equal(profile.head.callFrame.functionName, '(root)')
    await assert.rejects(b.write(join(root, 'resumed')), { message: 'heap sampler is closed' })
  })
})
