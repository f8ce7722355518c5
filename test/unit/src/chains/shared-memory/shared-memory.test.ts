/**
 * Shared memory on a real LevelDB in a temp dir: what chain A puts for B is what B reads from A (and only B),
 * the reference's put/remove rules and texts, writes staged into a caller's batch (all or nothing), the paging of
 * getUTXOs (traits ascending, newest first, inclusive start, duplicates, limits), a restart, seeding once, and a
 * page of 1,024 out of 10,000 UTXOs of one address (the time printed, not asserted).
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { sha256 } from '@noble/hashes/sha2.js'
import { sharedId } from '../../../../../src/chains/shared-memory/keys.js'
import { seedOnce } from '../../../../../src/chains/shared-memory/seed.js'
import { type Element, SharedMemory } from '../../../../../src/chains/shared-memory/shared-memory.js'
import { type Database, openDatabase } from '../../../../../src/db/open.js'
import { idToString } from '../../../../../src/identity/ids.js'

const dirs: string[] = []
const open: Database[] = []
after(async () => {
  for (const db of open) await db.close().catch(() => undefined)
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

async function freshDb(): Promise<{ db: Database; path: string }> {
  const path = await mkdtemp(join(tmpdir(), 'firn-shared-memory-'))
  dirs.push(path)
  const db = await openDatabase({ type: 'leveldb', path })
  open.push(db)
  return { db, path }
}

/** n-th 32-byte chain ID / key, 20-byte address */
const id32 = (n: number, tag = 0) => {
  const b = new Uint8Array(32)
  new DataView(b.buffer).setUint32(0, n)
  b[31] = tag
  return b
}
const addr = (n: number) => {
  const b = new Uint8Array(20)
  new DataView(b.buffer).setUint32(0, n)
  return b
}
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
const val = (s: string) => new TextEncoder().encode(s)
const text = (b: Uint8Array) => new TextDecoder().decode(b)

const X = id32(1, 0xaa)
const C = id32(2, 0xcc)
const D = id32(3, 0xdd)

function el(key: Uint8Array, value: string, ...traits: Uint8Array[]): Element {
  return { key, value: val(value), traits }
}

describe('sharedId', () => {
  it('is sha256(u16 0 ‖ smaller ‖ larger), the same from both chains', () => {
    const expected = sha256(Uint8Array.from([0, 0, ...X, ...C]))
    assert.equal(hex(sharedId(X, C)), hex(expected))
    assert.equal(hex(sharedId(C, X)), hex(expected))
    assert.equal(hex(sharedId(idToString(C), idToString(X))), hex(expected))
  })
})

describe('SharedMemory put / get / remove', () => {
  it('what A puts for B only B reads from A, in both directions of the pair', async () => {
    const { db } = await freshDb()
    const sm = new SharedMemory(db)
    const k = id32(100)
    await sm.apply(X, new Map([[C, { putRequests: [el(k, 'x-to-c', addr(1))] }]]))
    await sm.apply(C, { [idToString(X)]: { putRequests: [el(k, 'c-to-x', addr(1))] } })
    assert.deepEqual((await sm.get(C, X, [k])).map(text), ['x-to-c'])
    assert.deepEqual((await sm.get(X, C, [k])).map(text), ['c-to-x'])
    // D shares nothing with X
    await assert.rejects(sm.get(D, X, [k]), { message: 'not found' })
    await assert.rejects(sm.get(C, D, [k]), { message: 'not found' })
    const page = await sm.indexed(C, X, [addr(1)], undefined, undefined, 10)
    assert.deepEqual(page.values.map(text), ['x-to-c'])
    // C consumes what X put for it; X's view of what C put is untouched
    await sm.apply(C, new Map([[X, { removeRequests: [k] }]]))
    await assert.rejects(sm.get(C, X, [k]), { message: 'not found' })
    assert.deepEqual((await sm.get(X, C, [k])).map(text), ['c-to-x'])
    assert.equal((await sm.indexed(C, X, [addr(1)], undefined, undefined, 10)).values.length, 0)
    assert.equal((await sm.indexed(X, C, [addr(1)], undefined, undefined, 10)).values.length, 1)
  })

  it('get answers all keys in order or `not found`', async () => {
    const { db } = await freshDb()
    const sm = new SharedMemory(db)
    await sm.apply(X, new Map([[C, { putRequests: [el(id32(1), 'one'), el(id32(2), 'two')] }]]))
    assert.deepEqual((await sm.get(C, X, [id32(2), id32(1)])).map(text), ['two', 'one'])
    assert.deepEqual(await sm.get(C, X, []), [])
    await assert.rejects(sm.get(C, X, [id32(1), id32(3)]), { message: 'not found' })
  })

  it("the reference's rules: duplicate put fails, a remove before the put leaves a marker the put cancels", async () => {
    const { db } = await freshDb()
    const sm = new SharedMemory(db)
    const k = Uint8Array.of(0xab, 0x01)
    await sm.apply(X, new Map([[C, { putRequests: [el(k, 'v', addr(1))] }]]))
    await assert.rejects(sm.apply(X, new Map([[C, { putRequests: [el(k, 'w', addr(1))] }]])), {
      message: 'duplicate put: Key=0xab01 Value=0x77',
    })
    // C removes a key X has not put yet: no error, a marker
    const early = Uint8Array.of(0x0e)
    await sm.apply(C, new Map([[X, { removeRequests: [early] }]]))
    await assert.rejects(sm.apply(C, new Map([[X, { removeRequests: [early] }]])), {
      message: 'duplicate remove: Key=0x0e',
    })
    // the put cancels the marker and stores nothing
    await sm.apply(X, new Map([[C, { putRequests: [el(early, 'late', addr(1))] }]]))
    await assert.rejects(sm.get(C, X, [early]), { message: 'not found' })
    assert.deepEqual((await sm.indexed(C, X, [addr(1)], undefined, undefined, 10)).values.map(text), ['v'])
    // and now the key is free again
    await sm.apply(X, new Map([[C, { putRequests: [el(early, 'again', addr(1))] }]]))
    assert.deepEqual((await sm.get(C, X, [early])).map(text), ['again'])
    // a remove of a present key, then of the same (now absent) key, is a marker again, not an error
    await sm.apply(C, new Map([[X, { removeRequests: [k] }]]))
    await sm.apply(C, new Map([[X, { removeRequests: [k] }]]))
    await assert.rejects(sm.apply(C, new Map([[X, { removeRequests: [k] }]])), {
      message: 'duplicate remove: Key=0xab01',
    })
  })

  it('a duplicate within one request fails too (later puts see earlier ones)', async () => {
    const { db } = await freshDb()
    const sm = new SharedMemory(db)
    const k = id32(5)
    await assert.rejects(
      sm.apply(X, new Map([[C, { putRequests: [el(k, 'a'), el(k, 'b')] }]])),
      /^FirnError: duplicate put/,
    )
    await assert.rejects(sm.get(C, X, [k]), { message: 'not found' })
  })

  it('removing an element takes it out of every trait it was indexed by', async () => {
    const { db } = await freshDb()
    const sm = new SharedMemory(db)
    const k = id32(9)
    await sm.apply(X, new Map([[C, { putRequests: [el(k, 'multi', addr(1), addr(2), addr(3))] }]]))
    const all = [addr(1), addr(2), addr(3)]
    assert.equal((await sm.indexed(C, X, all, undefined, undefined, 10)).values.length, 1)
    await sm.apply(C, new Map([[X, { removeRequests: [k] }]]))
    for (const a of all) assert.equal((await sm.indexed(C, X, [a], undefined, undefined, 10)).keys.length, 0)
    const count = await countKeys(sm)
    assert.equal(count, 1, 'only the insertion counter is left')
  })
})

async function countKeys(sm: SharedMemory): Promise<number> {
  let n = 0
  for await (const _ of sm.sublevel.keys()) n++
  return n
}

describe("the reference's TestSharedMemoryIndexed (chains/atomic/atomictest)", () => {
  it('answers as the reference does, one-byte keys and traits, nil start', async () => {
    const { db } = await freshDb()
    const sm = new SharedMemory(db)
    const b = (...x: number[]) => Uint8Array.from(x)
    await sm.apply(X, new Map([[C, { putRequests: [{ key: b(0), value: b(1), traits: [b(2), b(3)] }] }]]))
    await sm.apply(X, new Map([[C, { putRequests: [{ key: b(4), value: b(5), traits: [b(2), b(3)] }] }]]))
    const values = async (me: Uint8Array, peer: Uint8Array, traits: Uint8Array[], limit: number) =>
      (await sm.indexed(me, peer, traits, undefined, undefined, limit)).values.map(hex)
    assert.deepEqual(await values(X, C, [b(2)], 1), [])
    assert.deepEqual(await values(C, X, [b(2)], 0), [])
    assert.deepEqual(await values(C, X, [b(2)], 1), ['05'])
    assert.deepEqual(await values(C, X, [b(2)], 2), ['05', '01'])
    assert.deepEqual(await values(C, X, [b(2)], 3), ['05', '01'])
    assert.deepEqual(await values(C, X, [b(3)], 3), ['05', '01'])
    assert.deepEqual(await values(C, X, [b(2), b(3)], 3), ['05', '01'])
  })
})

describe('SharedMemory writes in the caller batch', () => {
  it('stages into a chained batch of the database, visible only when the batch is written with the rest', async () => {
    const { db } = await freshDb()
    const sm = new SharedMemory(db)
    const other = db.sublevel<Uint8Array, Uint8Array>('chains/test', { keyEncoding: 'view', valueEncoding: 'view' })
    await other.open()
    const k = id32(7)
    await sm.exclusive(async () => {
      const batch = other.batch()
      batch.put(val('block'), val('accepted'))
      await sm.apply(X, new Map([[C, { putRequests: [el(k, 'u', addr(1))] }]]), batch)
      await assert.rejects(sm.get(C, X, [k]), { message: 'not found' })
      await batch.write()
    })
    assert.deepEqual((await sm.get(C, X, [k])).map(text), ['u'])
    assert.equal(text((await other.get(val('block')))!), 'accepted')
  })

  it('stages into an array of operations for db.batch(ops)', async () => {
    const { db } = await freshDb()
    const sm = new SharedMemory(db)
    const ops: Parameters<SharedMemory['stageInto']>[1] = []
    await sm.apply(X, new Map([[C, { putRequests: [el(id32(1), 'a', addr(1))] }]]), ops)
    assert.ok(ops.length > 0)
    await assert.rejects(sm.get(C, X, [id32(1)]), { message: 'not found' })
    await db.batch(ops as never)
    assert.deepEqual((await sm.get(C, X, [id32(1)])).map(text), ['a'])
  })

  it('a request that fails stages nothing, whatever came before it in the same apply', async () => {
    const { db } = await freshDb()
    const sm = new SharedMemory(db)
    await sm.apply(D, new Map([[C, { putRequests: [el(id32(1), 'there', addr(1))] }]]))
    const before = await countKeys(sm)
    const requests = new Map([
      [X, { putRequests: [el(id32(2), 'fine', addr(1)), el(id32(3), 'fine too', addr(2))] }],
      [D, { putRequests: [el(id32(4), 'fine', addr(1))], removeRequests: [id32(5)] }],
      [C, { putRequests: [el(id32(1), 'again', addr(1))] }], // C -> D's own put: fine
    ])
    // make the C-side request fail: a second put of the key C already holds for D
    await sm.apply(C, new Map([[D, { putRequests: [el(id32(6), 'held', addr(1))] }]]))
    const held = await countKeys(sm)
    assert.ok(held > before)
    requests.set(D, { putRequests: [el(id32(6), 'dup', addr(1))], removeRequests: [id32(5)] })
    const ops: Parameters<SharedMemory['stageInto']>[1] = []
    await assert.rejects(sm.apply(C, requests, ops), {
      message: `duplicate put: Key=0x${hex(id32(6))} Value=0x${hex(val('dup'))}`,
    })
    assert.equal(ops.length, 0)
    const chained = db.batch()
    await assert.rejects(sm.apply(C, requests, chained), /duplicate put/)
    assert.equal(chained.length, 0)
    await chained.close()
    await assert.rejects(sm.apply(C, requests), /duplicate put/)
    assert.equal(await countKeys(sm), held)
    await assert.rejects(sm.get(X, C, [id32(2)]), { message: 'not found' })
  })

  it('refuses two requests for the same peer (bytes and CB58 of one chain)', async () => {
    const { db } = await freshDb()
    const sm = new SharedMemory(db)
    const requests = new Map<Uint8Array | string, { putRequests: Element[] }>([
      [X, { putRequests: [el(id32(1), 'a')] }],
      [idToString(X), { putRequests: [el(id32(2), 'b')] }],
    ])
    await assert.rejects(sm.apply(C, requests), {
      message: `shared memory: two requests for the peer chain ${idToString(X)}`,
    })
  })
})

/** Puts `n` elements X -> C for `a`, one apply each (insertion order = i). */
async function putMany(sm: SharedMemory, a: Uint8Array, keys: Uint8Array[], batchSize = 1) {
  for (let i = 0; i < keys.length; i += batchSize) {
    const putRequests = keys.slice(i, i + batchSize).map((k) => el(k, hex(k), a))
    await sm.apply(X, new Map([[C, { putRequests }]]))
  }
}

describe('SharedMemory.indexed: the paging of getUTXOs', () => {
  it('newest first within a trait, not by key', async () => {
    const { db } = await freshDb()
    const sm = new SharedMemory(db)
    // keys descending by bytes, inserted in that order; also several in one apply
    const keys = [id32(50), id32(40), id32(45), id32(10)]
    await putMany(sm, addr(1), keys.slice(0, 2))
    await putMany(sm, addr(1), keys.slice(2), 2)
    const page = await sm.indexed(C, X, [addr(1)], undefined, undefined, 10)
    assert.deepEqual(page.keys.map(hex), [id32(10), id32(45), id32(40), id32(50)].map(hex))
    assert.deepEqual(page.values.map(text), [id32(10), id32(45), id32(40), id32(50)].map(hex))
    assert.equal(hex(page.lastTrait!), hex(addr(1)))
    assert.equal(hex(page.lastKey!), hex(id32(50)))
  })

  it('traits ascending by bytes whatever order they are given in; duplicates counted once; limits', async () => {
    const { db } = await freshDb()
    const sm = new SharedMemory(db)
    const shared = id32(999)
    await putMany(sm, addr(2), [id32(20), id32(21)])
    await sm.apply(X, new Map([[C, { putRequests: [el(shared, 'both', addr(1), addr(2))] }]]))
    await putMany(sm, addr(1), [id32(10)])
    const traits = [addr(2), addr(1), addr(2)]
    const all = await sm.indexed(C, X, traits, undefined, undefined, 100)
    // addr(1): 10 (newest), shared; addr(2): shared (skipped), 21, 20
    assert.deepEqual(all.keys.map(hex), [id32(10), shared, id32(21), id32(20)].map(hex))
    assert.equal(hex(all.lastTrait!), hex(addr(2)))
    assert.equal(hex(all.lastKey!), hex(id32(20)))
    // limit stops inside addr(2); the skipped duplicate is not counted but is read
    const two = await sm.indexed(C, X, traits, undefined, undefined, 2)
    assert.deepEqual(two.keys.map(hex), [id32(10), shared].map(hex))
    assert.equal(hex(two.lastTrait!), hex(addr(1)))
    assert.equal(hex(two.lastKey!), hex(shared))
    const three = await sm.indexed(C, X, traits, undefined, undefined, 3)
    assert.deepEqual(three.keys.map(hex), [id32(10), shared, id32(21)].map(hex))
    assert.equal(hex(three.lastTrait!), hex(addr(2)))
    assert.equal(hex(three.lastKey!), hex(id32(21)))
    // limit <= 0 returns nothing
    assert.equal((await sm.indexed(C, X, traits, undefined, undefined, 0)).keys.length, 0)
    assert.equal((await sm.indexed(C, X, traits, undefined, undefined, -1)).keys.length, 0)
  })

  it('starts AT the start key (inclusive) of the start trait; earlier traits skipped; later ones from the newest', async () => {
    const { db } = await freshDb()
    const sm = new SharedMemory(db)
    await putMany(sm, addr(1), [id32(11), id32(12)])
    await putMany(sm, addr(2), [id32(21), id32(22), id32(23)])
    await putMany(sm, addr(3), [id32(31)])
    const traits = [addr(1), addr(2), addr(3)]
    const page = await sm.indexed(C, X, traits, addr(2), id32(22), 10)
    assert.deepEqual(page.keys.map(hex), [id32(22), id32(21), id32(31)].map(hex))
    // a start key that is not indexed under the start trait: that trait from its newest
    const notThere = await sm.indexed(C, X, traits, addr(2), id32(11), 10)
    assert.deepEqual(notThere.keys.map(hex), [id32(23), id32(22), id32(21), id32(31)].map(hex))
    // a start trait between the given ones
    const between = await sm.indexed(C, X, [addr(1), addr(3)], addr(2), id32(22), 10)
    assert.deepEqual(between.keys.map(hex), [id32(31)].map(hex))
    // what getUTXOs passes when there is no startIndex: the zero address and the zero ID
    const fromZero = await sm.indexed(C, X, traits, new Uint8Array(20), new Uint8Array(32), 10)
    assert.equal(fromZero.keys.length, 6)
  })

  it('nothing found: no keys, lastKey the start key of the last scan (none), lastTrait the highest scanned', async () => {
    const { db } = await freshDb()
    const sm = new SharedMemory(db)
    const empty = await sm.indexed(C, X, [addr(5), addr(4)], new Uint8Array(20), new Uint8Array(32), 10)
    assert.deepEqual(empty.keys, [])
    assert.equal(hex(empty.lastTrait!), hex(addr(5)))
    assert.equal(empty.lastKey, undefined)
    // traits all below the start trait: the start point comes back
    const past = await sm.indexed(C, X, [addr(1)], addr(9), id32(1), 10)
    assert.equal(hex(past.lastTrait!), hex(addr(9)))
    assert.equal(hex(past.lastKey!), hex(id32(1)))
  })

  it('pages over many pages with the inclusive start, as a client de-duplicating the repeated key', async () => {
    const { db } = await freshDb()
    const sm = new SharedMemory(db)
    const traits = [addr(3), addr(1), addr(2)]
    const expected: string[] = []
    const perTrait = new Map<number, string[]>()
    let n = 0
    for (const t of [1, 2, 3]) perTrait.set(t, [])
    // interleaved inserts across traits, some elements under two traits
    for (let i = 0; i < 250; i++) {
      for (const t of [1, 2, 3]) {
        const k = id32(++n)
        const ts = i % 10 === 0 && t < 3 ? [addr(t), addr(t + 1)] : [addr(t)]
        await sm.apply(X, new Map([[C, { putRequests: [el(k, String(n), ...ts)] }]]))
        for (const tt of ts) perTrait.get(Number(new DataView(tt.buffer).getUint32(0)))!.unshift(hex(k))
      }
    }
    const seen = new Set<string>()
    for (const t of [1, 2, 3]) {
      for (const k of perTrait.get(t)!) {
        if (!seen.has(k)) expected.push(k)
        seen.add(k)
      }
    }
    const got: string[] = []
    const gotSet = new Set<string>()
    let startTrait: Uint8Array = new Uint8Array(20)
    let startKey: Uint8Array = new Uint8Array(32)
    let pages = 0
    for (;;) {
      const page = await sm.indexed(C, X, traits, startTrait, startKey, 100)
      pages++
      for (const k of page.keys.map(hex)) {
        if (gotSet.has(k)) continue
        gotSet.add(k)
        got.push(k)
      }
      if (page.keys.length < 100) break
      startTrait = page.lastTrait!
      startKey = page.lastKey!
      assert.ok(pages < 50)
    }
    assert.equal(got.length, 750)
    assert.deepEqual(got, expected)
    assert.ok(pages > 7, `${pages} pages`)
  })
})

describe('SharedMemory across a restart, and seeding', () => {
  it('keeps everything after close and reopen, and the newest stays first', async () => {
    const { db, path } = await freshDb()
    const sm = new SharedMemory(db)
    await putMany(sm, addr(1), [id32(1), id32(2), id32(3)])
    await sm.apply(C, new Map([[X, { removeRequests: [id32(2), id32(77)] }]]))
    await db.close()
    const db2 = await openDatabase({ type: 'leveldb', path })
    open.push(db2)
    const sm2 = new SharedMemory(db2)
    assert.deepEqual((await sm2.get(C, X, [id32(1), id32(3)])).map(text), [hex(id32(1)), hex(id32(3))])
    await putMany(sm2, addr(1), [id32(4)])
    const page = await sm2.indexed(C, X, [addr(1)], undefined, undefined, 10)
    assert.deepEqual(page.keys.map(hex), [id32(4), id32(3), id32(1)].map(hex))
    // the marker of the early remove survived too
    await assert.rejects(sm2.apply(C, new Map([[X, { removeRequests: [id32(77)] }]])), /^FirnError: duplicate remove/)
  })

  it('seeds a pair once in the life of the database, even after a seeded UTXO is consumed', async () => {
    const { db, path } = await freshDb()
    const sm = new SharedMemory(db)
    const utxos = [el(id32(1), 'genesis-1', addr(1)), el(id32(2), 'genesis-2', addr(1))]
    assert.equal(await seedOnce(sm, X, C, utxos), true)
    assert.equal(await seedOnce(sm, X, C, utxos), false)
    // the same UTXOs for another destination are another seeding
    assert.equal(await seedOnce(sm, X, D, utxos), true)
    await sm.apply(C, new Map([[X, { removeRequests: [id32(1)] }]]))
    await db.close()
    const db2 = await openDatabase({ type: 'leveldb', path })
    open.push(db2)
    const sm2 = new SharedMemory(db2)
    assert.equal(await seedOnce(sm2, X, C, utxos), false)
    const page = await sm2.indexed(C, X, [addr(1)], undefined, undefined, 10)
    assert.deepEqual(page.values.map(text), ['genesis-2'])
    assert.equal((await sm2.indexed(D, X, [addr(1)], undefined, undefined, 10)).keys.length, 2)
  })
})

describe('SharedMemory: concurrency and the in-memory database', () => {
  it('applies without a batch one after another: of two racing puts of one key exactly one wins', async () => {
    const { db } = await freshDb()
    const sm = new SharedMemory(db)
    const k = id32(1)
    const results = await Promise.allSettled([
      sm.apply(X, new Map([[C, { putRequests: [el(k, 'first', addr(1))] }]])),
      sm.apply(X, new Map([[C, { putRequests: [el(k, 'second', addr(1))] }]])),
      sm.apply(X, new Map([[C, { putRequests: [el(id32(2), 'other', addr(1))] }]])),
    ])
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    )
    assert.deepEqual((await sm.get(C, X, [k])).map(text), ['first'])
    assert.deepEqual((await sm.indexed(C, X, [addr(1)], undefined, undefined, 10)).values.map(text), ['other', 'first'])
  })

  it('overlapping applies into separate batches hand out distinct insertion numbers', async () => {
    const { db } = await freshDb()
    const sm = new SharedMemory(db)
    const x = sm.forChain(X)
    const a: Parameters<SharedMemory['stageInto']>[1] = []
    const b: Parameters<SharedMemory['stageInto']>[1] = []
    await Promise.all([
      x.apply(new Map([[C, { putRequests: [el(id32(1), 'a', addr(1))] }]]), a),
      x.apply(new Map([[C, { putRequests: [el(id32(2), 'b', addr(1))] }]]), b),
    ])
    await db.batch(a as never)
    await db.batch(b as never)
    const page = await sm.forChain(C).indexed(X, [addr(1)], undefined, undefined, 10)
    assert.deepEqual(page.values.map(text).sort(), ['a', 'b'])
    await x.apply(new Map([[C, { putRequests: [el(id32(3), 'c', addr(1))] }]]))
    assert.equal(text((await sm.forChain(C).indexed(X, [addr(1)], undefined, undefined, 1)).values[0]!), 'c')
  })

  it('works the same on memdb', async () => {
    const db = await openDatabase({ type: 'memdb', path: '' })
    open.push(db)
    const sm = new SharedMemory(db)
    await putMany(sm, addr(1), [id32(1), id32(2), id32(3)], 2)
    const page = await sm.indexed(C, X, [addr(1)], addr(1), id32(2), 10)
    assert.deepEqual(page.keys.map(hex), [id32(2), id32(1)].map(hex))
    await sm.apply(C, new Map([[X, { removeRequests: [id32(2)] }]]))
    assert.deepEqual((await sm.indexed(C, X, [addr(1)], undefined, undefined, 10)).values.map(text), [
      hex(id32(3)),
      hex(id32(1)),
    ])
  })
})

describe('SharedMemory at scale', () => {
  it('pages 10,000 UTXOs of one address in pages of 1,024', async () => {
    const { db } = await freshDb()
    const sm = new SharedMemory(db)
    const keys = Array.from({ length: 10_000 }, (_, i) => sha256(Uint8Array.of(i >> 8, i & 0xff)))
    const t0 = performance.now()
    await putMany(sm, addr(1), keys, 500)
    const tPut = performance.now() - t0
    const got: string[] = []
    const seen = new Set<string>()
    let startTrait: Uint8Array = new Uint8Array(20)
    let startKey: Uint8Array = new Uint8Array(32)
    const times: number[] = []
    for (;;) {
      const t = performance.now()
      const page = await sm.indexed(C, X, [addr(1)], startTrait, startKey, 1024)
      times.push(performance.now() - t)
      for (const k of page.keys.map(hex)) {
        if (!seen.has(k)) got.push(k)
        seen.add(k)
      }
      if (page.keys.length < 1024) break
      startTrait = page.lastTrait!
      startKey = page.lastKey!
    }
    assert.equal(got.length, 10_000)
    assert.deepEqual(got, keys.map(hex).reverse())
    const sorted = [...times].sort((a, b) => a - b)
    console.log(
      `10,000 UTXOs put in ${tPut.toFixed(0)} ms; ${times.length} pages of up to 1,024: ` +
        `total ${times.reduce((a, b) => a + b, 0).toFixed(1)} ms, median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms, ` +
        `max ${sorted[sorted.length - 1]!.toFixed(1)} ms`,
    )
  })
})
