import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Account, Address, hexToBytes } from '@ethereumjs/util'
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
  it('keeps at most maxBytes of nodes, the least recently used leaving first', () => {
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
      await store.nodes.batch(layer.batchOps().map(({ key, value }) => ({ type: 'put' as const, key, value })))
      return root
    }
    const root = await write(5n)
    const cache = nodeCache(store.nodes)
    assert.ok(cache.size > 0, 'accepted nodes are cached')
    // the root node gone from the database: a view of it still opens, from the cache
    await store.nodes.del(root)
    await openStateView(common, store.nodes, root)
    const other = await write(6n)
    await pruneState(store.nodes, [other])
    assert.equal(cache.size, 0, 'pruning clears the cache')
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
      await store.nodes.batch(layer.batchOps().map(({ key, value }) => ({ type: 'put' as const, key, value })))
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
})
