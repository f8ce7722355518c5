import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MemoryLevel } from 'memory-level'
import { arraySource } from '../../../../../../src/chains/evm/exec/builder.js'
import { EvmChainCore } from '../../../../../../src/chains/evm/exec/chain.js'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'
import { accountReads } from '../../../../../../src/chains/evm/state/account-reads.js'
import { pruneState } from '../../../../../../src/chains/evm/state/prune.js'
import { addressOf, fields, genesis, transfer } from './fixtures.js'

const common = createEvmCommon(43112n)

describe('EvmChainCore.accountAt', () => {
  it('reads an account once per state root, each root keeping its own state, until its root is pruned', async () => {
    const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
    const chain = await EvmChainCore.open(db, genesis(2), { common, pruning: { mode: 'archive' } })
    const before = chain.lastAccepted().header.stateRoot
    const to = addressOf(9)
    assert.equal(await chain.accountAt(before, to), undefined)
    const tx = transfer(common, 0, 0n, to.bytes, { value: 1000n, maxFee: 10n, tip: 2n })
    const block = await chain.buildBlock(chain.lastAccepted().hash, fields(1n), arraySource([tx]))
    const after = block.header.stateRoot
    const read = await chain.accountAt(after, to)
    assert.equal(read?.balance, 1000n)
    assert.equal(await chain.accountAt(after, to), read, 'the second read is the cached account')
    assert.equal(await chain.accountAt(before, to), undefined, 'the older root keeps its own state')
    assert.equal(accountReads(chain.store.nodes).size, 2)
    await chain.acceptBlock(block.hash)
    await pruneState(chain.store.nodes, [after])
    assert.equal(accountReads(chain.store.nodes).size, 1, 'pruning forgets the reads at the pruned root only')
    assert.equal(await chain.accountAt(after, to), read, 'the kept root still reads from memory')
    await assert.rejects(chain.accountAt(before, addressOf(0)), /missing trie node/)
    await db.close()
  })
})
