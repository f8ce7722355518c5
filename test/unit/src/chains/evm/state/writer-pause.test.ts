import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Account, Address } from '@ethereumjs/util'
import { MemoryLevel } from 'memory-level'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'
import { orderedTrieRoot } from '../../../../../../src/chains/evm/exec/trie-root.js'
import { NodeLayer } from '../../../../../../src/chains/evm/state/node-layer.js'
import { AvaStateManager } from '../../../../../../src/chains/evm/state/state-manager.js'
import { commitPause } from '../../../../../../src/chains/evm/state/writer-pause.js'
import { ChainStore } from '../../../../../../src/chains/evm/store/chain-store.js'

const common = createEvmCommon(43112n)

/** how many times a 1 ms timer fired while `work` ran (0 if it never let the event loop in) */
async function ticksDuring(work: () => Promise<unknown>): Promise<{ ticks: number; ms: number }> {
  let ticks = 0
  const timer = setInterval(() => ticks++, 1)
  const started = performance.now()
  try {
    await work()
  } finally {
    clearInterval(timer)
  }
  return { ticks, ms: performance.now() - started }
}

describe('the writer lets the event loop in', () => {
  it('while it commits a big state, builds a big ordered trie and walks the layer it accepts', async () => {
    const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
    const layer = new NodeLayer(new ChainStore(db).nodes)
    const sm = new AvaStateManager(common, layer, undefined)
    for (let i = 1; i <= 3000; i++) {
      const bytes = new Uint8Array(20)
      new DataView(bytes.buffer).setUint32(16, i)
      await sm.putAccount(new Address(bytes), new Account(0n, BigInt(i)))
    }
    let root: Uint8Array = new Uint8Array(0)
    const commit = await ticksDuring(async () => {
      root = await sm.getStateRoot()
    })
    assert.ok(commit.ms < 5 || commit.ticks > 0, `commit: ${commit.ms.toFixed(0)} ms without a turn of the loop`)
    const values = Array.from({ length: 3000 }, (_, i) => new Uint8Array(100).fill(i & 0xff))
    const trie = await ticksDuring(() => orderedTrieRoot(values))
    assert.ok(trie.ms < 5 || trie.ticks > 0, `tx trie: ${trie.ms.toFixed(0)} ms without a turn of the loop`)
    const walk = await ticksDuring(() => layer.batchOps(root))
    assert.ok(walk.ms < 5 || walk.ticks > 0, `layer walk: ${walk.ms.toFixed(0)} ms without a turn of the loop`)
    assert.ok(commit.ms >= 5, 'the commit is long enough to need a pause')
    await db.close()
  })

  it("goes on only after the end of the next turn, where that turn's answers are written", async () => {
    const order: string[] = []
    const busyUntil = performance.now() + 6
    while (performance.now() < busyUntil) {
      // a slice of the writer's work
    }
    const pause = commitPause()
    assert.ok(pause !== undefined, 'a slice of 6 ms asks for a pause')
    // an answer queued for the end of a turn after the pause began (src/api/http/turn-writes.ts uses setImmediate)
    setImmediate(() => order.push('answer'))
    await pause
    order.push('writer')
    assert.deepEqual(order, ['answer', 'writer'])
  })
})
