/**
 * The bootstrap floor of the consensus bench: the accepted blocks' RLP read straight from a stopped node's
 * LevelDB (the C chain's sublevel, canonical number -> hash -> block), then the same blocks executed in process
 * on a fresh EvmVm with the network's preset (test/helpers/evm-chain.ts: evmPreset(12345, { dev: true }) on
 * memory-level), vm.verifyBlock(rlp) + vm.acceptBlock(hash) one block at a time.
 */
import { RLP } from '@ethereumjs/rlp'
import { type ChainDb, ChainStore } from '../../src/chains/evm/store/chain-store.js'
import { chainIds } from '../../src/config/chain-ids.js'
import { openDatabase } from '../../src/db/open.js'
import { Sublevel } from '../../src/db/sublevels.js'
import { openTestChain } from '../../test/helpers/evm-chain.js'

const LOCAL_NETWORK_ID = 12345

/** Blocks 1..`to` (or up to the last accepted one) of the C chain in the LevelDB at `path` (node stopped). */
export async function readAcceptedBlocks(path: string, to = Number.POSITIVE_INFINITY): Promise<Uint8Array[]> {
  const db = await openDatabase({ type: 'leveldb', path })
  try {
    const chain = db.sublevel<Uint8Array, Uint8Array>(Sublevel.chain(chainIds(LOCAL_NETWORK_ID).C), {
      keyEncoding: 'view',
      valueEncoding: 'view',
    }) as unknown as ChainDb
    const store = new ChainStore(chain)
    const out: Uint8Array[] = []
    for (let n = 1; n <= to; n++) {
      const hash = await store.canonicalHash(BigInt(n))
      if (hash === undefined) break
      const rlp = await store.getBlock(hash)
      if (rlp === undefined) throw new Error(`block ${n} (${Buffer.from(hash).toString('hex')}) missing`)
      out.push(Uint8Array.from(rlp))
    }
    return out
  } finally {
    await db.close()
  }
}

/** Verify + accept `blocks` on a fresh VM; returns the ms it took. */
async function replay(blocks: Uint8Array[]): Promise<number> {
  const chain = await openTestChain({ dev: true })
  try {
    const t0 = performance.now()
    for (const rlp of blocks) {
      const b = await chain.vm.verifyBlock(rlp)
      await chain.vm.acceptBlock(b.hash)
    }
    return performance.now() - t0
  } finally {
    await chain.close()
  }
}

export interface FloorResult {
  blocks: number
  txs: number
  seconds: number
  blocksPerSec: number
}

/** Replay the first `warmup` blocks once (JIT), then all of them on a fresh VM, timed. */
export async function floorReplay(blocks: Uint8Array[], warmup = 200): Promise<FloorResult> {
  const txs = blocks.reduce((sum, rlp) => sum + ((RLP.decode(rlp) as unknown[])[1] as unknown[]).length, 0)
  await replay(blocks.slice(0, warmup))
  const ms = await replay(blocks)
  return {
    blocks: blocks.length,
    txs,
    seconds: Math.round(ms) / 1000,
    blocksPerSec: Math.round((blocks.length / ms) * 10_000) / 10,
  }
}
