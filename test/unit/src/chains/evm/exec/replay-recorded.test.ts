import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { MemoryLevel } from 'memory-level'
import { callPool } from '../../../../../../src/chains/evm/api/call-pool.js'
import { EvmChainCore } from '../../../../../../src/chains/evm/exec/chain.js'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'
import type { Pruning } from '../../../../../../src/chains/evm/exec/executor.js'
import { addressOf, genesis } from './fixtures.js'

/** test/fixtures/chains/record.ts's chain, recorded before issue 15's speed-ups (commit 001ac26) */
const recorded = JSON.parse(
  readFileSync(new URL('../../../../../fixtures/chains/recorded.json', import.meta.url), 'utf8'),
) as {
  senders: number
  blocks: { rlp: string; stateRoot: string; receiptRoot: string; txRoot: string; gasUsed: string }[]
}

const common = createEvmCommon(43112n)

async function replay(pruning: Pruning): Promise<{ chain: EvmChainCore; db: MemoryLevel<Uint8Array, Uint8Array> }> {
  const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
  const chain = await EvmChainCore.open(db, genesis(recorded.senders), { common, pruning })
  for (const [i, want] of recorded.blocks.entries()) {
    // the executor runs the block's txs and refuses it unless its roots, bloom and gas are what it computes
    const block = await chain.verifyBlock(hexToBytes(want.rlp as `0x${string}`))
    const h = block.header
    assert.equal(bytesToHex(h.stateRoot), want.stateRoot, `block ${i + 1} state root`)
    assert.equal(bytesToHex(h.receiptRoot), want.receiptRoot, `block ${i + 1} receipt root`)
    assert.equal(bytesToHex(h.txRoot), want.txRoot, `block ${i + 1} tx root`)
    assert.equal(`0x${h.gasUsed.toString(16)}`, want.gasUsed)
    await chain.acceptBlock(block.hash)
  }
  return { chain, db }
}

describe('a recorded chain replays to the same roots', () => {
  it('archive: every block verifies, and every recorded state stays readable', async () => {
    const { chain, db } = await replay({ mode: 'archive' })
    const head = hexToBytes(recorded.blocks.at(-1)!.stateRoot as `0x${string}`)
    assert.ok(((await chain.accountAt(head, addressOf(0))) ?? assert.fail()).nonce > 0n)
    for (const b of recorded.blocks) await chain.stateAt(hexToBytes(b.stateRoot as `0x${string}`))
    await db.close()
  })

  it('pruning every 2 blocks (only reachable nodes persisted, caches kept across pruning): the same roots', async () => {
    const { chain, db } = await replay({ mode: 'pruning', stateHistory: 2 })
    const first = hexToBytes(recorded.blocks[0]!.stateRoot as `0x${string}`)
    await assert.rejects(chain.stateAt(first), /missing trie node/, 'an old root is pruned')
    // and calls at the head run on the kept state
    await callPool(chain).take(hexToBytes(recorded.blocks.at(-1)!.stateRoot as `0x${string}`))
    await db.close()
  })
})
