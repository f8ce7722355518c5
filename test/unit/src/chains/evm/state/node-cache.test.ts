import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Account, Address, bytesToHex, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { MemoryLevel } from 'memory-level'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'
import { trieReads } from '../../../../../../src/chains/evm/state/account-reads.js'
import { NodeCache, NodeLayer, nodeCache } from '../../../../../../src/chains/evm/state/node-layer.js'
import { pruneState } from '../../../../../../src/chains/evm/state/prune.js'
import { AvaStateManager } from '../../../../../../src/chains/evm/state/state-manager.js'
import { openStateView } from '../../../../../../src/chains/evm/state/view.js'
import { ChainStore } from '../../../../../../src/chains/evm/store/chain-store.js'

const common = createEvmCommon(43112n)
const bytes = (n: number) => new Uint8Array(n)

describe('NodeCache', () => {
  it('evicts like a clock: a read node gets a second chance, a peek does not, and the hand goes on where it was', () => {
    const c = new NodeCache(3 * (100 + 2))
    c.set('aa', bytes(100))
    c.set('bb', bytes(100))
    c.set('cc', bytes(100))
    assert.ok(c.get('aa'))
    assert.ok(c.peek('bb'))
    c.set('dd', bytes(100))
    assert.equal(c.peek('bb'), undefined, 'the hand spared aa (read) and took bb (only peeked)')
    c.set('ee', bytes(100))
    // a hand that started over from the front would take aa now
    assert.equal(c.peek('cc'), undefined, 'the hand went on from where it stopped')
    assert.ok(c.peek('aa') && c.peek('dd') && c.peek('ee'))
    assert.equal(c.bytes, 3 * 102)
  })

  it('keeps at most maxBytes of nodes, a recently read one staying', () => {
    const c = new NodeCache(3 * (100 + 2))
    c.set('aa', bytes(100))
    c.set('bb', bytes(100))
    c.set('cc', bytes(100))
    assert.ok(c.get('aa'), 'a read makes aa the most recent')
    c.set('dd', bytes(100))
    assert.equal(c.get('bb'), undefined, 'bb was the least recently used')
    assert.ok(c.get('aa') && c.get('cc') && c.get('dd'))
    assert.equal(c.size, 3)
    assert.equal(c.bytes, 3 * 102)
    c.clear()
    assert.equal(c.size, 0)
    assert.equal(c.bytes, 0)
  })

  it('serves accepted nodes without the database, and a pruned root reads as missing again', async () => {
    const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
    const store = new ChainStore(db)
    const write = async (balance: bigint) => {
      const layer = new NodeLayer(store.nodes)
      const sm = new AvaStateManager(common, layer, undefined)
      await sm.putAccount(
        new Address(hexToBytes('0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc')),
        new Account(0n, balance),
      )
      const root = await sm.getStateRoot()
      await store.nodes.batch((await layer.batchOps()).map(({ key, value }) => ({ type: 'put' as const, key, value })))
      return root
    }
    const root = await write(5n)
    const cache = nodeCache(store.nodes)
    assert.ok(cache.size > 0, 'accepted nodes are cached')
    // the root node gone from the database: a view of it still opens, from the cache
    await store.nodes.del(root)
    await openStateView(common, store.nodes, root)
    const other = await write(6n)
    const cached = cache.size
    await pruneState(store.nodes, [other])
    assert.ok(cache.size > 0 && cache.size < cached, 'pruning drops the deleted nodes from the cache, not the kept')
    assert.equal(cache.get(bytesToHex(root).slice(2)), undefined)
    assert.ok(cache.get(bytesToHex(other).slice(2)))
    await assert.rejects(openStateView(common, store.nodes, root), /missing trie node/)
    await db.close()
  })

  it("views read tries through the chain's trie reads: by root and key, for accounts and storage alike", async () => {
    const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
    const store = new ChainStore(db)
    const who = new Address(hexToBytes('0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc'))
    const slot = hexToBytes(`0x${'00'.repeat(31)}07`)
    const write = async (balance: bigint, value: number) => {
      const layer = new NodeLayer(store.nodes)
      const sm = new AvaStateManager(common, layer, undefined)
      await sm.putAccount(who, new Account(0n, balance))
      await sm.putCode(who, new Uint8Array([0x60, 0x00]))
      await sm.putStorage(who, slot, new Uint8Array([value]))
      const root = await sm.getStateRoot()
      await store.nodes.batch((await layer.batchOps()).map(({ key, value }) => ({ type: 'put' as const, key, value })))
      return root
    }
    const first = await write(5n, 1)
    const second = await write(6n, 2)
    const reads = trieReads(store.nodes)
    assert.equal(reads.size, 0, 'block runs do not fill it')
    const read = async (root: Uint8Array) => {
      const view = await openStateView(common, store.nodes, root)
      return [(await view.getAccount(who))?.balance, (await view.getStorage(who, slot))[0]]
    }
    assert.deepEqual(await read(first), [5n, 1])
    assert.equal(reads.size, 2, 'one account read, one storage read')
    assert.deepEqual(await read(second), [6n, 2])
    assert.equal(reads.size, 4, 'another root: other entries')
    // the account trie's nodes gone from the database: both roots still read, from the trie reads
    nodeCache(store.nodes).clear()
    await store.nodes.clear()
    await store.nodes.put(first, new Uint8Array([0xc0]))
    await store.nodes.put(second, new Uint8Array([0xc0]))
    assert.deepEqual(await read(first), [5n, 1])
    assert.deepEqual(await read(second), [6n, 2])
    assert.equal(reads.size, 4)
    await pruneState(store.nodes, [])
    assert.equal(reads.size, 0, 'pruning clears them')
    await db.close()
  })

  it("persists only the nodes reachable from the block's root (not those of the layer's earlier roots)", async () => {
    const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
    const store = new ChainStore(db)
    const layer = new NodeLayer(store.nodes)
    const sm = new AvaStateManager(common, layer, undefined)
    const who = (i: number) => new Address(hexToBytes(`0x${i.toString(16).padStart(40, '0')}`))
    const slot = hexToBytes(`0x${'00'.repeat(31)}01`)
    for (let i = 1; i <= 200; i++) await sm.putAccount(who(i), new Account(0n, BigInt(i)))
    await sm.putCode(who(7), new Uint8Array([0x60, 0x01]))
    for (let k = 1; k <= 20; k++)
      await sm.putStorage(who(7), setLengthLeft(new Uint8Array([k]), 32), new Uint8Array([k]))
    await sm.getStateRoot()
    // a second version of half the accounts: the paths to them are written again
    for (let i = 101; i <= 200; i++) await sm.putAccount(who(i), new Account(0n, BigInt(i + 1000)))
    const root = await sm.getStateRoot()
    const ops = await layer.batchOps(root)
    assert.ok(ops.length < layer.writes.size - 100, `${ops.length} of ${layer.writes.size} nodes are reachable`)
    assert.ok(
      ops.some((op) => op.key.length === 33),
      'code is kept',
    )
    await store.nodes.batch(ops.map(({ key, value }) => ({ type: 'put' as const, key, value })))
    nodeCache(store.nodes).clear()
    const view = new AvaStateManager(common, new NodeLayer(store.nodes), root)
    for (let i = 1; i <= 200; i++)
      assert.equal((await view.getAccount(who(i)))?.balance, BigInt(i > 100 ? i + 1000 : i))
    assert.deepEqual([...(await view.getCode(who(7)))], [0x60, 0x01])
    for (let k = 1; k <= 20; k++) {
      assert.deepEqual([...(await view.getStorage(who(7), setLengthLeft(new Uint8Array([k]), 32)))], [k])
    }
    assert.equal((await view.getStorage(who(7), slot))[0], 1)
    await db.close()
  })
})
