/**
 * Profiles that never stall (issue 14 item 5), against a real `firn --dev` process: `admin.memoryProfile` writes
 * V8's sampling heap profile (`<profile-dir>/mem.profile` and its DevTools twin `mem.heapprofile`) while other
 * calls keep answering; the full snapshot only through Firn's `admin.heapSnapshot`; `admin.stacktrace` writes
 * into the profile directory and nothing appears in the working directory.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type FirnProcess, rpc, startFirn } from '../helpers/firn-process.js'

interface SamplingNode {
  callFrame: { functionName: string; url: string }
  selfSize: number
  id: number
  children: SamplingNode[]
}

/** every node of a sampling profile's tree, with the structure DevTools reads */
function walk(n: SamplingNode, out: SamplingNode[] = []): SamplingNode[] {
  assert.equal(typeof n.id, 'number')
  assert.equal(typeof n.selfSize, 'number')
  assert.equal(typeof n.callFrame.functionName, 'string')
  assert.ok(Array.isArray(n.children))
  out.push(n)
  for (const c of n.children) walk(c, out)
  return out
}

describe('profiles on a dev node', () => {
  let node: FirnProcess
  let cwd = ''
  let nodeId = ''
  before(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'firn-cwd-'))
    node = await startFirn({ args: ['--dev'], cwd })
    nodeId = ((await node.rpc('/ext/info', 'info.getNodeID')).body.result as { nodeID: string }).nodeID
  })
  after(async () => {
    await node?.cleanup()
    await rm(cwd, { recursive: true, force: true })
  })

  const admin = async (method: string) => {
    const r = await node.rpc('/ext/admin', method)
    assert.equal(r.body.error, undefined, `${method}: ${JSON.stringify(r.body.error)}`)
    return r.body.result
  }
  const profiles = () => join(node.dataDir, 'profiles')

  it('memoryProfile answers while info.getNodeID calls made meanwhile keep answering', async () => {
    const events: string[] = []
    // five profiles back to back, and a stream of info calls started with them
    const profiling = (async () => {
      for (let i = 0; i < 5; i++) {
        assert.deepEqual(await admin('admin.memoryProfile'), {})
        events.push(`profile ${i}`)
      }
    })()
    let done = false
    void profiling.finally(() => {
      done = true
    })
    let calls = 0
    const infoCalls = (async () => {
      while (!done || calls < 5) {
        const burst = await Promise.all(Array.from({ length: 4 }, () => rpc(`${node.url}/ext/info`, 'info.getNodeID')))
        for (const r of burst) {
          assert.equal(r.status, 200)
          assert.equal((r.body.result as { nodeID: string }).nodeID, nodeId)
        }
        calls += burst.length
        events.push(`info ${calls}`)
      }
    })()
    await Promise.all([profiling, infoCalls])
    // every profile was answered, in order, and info calls were answered while they ran and after
    assert.deepEqual(
      events.filter((e) => e.startsWith('profile')),
      ['profile 0', 'profile 1', 'profile 2', 'profile 3', 'profile 4'],
    )
    assert.ok(calls >= 5)
    assert.ok(events.indexOf('profile 4') < events.length - 1, 'an info answer came after the last profile')
  })

  it('the memory profile is a V8 sampling heap profile DevTools loads (JSON with head)', async () => {
    assert.deepEqual(await admin('admin.memoryProfile'), {})
    const text = await readFile(join(profiles(), 'mem.profile'), 'utf8')
    const profile = JSON.parse(text) as { head: SamplingNode; samples: { size: number; nodeId: number }[] }
    assert.equal(profile.head.callFrame.functionName, '(root)')
    const nodes = walk(profile.head)
    assert.ok(profile.samples.length > 0, 'the node has allocated since it started')
    const ids = new Set(nodes.map((n) => n.id))
    for (const s of profile.samples) {
      assert.ok(s.size > 0)
      assert.ok(ids.has(s.nodeId), 'every sample points at a node of the tree')
    }
    // the node's own code shows up in the tree
    assert.ok(nodes.some((n) => n.callFrame.url.includes('/src/')))
    // the same bytes under the extension DevTools' Memory tab loads
    assert.equal(await readFile(join(profiles(), 'mem.heapprofile'), 'utf8'), text)
  })

  it('a full heap snapshot only through admin.heapSnapshot', async () => {
    assert.deepEqual(await admin('admin.heapSnapshot'), {})
    const text = await readFile(join(profiles(), 'mem.heapsnapshot'), 'utf8')
    const snapshot = JSON.parse(text) as { snapshot: { meta: { node_fields: string[] }; node_count: number } }
    assert.ok(snapshot.snapshot.meta.node_fields.includes('name'))
    assert.ok(snapshot.snapshot.node_count > 0)
  })

  it('stacktrace lands in the profile dir and nothing appears in the working directory', async () => {
    assert.deepEqual(await admin('admin.stacktrace'), {})
    const text = await readFile(join(profiles(), 'stacktrace.txt'), 'utf8')
    assert.match(text, /== actors ==/)
    assert.match(text, /== javascript stack \(main thread\) ==/)
    assert.deepEqual(await readdir(cwd), [])
    assert.deepEqual((await readdir(profiles())).sort(), [
      'mem.heapprofile',
      'mem.heapsnapshot',
      'mem.profile',
      'stacktrace.txt',
    ])
  })
})
