import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { access, mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { writeHeapSnapshot } from '../../../../src/profiling/heap.js'

interface HeapSnapshotJson {
  snapshot: { meta: { node_fields: string[]; edge_fields: string[] }; node_count: number; edge_count: number }
  nodes: number[]
  edges: number[]
  strings: string[]
}

describe('heap profile', () => {
  let root = ''
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'firn-heap-'))
  })
  after(async () => {
    await rm(root, { recursive: true, force: true })
  })

  it('writes a V8 heap snapshot to <dir>/mem.heapsnapshot', async () => {
    const dir = join(root, 'profiles')
    const path = await writeHeapSnapshot(dir)
    assert.equal(path, join(dir, 'mem.heapsnapshot'))
    assert.equal((await stat(dir)).mode & 0o007, 0)
    const snapshot = JSON.parse(await readFile(path, 'utf8')) as HeapSnapshotJson
    assert.ok(snapshot.snapshot.meta)
    assert.ok(snapshot.snapshot.meta.node_fields.includes('name'))
    assert.ok(snapshot.snapshot.node_count > 0)
    assert.equal(snapshot.nodes.length, snapshot.snapshot.node_count * snapshot.snapshot.meta.node_fields.length)
    assert.equal(snapshot.edges.length, snapshot.snapshot.edge_count * snapshot.snapshot.meta.edge_fields.length)
    assert.ok(snapshot.strings.length > 0)
  })

  it('gives up past the size cap and removes the partial file', async () => {
    const path = join(root, 'capped', 'small.heapsnapshot')
    await assert.rejects(writeHeapSnapshot(join(root, 'capped'), 'small.heapsnapshot', { maxBytes: 1000 }), {
      message: 'heap snapshot larger than 1000 bytes',
    })
    await assert.rejects(access(path), { code: 'ENOENT' })
  })
})
