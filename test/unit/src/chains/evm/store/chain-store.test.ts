import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { bytesToHex } from '@ethereumjs/util'
import { Level } from 'level'
import { MemoryLevel } from 'memory-level'
import { arraySource } from '../../../../../../src/chains/evm/exec/builder.js'
import { EvmChainCore } from '../../../../../../src/chains/evm/exec/chain.js'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'
import { addressOf, CONTRACT, fields, genesis, transfer } from '../exec/fixtures.js'

const common = createEvmCommon(43112n)
// LOG1 with topic 0xaa.., empty data: PUSH32 topic PUSH1 0 PUSH1 0 LOG1 STOP
const TOPIC = new Uint8Array(32).fill(0xaa)
const LOGGER = { [bytesToHex(CONTRACT)]: { code: `0x7f${'aa'.repeat(32)}60006000a100` } }

describe('chain store', () => {
  it('writes extra puts (proposer signatures) in the block batch: both or neither', async () => {
    const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
    const chain = await EvmChainCore.open(db, genesis(2), { common })
    const sigs = chain.store.sublevel('proposer')
    const genesisHash = chain.lastAccepted().hash
    const tx = () => [transfer(common, 0, 0n, addressOf(1).bytes, { value: 1n })]
    const block = await chain.buildBlock(chain.lastAccepted().hash, fields(2n), arraySource(tx()))
    let batches = 0
    db.on('write', () => batches++)
    // a put the batch cannot take (no value) fails the whole batch
    await assert.rejects(
      chain.acceptBlock(block.hash, [{ sublevel: sigs, key: block.hash, value: undefined as unknown as Uint8Array }]),
    )
    assert.equal(await chain.store.getBlock(block.hash), undefined, 'no block without its signature')
    assert.deepEqual(await chain.store.lastAcceptedHash(), genesisHash)
    await chain.acceptBlock(block.hash, [{ sublevel: sigs, key: block.hash, value: Uint8Array.of(7) }])
    assert.equal(batches, 1)
    assert.deepEqual(Uint8Array.from((await sigs.get(block.hash)) ?? []), Uint8Array.of(7))
    assert.deepEqual(await chain.store.lastAcceptedHash(), block.hash)
    await db.close()
  })

  it('accepts a block, its receipts, indexes and state in one batch and finds them after reopening', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'firn-evm-'))
    try {
      let db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' })
      let chain = await EvmChainCore.open(db, genesis(2, LOGGER), { common })
      const txs = [
        transfer(common, 0, 0n, addressOf(1).bytes, { value: 77n }),
        transfer(common, 1, 0n, CONTRACT, { value: 0n, gasLimit: 60_000n }),
      ]
      const block = await chain.buildBlock(chain.lastAccepted().hash, fields(2n), arraySource(txs))
      // pending: nothing of it is in the database yet
      assert.equal(await chain.store.getBlock(block.hash), undefined)
      assert.equal(await chain.store.nodes.get(block.header.stateRoot), undefined)
      const seen: string[] = []
      chain.accepted$.subscribe((e) => seen.push(bytesToHex(e.hash)))
      let batches = 0
      db.on('write', () => batches++)
      await chain.acceptBlock(block.hash)
      assert.equal(batches, 1)
      assert.deepEqual(seen, [bytesToHex(block.hash)])
      await db.close()

      db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' })
      chain = await EvmChainCore.open(db, genesis(2, LOGGER), { common })
      assert.deepEqual(chain.lastAccepted().hash, block.hash)
      assert.deepEqual(await chain.getBlockByNumber(1n), block.rlp)
      const receipts = await chain.getReceipts(block.hash)
      assert.equal(receipts?.length, 2)
      assert.equal(receipts![1]!.logs.length, 1)
      assert.deepEqual(await chain.getTxLocation(txs[1]!.hash()), { blockHash: block.hash, blockNumber: 1n, index: 1 })
      const view = await chain.stateAt(block.header.stateRoot)
      assert.equal((await view.getAccount(addressOf(1)))?.balance, 10n ** 24n + 77n - 0n - receipts![1]!.gasUsed * 7n)
      const logs = await chain.getLogs({ fromBlock: 0n, toBlock: 1n, addresses: [CONTRACT], topics: [[TOPIC]] }, 100)
      assert.equal(logs.length, 1)
      assert.equal(logs[0]!.txIndex, 1)
      const none = await chain.getLogs({ fromBlock: 0n, toBlock: 1n, addresses: [addressOf(0).bytes], topics: [] }, 100)
      assert.equal(none.length, 0)
      await db.close()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('serves views while the writer is busy with a long block', async () => {
    const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
    const chain = await EvmChainCore.open(db, genesis(4), { common })
    const tip = chain.lastAccepted()
    const txs = []
    for (let n = 0n; n < 100n; n++) for (let s = 0; s < 4; s++) txs.push(transfer(common, s, n, addressOf(9).bytes))
    for (const tx of txs) tx.getSenderAddress()
    const order: string[] = []
    const building = chain.buildBlock(tip.hash, fields(1n), arraySource(txs)).then(() => order.push('block'))
    const reading = chain
      .stateAt(tip.header.stateRoot)
      .then((v) => v.getAccount(addressOf(0)))
      .then((a) => {
        order.push('view')
        return a
      })
    const [account] = await Promise.all([reading, building])
    assert.equal(account?.balance, 10n ** 24n)
    assert.deepEqual(order, ['view', 'block'])
  })

  it('prunes roots older than stateHistory and keeps the recent ones', async () => {
    const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
    const chain = await EvmChainCore.open(db, genesis(1), { common, pruning: { mode: 'pruning', stateHistory: 2 } })
    const roots: Uint8Array[] = [chain.lastAccepted().header.stateRoot]
    for (let n = 0n; n < 4n; n++) {
      const b = await chain.buildBlock(
        chain.lastAccepted().hash,
        fields(n + 1n),
        arraySource([transfer(common, 0, n, addressOf(5).bytes)]),
      )
      await chain.acceptBlock(b.hash)
      roots.push(b.header.stateRoot)
    }
    // after block 4 (a multiple of 2): roots of blocks 3 and 4 kept, 0..2 gone
    await assert.rejects(chain.stateAt(roots[1]!), /missing trie node/)
    assert.equal((await (await chain.stateAt(roots[3]!)).getAccount(addressOf(5)))?.balance, 3n)
    assert.equal((await (await chain.stateAt(roots[4]!)).getAccount(addressOf(5)))?.balance, 4n)
    const archive = await EvmChainCore.open(
      new MemoryLevel({ keyEncoding: 'view', valueEncoding: 'view' }),
      genesis(1),
      {
        common,
        pruning: { mode: 'archive' },
      },
    )
    assert.ok(await archive.stateAt(archive.lastAccepted().header.stateRoot))
  })
})
