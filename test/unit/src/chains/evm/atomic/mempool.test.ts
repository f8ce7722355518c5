/**
 * The atomic mempool's rules (../shared/reference/cchain.md 2.8): already known, conflicts by input ID with the
 * price rule and the reference's text, capacity with eviction of the cheapest, issued txs coming back on reject,
 * an accepted block taking its txs and their conflicts out, the bounded discarded cache, best price first.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { decodedOf, idCb58 } from '../../../../../../src/chains/evm/atomic/ids.js'
import {
  AlreadyKnownError,
  AtomicMempool,
  type PooledAtomicTx,
  pooled,
} from '../../../../../../src/chains/evm/atomic/mempool.js'
import { importTx } from './fixtures.js'

/** An import spending output `index` of the fixture's tx, told apart by `salt` (its output amount). */
function tx(index: number, price: bigint, salt = 0n): PooledAtomicTx {
  const u = importTx()
  u.importedInputs[0]!.outputIndex = index
  u.outputs[0]!.amount += salt
  return pooled(decodedOf({ unsigned: u, credentials: [{ signatures: [] }] }), 11_230n, price)
}

const ids = (txs: PooledAtomicTx[]) => txs.map((t) => t.d.id)

describe('atomic mempool', () => {
  it('takes a tx once; a second add is `already known` whether pending or issued', () => {
    const pool = new AtomicMempool()
    const a = tx(1, 10n)
    pool.add(a, true)
    assert.equal(pool.status(a.d.id), 'pending')
    assert.throws(() => pool.add(a, true), new AlreadyKnownError(`already known: tx ${idCb58(a.d.id)} is pending`))
    pool.markIssued([a.d.id])
    assert.equal(pool.status(a.d.id), 'issued')
    assert.throws(() => pool.add(a, false), {
      message: `already known: tx ${idCb58(a.d.id)} was issued previously`,
    })
    assert.equal(pool.pendingCount, 0)
    assert.equal(pool.size, 1)
  })

  it('a conflicting tx must pay strictly more per gas; the loser is discarded', () => {
    const pool = new AtomicMempool()
    const a = tx(1, 10n)
    pool.add(a, true)
    for (const price of [9n, 10n]) {
      const b = tx(1, price, 1n)
      assert.throws(() => pool.add(b, true), {
        message: `conflict present: issued tx (${idCb58(b.d.id)}) gas price ${price} <= conflict tx (${idCb58(a.d.id)}) gas price 10 (1 total conflicts in mempool)`,
      })
    }
    const c = tx(1, 11n, 2n)
    pool.add(c, true)
    assert.equal(pool.status(c.d.id), 'pending')
    assert.equal(pool.status(a.d.id), 'discarded')
    assert.deepEqual(ids(pool.candidates()), [c.d.id])
  })

  it('a tx conflicting with an issued one is refused whatever it pays', () => {
    const pool = new AtomicMempool()
    const a = tx(1, 10n)
    pool.add(a, true)
    pool.markIssued([a.d.id])
    assert.throws(() => pool.add(tx(1, 1_000n, 1n), true), { message: /^conflict present: / })
    assert.equal(pool.status(a.d.id), 'issued')
  })

  it('full: a better-paying tx evicts the cheapest pending one; otherwise the reference texts', () => {
    const pool = new AtomicMempool(2)
    const cheap = tx(1, 5n)
    const dear = tx(2, 50n)
    pool.add(cheap, true)
    pool.add(dear, true)
    assert.throws(() => pool.add(tx(3, 5n), true), { message: 'insufficient fee currentMin=5 provided=5' })
    const better = tx(3, 6n)
    pool.add(better, true)
    assert.equal(pool.status(cheap.d.id), 'discarded')
    assert.deepEqual(ids(pool.candidates()), [dear.d.id, better.d.id])
    pool.markIssued([dear.d.id, better.d.id])
    assert.throws(() => pool.add(tx(4, 1_000n), true), { message: 'mempool full' })
  })

  it('a rejected block puts its issued txs back as pending and announces them', () => {
    const pool = new AtomicMempool()
    const a = tx(1, 10n)
    const seen: string[] = []
    pool.added$.subscribe((d) => seen.push(d.id))
    pool.add(a, true)
    pool.markIssued([a.d.id])
    pool.reissue([a.d.id, tx(9, 1n).d.id])
    assert.equal(pool.status(a.d.id), 'pending')
    assert.deepEqual(seen, [a.d.id, a.d.id])
  })

  it('an accepted block removes its txs and discards pending txs spending the same inputs', () => {
    const pool = new AtomicMempool()
    const mine = tx(1, 10n)
    const rival = tx(1, 20n, 7n)
    const other = tx(2, 10n)
    pool.add(other, true)
    pool.add(rival, true)
    pool.accepted([mine])
    assert.equal(pool.status(mine.d.id), undefined)
    assert.equal(pool.status(rival.d.id), 'discarded')
    assert.equal(pool.status(other.d.id), 'pending')
    // the input is free in the pool again: a new spender is not a conflict (verification refuses it, not the pool)
    pool.add(tx(1, 1n, 9n), true)
  })

  it('remembers the last discarded txs only; gossip of a discarded tx is known, a local issue tries again', () => {
    const pool = new AtomicMempool(4096, 2)
    const txs = [tx(1, 1n), tx(2, 1n), tx(3, 1n)]
    for (const t of txs) {
      pool.add(t, true)
      pool.discard(t.d.id)
    }
    assert.equal(pool.status(txs[0]!.d.id), undefined)
    assert.equal(pool.get(txs[1]!.d.id)?.d.id, txs[1]!.d.id)
    assert.throws(() => pool.add(txs[2]!, false), {
      message: `already known: tx ${idCb58(txs[2]!.d.id)} was discarded`,
    })
    pool.add(txs[2]!, true)
    assert.equal(pool.status(txs[2]!.d.id), 'pending')
  })

  it('orders candidates by price, best first', () => {
    const pool = new AtomicMempool()
    const txs = [tx(1, 3n), tx(2, 9n), tx(3, 5n)]
    for (const t of txs) pool.add(t, true)
    assert.deepEqual(ids(pool.candidates()), [txs[1]!.d.id, txs[2]!.d.id, txs[0]!.d.id])
  })
})
