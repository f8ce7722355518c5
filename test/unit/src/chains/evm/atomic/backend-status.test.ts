/**
 * AtomicBackend's `status` and `find` while a block holding the tx is accepted: the index (a real memory-level
 * sublevel) is read, the block is accepted (index written, then the tx leaves the mempool and the processing
 * blocks, the order src/chains/evm/atomic/backend.ts `accept` and src/chains/evm/exec/executor.ts `accept` keep),
 * and only then does the read's miss come back. The answer is the state when the call began (Processing, the tx's
 * bytes), never Unknown: the atomic network and crash tests saw that Unknown on a dev node polling its own tx.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MemoryLevel } from 'memory-level'
import { AtomicBackend } from '../../../../../../src/chains/evm/atomic/backend.js'
import { fromHex } from '../../../../../../src/chains/evm/atomic/hex.js'
import { decodedOf } from '../../../../../../src/chains/evm/atomic/ids.js'
import { pooled } from '../../../../../../src/chains/evm/atomic/mempool.js'
import type { ExecutedBlock } from '../../../../../../src/chains/evm/exec/executor.js'
import type { ChainSharedMemory } from '../../../../../../src/chains/shared-memory/shared-memory.js'
import { importTx, LOCAL } from './fixtures.js'

/** A real sublevel whose `get` answers only when `release` is called, after it has read (`read` resolves then). */
function heldIndex() {
  const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
  const sub = db.sublevel<Uint8Array, Uint8Array>('atomicTxs', { keyEncoding: 'view', valueEncoding: 'view' })
  let read!: () => void
  const hasRead = new Promise<void>((r) => {
    read = r
  })
  let release!: () => void
  const released = new Promise<void>((r) => {
    release = r
  })
  const index = {
    get: async (key: Uint8Array) => {
      const value = await sub.get(key)
      read()
      await released
      return value
    },
  }
  return { db, sub, index, hasRead, release }
}

function setup() {
  const held = heldIndex()
  const backend = new AtomicBackend({
    ctx: { ...LOCAL, chainId: LOCAL.cChainId, sameSubnet: () => true },
    memory: undefined as unknown as ChainSharedMemory,
    index: held.index,
    now: () => 0,
  })
  const d = decodedOf({ unsigned: importTx(), credentials: [{ signatures: [`0x${'11'.repeat(65)}`] }] })
  backend.mempool.add(pooled(d, 10_000n, 100n), true)
  backend.mempool.markIssued([d.id])
  const block = { atomic: [d], header: { number: 7n } } as unknown as ExecutedBlock
  const processing = new Map([['b', block]])
  /** what accepting the block does, in its order: the index in the block's batch, then memory */
  const accept = async () => {
    const value = new Uint8Array(8 + d.signedBytes.length)
    new DataView(value.buffer).setBigUint64(0, 7n)
    value.set(d.signedBytes, 8)
    await held.sub.put(fromHex(d.id, 32, 'tx ID'), value)
    processing.delete('b')
    backend.accepted(block)
  }
  return { ...held, backend, d, processing, accept }
}

describe('AtomicBackend status and find while the block is accepted', () => {
  it('status: Processing (as when asked), not Unknown; Accepted once asked again', async () => {
    const s = setup()
    const answer = s.backend.status(s.d.id, 6n, s.processing.values())
    await s.hasRead
    await s.accept()
    s.release()
    assert.deepEqual(await answer, { status: 'Processing' })
    assert.deepEqual(await s.backend.status(s.d.id, 7n, s.processing.values()), {
      status: 'Accepted',
      blockHeight: 7n,
    })
    await s.db.close()
  })

  it("find: the tx's bytes, not undefined; with its height once asked again", async () => {
    const s = setup()
    const answer = s.backend.find(s.d.id, s.processing.values())
    await s.hasRead
    await s.accept()
    s.release()
    assert.deepEqual(await answer, { bytes: s.d.signedBytes })
    assert.deepEqual(await s.backend.find(s.d.id, s.processing.values()), {
      bytes: s.d.signedBytes,
      blockHeight: 7n,
    })
    await s.db.close()
  })
})
