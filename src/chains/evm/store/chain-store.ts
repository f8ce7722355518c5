/**
 * The chain's accepted data in one database sublevel: blocks by hash, canonical number -> hash, receipts per
 * block, tx hash -> location, a bloom per block for log queries, the state trie nodes, and the last-accepted
 * pointer. `accept` writes all of a block's data in ONE level batch, so after a crash a block is either fully
 * there (and is the last accepted) or not there at all.
 */
import { RLP } from '@ethereumjs/rlp'
import { bigIntToBytes, bytesToBigInt, bytesToInt, intToUnpaddedBytes, setLengthLeft } from '@ethereumjs/util'
import type { AbstractLevel, AbstractSublevel } from 'abstract-level'
import { type NodeLayer, type NodeStore, readNow as read } from '../state/node-layer.js'
import { commitPause } from '../state/writer-pause.js'
import { decodeReceipts, encodeReceipts, type StoredReceipt } from './receipt.js'

// biome-ignore lint/suspicious/noExplicitAny: a sublevel of any database will do
export type ChainDb = AbstractLevel<any, any, any>
// biome-ignore lint/suspicious/noExplicitAny: see above
type Bytes = AbstractSublevel<any, any, Uint8Array, Uint8Array>

/**
 * A write that goes in an accepted block's batch: a put into one of the chain's other sublevels
 * (`ChainStore.sublevel`), or a put or delete in another sublevel of the same database (shared memory's).
 */
export type ExtraWrite =
  | { type?: 'put'; sublevel: Bytes; key: Uint8Array; value: Uint8Array }
  | { type: 'del'; sublevel: Bytes; key: Uint8Array }

export interface TxLocation {
  blockHash: Uint8Array
  blockNumber: bigint
  index: number
}

export interface AcceptedBlock {
  hash: Uint8Array
  number: bigint
  /** encodeBlock bytes */
  rlp: Uint8Array
  bloom: Uint8Array
  txHashes: Uint8Array[]
  receipts: StoredReceipt[]
  /** the block's state root: only the layer's nodes reachable from it are written (NodeLayer.batchOps) */
  stateRoot?: Uint8Array
}

const LAST_ACCEPTED = new TextEncoder().encode('lastAccepted')

/** LevelDB hands out Buffers; callers get plain Uint8Arrays (same memory). */
function plain(b: Uint8Array | undefined): Uint8Array | undefined {
  return b === undefined || b.constructor === Uint8Array ? b : new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
}

function num(n: bigint): Uint8Array {
  return setLengthLeft(bigIntToBytes(n), 8)
}

/** Decoded receipts of this many recent blocks stay in memory (receipt lookups otherwise decode the whole block's). */
const RECEIPT_CACHE_BLOCKS = 64

export class ChainStore {
  readonly nodes: NodeStore
  /** block hash (hex) -> decoded receipts; accepted receipts never change, so entries never go stale */
  private readonly receiptCache = new Map<string, StoredReceipt[]>()
  private readonly blocks: Bytes
  private readonly canonical: Bytes
  private readonly receipts: Bytes
  private readonly txs: Bytes
  private readonly blooms: Bytes
  private readonly meta: Bytes

  constructor(readonly db: ChainDb) {
    const sub = (name: string): Bytes => this.sublevel(name)
    this.nodes = sub('state')
    this.blocks = sub('blocks')
    this.canonical = sub('canonical')
    this.receipts = sub('receipts')
    this.txs = sub('txs')
    this.blooms = sub('blooms')
    this.meta = sub('meta')
  }

  /** Another sublevel of the chain's database (bytes in, bytes out), e.g. the proposer signatures. */
  sublevel(name: string): Bytes {
    return this.db.sublevel<Uint8Array, Uint8Array>(name, { keyEncoding: 'view', valueEncoding: 'view' })
  }

  async lastAcceptedHash(): Promise<Uint8Array | undefined> {
    return plain(await this.meta.get(LAST_ACCEPTED))
  }

  /** true when any block is stored (a store without a last-accepted pointer must have none) */
  async hasBlocks(): Promise<boolean> {
    for await (const _ of this.blocks.keys({ limit: 1 })) return true
    return false
  }

  async getBlock(hash: Uint8Array): Promise<Uint8Array | undefined> {
    return plain(await read(this.blocks, hash))
  }

  async canonicalHash(number: bigint): Promise<Uint8Array | undefined> {
    if (number < 0n || number >= 2n ** 64n) return undefined
    return plain(await read(this.canonical, num(number)))
  }

  /** The block's receipts (callers must not mutate them: they may be shared with the cache). */
  async getReceipts(hash: Uint8Array): Promise<StoredReceipt[] | undefined> {
    const key = Buffer.from(hash).toString('hex')
    const hit = this.receiptCache.get(key)
    if (hit !== undefined) {
      this.receiptCache.delete(key)
      this.receiptCache.set(key, hit)
      return hit
    }
    const data = await read(this.receipts, hash)
    if (data === undefined) return undefined
    const decoded = decodeReceipts(plain(data)!)
    this.receiptCache.set(key, decoded)
    if (this.receiptCache.size > RECEIPT_CACHE_BLOCKS) {
      this.receiptCache.delete(this.receiptCache.keys().next().value as string)
    }
    return decoded
  }

  async getTxLocation(txHash: Uint8Array): Promise<TxLocation | undefined> {
    const data = await read(this.txs, txHash)
    if (data === undefined) return undefined
    const [blockHash, number, index] = RLP.decode(plain(data)!) as Uint8Array[]
    return { blockHash: plain(blockHash)!, blockNumber: bytesToBigInt(number!), index: bytesToInt(index!) }
  }

  async getBloom(number: bigint): Promise<Uint8Array | undefined> {
    if (number < 0n || number >= 2n ** 64n) return undefined
    return plain(await read(this.blooms, num(number)))
  }

  /** Block, receipts, indexes, state nodes (the layer's), `extra` and the last-accepted pointer: one batch. */
  async accept(block: AcceptedBlock, layer: NodeLayer | undefined, extra: readonly ExtraWrite[] = []): Promise<void> {
    // the root's batch: abstract-level 3 prefixes a chained batch's `del` with the batch's own sublevel (it takes
    // the given one for a descendant), so a delete in shared memory's sublevel needs the common root
    const root = (this.db as unknown as { db?: ChainDb }).db ?? this.db
    const batch = root.batch()
    for (const e of extra) {
      if (e.type === 'del') batch.del(e.key, { sublevel: e.sublevel })
      else batch.put(e.key, e.value, { sublevel: e.sublevel })
    }
    // a block of thousands of txs has thousands of ops (~5 us each through abstract-level): the writer's pauses
    // let the event loop in meanwhile (state/writer-pause.ts)
    for (const op of (await layer?.batchOps(block.stateRoot)) ?? []) {
      batch.put(op.key, op.value, { sublevel: this.nodes })
      const pause = commitPause()
      if (pause !== undefined) await pause
    }
    batch.put(block.hash, block.rlp, { sublevel: this.blocks })
    batch.put(num(block.number), block.hash, { sublevel: this.canonical })
    batch.put(num(block.number), block.bloom, { sublevel: this.blooms })
    batch.put(block.hash, encodeReceipts(block.receipts), { sublevel: this.receipts })
    const blockNumber = bigIntToBytes(block.number)
    for (const [i, txHash] of block.txHashes.entries()) {
      batch.put(txHash, RLP.encode([block.hash, blockNumber, intToUnpaddedBytes(i)]), { sublevel: this.txs })
      const pause = commitPause()
      if (pause !== undefined) await pause
    }
    batch.put(LAST_ACCEPTED, block.hash, { sublevel: this.meta })
    await batch.write()
  }
}
