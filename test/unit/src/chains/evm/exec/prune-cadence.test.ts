import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MemoryLevel } from 'memory-level'
import { arraySource } from '../../../../../../src/chains/evm/exec/builder.js'
import { EvmChainCore } from '../../../../../../src/chains/evm/exec/chain.js'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'
import { addressOf, fields, genesis, transfer } from './fixtures.js'

const common = createEvmCommon(43112n)

const readable = (chain: EvmChainCore, root: Uint8Array): Promise<boolean> =>
  chain.stateAt(root).then(
    () => true,
    (err: Error) => {
      assert.match(err.message, /missing trie node/)
      return false
    },
  )

describe('pruning cadence', () => {
  it('prunes every state-history blocks only once as many nodes were accepted as the last prune kept', async () => {
    const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
    // 300 accounts: the state is far larger than what a block of one transfer writes
    const chain = await EvmChainCore.open(db, genesis(300), { common, pruning: { mode: 'pruning', stateHistory: 2 } })
    const roots = [chain.lastAccepted().header.stateRoot]
    const block = async (n: number): Promise<void> => {
      const tx = transfer(common, 0, BigInt(n - 1), addressOf(1_000 + n).bytes)
      const b = await chain.buildBlock(chain.lastAccepted().hash, fields(BigInt(n)), arraySource([tx]))
      await chain.acceptBlock(b.hash)
      roots.push(b.header.stateRoot)
    }
    await block(1)
    await block(2)
    // the first prune (nothing kept before it) runs at block 2 and keeps blocks 1 and 2
    assert.equal(await readable(chain, roots[0]!), false, 'genesis pruned at block 2')
    assert.equal(await readable(chain, roots[1]!), true)
    // blocks of one transfer write a few dozen nodes against the ~400 kept: the next multiples of 2 do not prune
    for (let n = 3; n <= 6; n++) await block(n)
    assert.equal(await readable(chain, roots[1]!), true, 'block 1 still readable at block 6: no prune yet')
    // ... until the accepted nodes add up to what the last prune kept
    let n = 6
    while (await readable(chain, roots[1]!)) {
      assert.ok(n < 200, 'a prune comes once enough nodes were accepted')
      await block(++n)
    }
    assert.equal(n % 2, 0, 'prunes run at multiples of state-history')
    assert.ok(n > 8, `the second prune waited for the accepted nodes (block ${n})`)
    for (const root of roots.slice(0, n - 1)) assert.equal(await readable(chain, root), false)
    assert.equal(await readable(chain, roots[n - 1]!), true)
    assert.equal(await readable(chain, roots[n]!), true)
    await db.close()
  })
})
