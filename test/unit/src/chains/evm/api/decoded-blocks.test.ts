import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { bytesToHex } from '@ethereumjs/util'
import { MemoryLevel } from 'memory-level'
import { DecodedBlocks } from '../../../../../../src/chains/evm/api/decoded-blocks.js'
import { arraySource } from '../../../../../../src/chains/evm/exec/builder.js'
import { EvmChainCore } from '../../../../../../src/chains/evm/exec/chain.js'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'
import { addressOf, fields, genesis, transfer } from '../exec/fixtures.js'

const common = createEvmCommon(43112n)

describe('DecodedBlocks', () => {
  it('reads and decodes an accepted block once for all its tx lookups, each tx at its index', async () => {
    const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
    const chain = await EvmChainCore.open(db, genesis(2), { common, pruning: { mode: 'archive' } })
    const txs = [0, 1].map((s) => transfer(common, s, 0n, addressOf(9).bytes, { value: 1n, maxFee: 10n, tip: 2n }))
    const block = await chain.buildBlock(chain.lastAccepted().hash, fields(1n), arraySource(txs))
    await chain.acceptBlock(block.hash)
    let reads = 0
    const blocks = new DecodedBlocks(
      {
        getBlockByHash: (hash) => {
          reads++
          return chain.getBlockByHash(hash)
        },
      },
      common,
    )
    const second = await blocks.tx(block.hash, 1)
    const first = await blocks.tx(block.hash, 0)
    assert.equal(bytesToHex(first?.tx.hash() ?? new Uint8Array()), bytesToHex(txs[0]!.hash()))
    assert.equal(bytesToHex(second?.tx.hash() ?? new Uint8Array()), bytesToHex(txs[1]!.hash()))
    assert.equal((await blocks.tx(block.hash, 0))?.tx, first?.tx, 'a decoded tx is shared')
    assert.equal(reads, 1, 'one read for every lookup of the block')
    assert.equal(await blocks.tx(block.hash, 2), undefined, 'no tx at that index')
    assert.equal(await blocks.tx(new Uint8Array(32), 0), undefined, 'no such block')
    await db.close()
  })
})
