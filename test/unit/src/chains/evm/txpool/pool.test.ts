import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { bytesToHex } from '@ethereumjs/util'
import { ADDRS, dynamic, GWEI, legacy, refusal, world } from './fixtures.js'

const hashOf = (tx: { hash(): Uint8Array }) => bytesToHex(tx.hash())
const from = (i: number) => ADDRS[i]!.toString()
const nonces = (txs: { nonce: bigint }[]) => txs.map((t) => Number(t.nonce))

describe('txpool: pending and queued', () => {
  it('a gapped tx waits queued; filling the gap promotes the run and announces it', async () => {
    const { pool } = world()
    const seen: string[] = []
    pool.newPendingHashes.subscribe((h) => seen.push(h))
    const t2 = legacy(0, { nonce: 2n })
    const t1 = legacy(0, { nonce: 1n })
    const t0 = legacy(0, { nonce: 0n })
    await pool.add(t2)
    await pool.add(t1)
    assert.deepEqual(pool.stats(), { pending: 0, queued: 2 })
    assert.equal(pool.status(hashOf(t2)), 'queued')
    assert.equal(await pool.nonce(from(0)), 0n)
    await pool.add(t0)
    assert.deepEqual(pool.stats(), { pending: 3, queued: 0 })
    assert.equal(pool.status(hashOf(t2)), 'pending')
    assert.equal(await pool.nonce(ADDRS[0]!), 3n)
    assert.deepEqual(seen, [hashOf(t0), hashOf(t1), hashOf(t2)])
    assert.deepEqual(nonces(pool.contentFrom(from(0)).pending), [0, 1, 2])
    assert.equal(pool.get(hashOf(t1)), t1)
    assert.equal(pool.status(`0x${'00'.repeat(32)}`), 'unknown')
  })

  it('pending nonce of an account without txs is its state nonce', async () => {
    const w = world()
    w.setAccount(2, { nonce: 7n })
    assert.equal(await w.pool.nonce(from(2)), 7n)
  })

  it('a replacement with the bump takes the pending slot and is announced', async () => {
    const { pool } = world()
    const seen: string[] = []
    pool.newPendingHashes.subscribe((h) => seen.push(h))
    const a = dynamic(0, { nonce: 0n, maxFee: 100n * GWEI, tip: 10n * GWEI })
    const b = dynamic(0, { nonce: 0n, maxFee: 110n * GWEI, tip: 11n * GWEI })
    await pool.add(a)
    await pool.add(b)
    assert.equal(pool.has(hashOf(a)), false)
    assert.equal(pool.status(hashOf(b)), 'pending')
    assert.deepEqual(seen, [hashOf(a), hashOf(b)])
    assert.deepEqual(pool.stats(), { pending: 1, queued: 0 })
  })

  it('account queue limit drops the highest queued nonces', async () => {
    const { pool } = world({ accountQueue: 2 })
    for (const n of [5n, 3n, 4n]) await pool.add(legacy(0, { nonce: n }))
    assert.deepEqual(nonces(pool.contentFrom(from(0)).queued), [3, 4])
  })

  it('global pending limit trims the biggest senders down, not below account slots', async () => {
    const { pool } = world({ globalSlots: 4, accountSlots: 1 })
    for (let n = 0n; n < 4n; n++) await pool.add(legacy(0, { nonce: n }))
    for (let n = 0n; n < 2n; n++) await pool.add(legacy(1, { nonce: n }))
    // 6 pending > 4: sender 0 (4) is cut to the size of sender 1 (2), total 4
    assert.deepEqual(nonces(pool.contentFrom(from(0)).pending), [0, 1])
    assert.deepEqual(nonces(pool.contentFrom(from(1)).pending), [0, 1])
    assert.equal(await pool.nonce(from(0)), 2n)
  })

  it('global queue limit drops the queues of the longest-idle senders first', async () => {
    const w = world({ globalQueue: 3 })
    await w.pool.add(legacy(0, { nonce: 5n }))
    await w.pool.add(legacy(0, { nonce: 6n }))
    w.clock.now += 1000
    await w.pool.add(legacy(1, { nonce: 5n }))
    w.clock.now += 1000
    await w.pool.add(legacy(2, { nonce: 5n }))
    assert.deepEqual(nonces(w.pool.contentFrom(from(0)).queued), [5])
    assert.equal(w.pool.stats().queued, 3)
  })

  it('queued txs of a sender idle beyond the lifetime are evicted', async () => {
    const w = world({ lifetimeMs: 60_000 })
    await w.pool.add(legacy(0, { nonce: 3n }))
    w.clock.now += 30_000
    await w.pool.add(legacy(1, { nonce: 3n }))
    await w.pool.add(legacy(2, { nonce: 0n }))
    w.clock.now += 30_001
    assert.equal(w.pool.evictExpired(), 1)
    assert.equal(w.pool.contentFrom(from(0)).queued.length, 0)
    assert.equal(w.pool.contentFrom(from(1)).queued.length, 1)
    w.clock.now += 60_000
    assert.equal(w.pool.evictExpired(), 1)
    assert.deepEqual(w.pool.stats(), { pending: 1, queued: 0 })
  })

  it('local senders are exempt from the queue cap and lifetime when locals are enabled', async () => {
    const w = world({ accountQueue: 1, lifetimeMs: 1000, localsEnabled: true })
    await w.pool.add(legacy(0, { nonce: 4n }), { local: true })
    await w.pool.add(legacy(0, { nonce: 5n }))
    w.clock.now += 5000
    assert.equal(w.pool.evictExpired(), 0)
    assert.equal(w.pool.stats().queued, 2)
  })
})

describe('txpool: a full pool', () => {
  it('evicts the cheapest remote tx for a better one, and refuses one no better', async () => {
    const w = world({ globalSlots: 2, globalQueue: 0 })
    w.fees.baseFee = 10n * GWEI
    const cheap = dynamic(0, { nonce: 0n, maxFee: 20n * GWEI, tip: 1n * GWEI })
    const mid = dynamic(1, { nonce: 0n, maxFee: 20n * GWEI, tip: 2n * GWEI })
    await w.pool.add(cheap)
    await w.pool.add(mid)
    assert.equal(
      await refusal(w.pool.add(dynamic(2, { nonce: 0n, maxFee: 20n * GWEI, tip: 1n * GWEI }))),
      'transaction underpriced',
    )
    const better = dynamic(2, { nonce: 0n, maxFee: 20n * GWEI, tip: 3n * GWEI })
    await w.pool.add(better)
    assert.equal(w.pool.has(hashOf(cheap)), false)
    assert.equal(w.pool.status(hashOf(better)), 'pending')
    assert.deepEqual(w.pool.stats(), { pending: 2, queued: 0 })
  })

  it('a future tx may not push out a pending one', async () => {
    const w = world({ globalSlots: 1, globalQueue: 0 })
    await w.pool.add(legacy(0, { nonce: 0n, gasPrice: 25n * GWEI }))
    assert.equal(
      await refusal(w.pool.add(legacy(1, { nonce: 3n, gasPrice: 50n * GWEI }))),
      'future transaction tries to replace pending',
    )
  })

  it('txpool is full when only local txs hold the slots', async () => {
    const w = world({ globalSlots: 1, globalQueue: 0, localsEnabled: true })
    await w.pool.add(legacy(0, { nonce: 0n }), { local: true })
    assert.equal(await refusal(w.pool.add(legacy(1, { nonce: 0n, gasPrice: 90n * GWEI }))), 'txpool is full')
  })
})

describe('txpool: accepted blocks', () => {
  it('drops included txs, promotes queued ones that became next, demotes what became unpayable', async () => {
    const w = world()
    for (const n of [0n, 1n, 2n]) await w.pool.add(legacy(0, { nonce: n }))
    await w.pool.add(legacy(0, { nonce: 4n }))
    for (const n of [0n, 1n, 2n]) await w.pool.add(legacy(1, { nonce: n }))
    const seen: string[] = []
    w.pool.newPendingHashes.subscribe((h) => seen.push(h))
    // block: sender 0 used nonces 0..2 and 3 came from elsewhere; sender 1 can now pay for one tx only
    w.setAccount(0, { nonce: 4n })
    const cost = 21_000n * 25n * GWEI + 1n
    w.setAccount(1, { nonce: 1n, balance: cost })
    await w.pool.onBlockAccepted()
    assert.deepEqual(nonces(w.pool.contentFrom(from(0)).pending), [4])
    assert.equal(seen.length, 1)
    assert.deepEqual(nonces(w.pool.contentFrom(from(1)).pending), [1, 2])
    assert.equal(await w.pool.nonce(from(0)), 5n)
    // a balance too low for any tx: the first is dropped, the later one queued
    w.setAccount(1, { balance: cost - 1n })
    await w.pool.onBlockAccepted()
    assert.deepEqual(w.pool.contentFrom(from(1)), { pending: [], queued: [] })
  })

  it('re-queues the later txs when an earlier one becomes unpayable (a new reader)', async () => {
    const w = world()
    await w.pool.add(legacy(2, { nonce: 0n, value: 1n }))
    await w.pool.add(legacy(2, { nonce: 1n, value: 10n ** 20n }))
    await w.pool.add(legacy(2, { nonce: 2n, value: 1n }))
    await w.pool.onBlockAccepted(async () => ({ nonce: 0n, balance: 10n ** 19n }))
    assert.deepEqual(nonces(w.pool.contentFrom(from(2)).pending), [0])
    assert.deepEqual(nonces(w.pool.contentFrom(from(2)).queued), [2])
    assert.equal(await w.pool.nonce(from(2)), 1n)
  })
})
