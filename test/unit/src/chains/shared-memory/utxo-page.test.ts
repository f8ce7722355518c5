/**
 * getAtomicUtxos: the page getUTXOs answers (avax.GetAtomicUTXOs): addresses as a set, the zero start point,
 * the end point with its zero fallbacks, and coreth's limit rule.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { SharedMemory } from '../../../../../src/chains/shared-memory/shared-memory.js'
import { clampUtxoLimit, getAtomicUtxos } from '../../../../../src/chains/shared-memory/utxo-page.js'
import { type Database, openDatabase } from '../../../../../src/db/open.js'

let db: Database | undefined
let dir = ''
after(async () => {
  await db?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

const id32 = (n: number) => {
  const b = new Uint8Array(32)
  new DataView(b.buffer).setUint32(0, n)
  return b
}
const addr = (n: number) => {
  const b = new Uint8Array(20)
  new DataView(b.buffer).setUint32(0, n)
  return b
}
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
const X = id32(7)
const C = id32(9)

describe('getAtomicUtxos', () => {
  it('pages with the zero start point, a set of addresses and the end point', async () => {
    dir = await mkdtemp(join(tmpdir(), 'firn-utxo-page-'))
    db = await openDatabase({ type: 'leveldb', path: dir })
    const sm = new SharedMemory(db)
    for (const n of [1, 2, 3]) {
      await sm.apply(X, new Map([[C, { putRequests: [{ key: id32(n), value: Uint8Array.of(n), traits: [addr(1)] }] }]]))
    }
    const page = await getAtomicUtxos(sm, C, X, [addr(1), addr(1)], undefined, undefined, 2)
    assert.deepEqual(page.utxos.map(hex), ['03', '02'])
    assert.deepEqual(page.utxoIds.map(hex), [id32(3), id32(2)].map(hex))
    assert.equal(hex(page.endAddress), hex(addr(1)))
    assert.equal(hex(page.endUtxoId), hex(id32(2)))
    const next = await getAtomicUtxos(sm, C, X, [addr(1)], page.endAddress, page.endUtxoId, 2)
    assert.deepEqual(next.utxos.map(hex), ['02', '01'])
    // nothing there: the zero ID, the highest address scanned
    const none = await getAtomicUtxos(sm, C, X, [addr(4), addr(2)])
    assert.deepEqual(none.utxos, [])
    assert.equal(hex(none.endAddress), hex(addr(4)))
    assert.equal(hex(none.endUtxoId), hex(new Uint8Array(32)))
    // the other direction holds nothing
    assert.deepEqual((await getAtomicUtxos(sm, X, C, [addr(1)])).utxos, [])
  })

  it("clamps the limit as coreth's getUTXOs does", () => {
    assert.equal(clampUtxoLimit(0), 1024)
    assert.equal(clampUtxoLimit(-5), 1024)
    assert.equal(clampUtxoLimit(1025), 1024)
    assert.equal(clampUtxoLimit(1), 1)
    assert.equal(clampUtxoLimit(1024), 1024)
  })
})
