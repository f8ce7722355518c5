/**
 * Where the state tries keep their nodes: a layer of nodes written by one (not yet accepted) block, over the
 * layer of its parent block, over the accepted nodes in the database. Tries write only into the top layer; the
 * executor puts a layer's nodes in the same level batch as its block when the block is accepted, and drops the
 * layer when the block is rejected. Node keys are content hashes, so a lookup down the chain is always sound.
 */

import { decodeMPTNode, type MPTNode } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import type { BatchDBOp, DB, EncodingOpts } from '@ethereumjs/util'
import { unprefixedHexToBytes } from '@ethereumjs/util'
import type { AbstractSublevel } from 'abstract-level'
import { unprefixedHex } from '../../../runtime/hex.js'
import { perObject } from '../../../runtime/per-object.js'
import { nodeRefs, type Raw, type Ref } from './trie-refs.js'
import { commitPause } from './writer-pause.js'

// biome-ignore lint/suspicious/noExplicitAny: the parent database's type does not matter to a sublevel user
export type NodeStore = AbstractSublevel<any, any, Uint8Array, Uint8Array>

/**
 * A read without the thread pool when the database can (LevelDB's `getSync`, memory-level's too): ~2 us against
 * ~35 us for an async get through two sublevels. Trie nodes and the chain's records are small, their blocks
 * mostly in LevelDB's cache; the answer is the same either way.
 */
export function readNow(
  // biome-ignore lint/suspicious/noExplicitAny: a sublevel of any database will do
  level: AbstractSublevel<any, any, Uint8Array, Uint8Array>,
  key: Uint8Array,
): Uint8Array | undefined | Promise<Uint8Array | undefined> {
  return (level.supports as { getSync?: boolean }).getSync === true && level.status === 'open'
    ? level.getSync(key)
    : level.get(key)
}

export class NodeLayer implements DB<string, Uint8Array> {
  /** nodes written into this layer, by unprefixed hex key */
  readonly writes = new Map<string, Uint8Array>()
  /** false once the layer is read-only (a view, or a block whose execution has finished) */
  writable: boolean
  /** the chain's cache of the store's nodes */
  readonly #cache: NodeCache

  constructor(
    readonly store: NodeStore,
    /** the parent block's layer while that block is not accepted yet */
    public parent: NodeLayer | undefined = undefined,
    writable = true,
  ) {
    this.writable = writable
    this.#cache = nodeCache(store)
  }

  async get(key: string, _opts?: EncodingOpts): Promise<Uint8Array | undefined> {
    for (let layer: NodeLayer | undefined = this; layer !== undefined; layer = layer.parent) {
      const hit = layer.writes.get(key)
      if (hit !== undefined) return hit
    }
    const cached = this.#cache.get(key)
    if (cached !== undefined) return cached
    const value = await readNow(this.store, unprefixedHexToBytes(key))
    if (value !== undefined) this.#cache.set(key, value)
    return value
  }

  /** A node of the chain's node cache, decoded (trie-get.ts); undefined when it is not cached. */
  decoded(key: string): MPTNode | undefined {
    return this.#cache.decoded(key)
  }

  async put(key: string, value: Uint8Array, _opts?: EncodingOpts): Promise<void> {
    if (!this.writable) throw new Error('state view is read-only')
    this.writes.set(key, value)
  }

  /** Nodes are never deleted by a trie (node pruning is off); pruning works on accepted roots instead. */
  async del(_key: string, _opts?: EncodingOpts): Promise<void> {}

  async batch(ops: BatchDBOp<string, Uint8Array>[]): Promise<void> {
    for (const op of ops) if (op.type === 'put') await this.put(op.key, op.value)
  }

  /** Storage tries are shallow copies of the account trie: they must write into the same layer. */
  shallowCopy(): DB<string, Uint8Array> {
    return this
  }

  async open(): Promise<void> {}

  /**
   * The level batch operations that persist this layer's nodes (the accepted state's nodes: cached too). With the
   * block's state root, only the nodes reachable from it. A block's puts write final nodes only (trie-bulk.ts),
   * but a layer can still hold nodes no state refers to: ethereumjs' deletes (accounts and slots cleared) and the
   * key-by-key puts of shapes the bulk pass leaves alone write every version of a path. Code (keys that are not a
   * 32-byte hash) is kept.
   */
  async batchOps(
    root?: Uint8Array,
  ): Promise<{ type: 'put'; sublevel: NodeStore; key: Uint8Array; value: Uint8Array }[]> {
    const keep = root === undefined ? undefined : await this.reachable(root)
    const ops: { type: 'put'; sublevel: NodeStore; key: Uint8Array; value: Uint8Array }[] = []
    for (const [key, value] of this.writes) {
      if (keep !== undefined && key.length === 64 && !keep.has(key)) continue
      ops.push({ type: 'put', sublevel: this.store, key: unprefixedHexToBytes(key), value })
      this.#cache.set(key, value)
      const pause = commitPause()
      if (pause !== undefined) await pause
    }
    return ops
  }

  /** The keys of this layer's trie nodes reachable from `root` (a walk that stops at nodes of older layers). */
  async reachable(root: Uint8Array): Promise<Set<string>> {
    const keep = new Set<string>()
    const todo: Ref[] = [{ ref: root, account: true }]
    for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
      const pause = commitPause()
      if (pause !== undefined) await pause
      const { ref, account } = next
      if (!(ref instanceof Uint8Array)) nodeRefs(ref, account, todo)
      else if (ref.length === 32) {
        const key = unprefixedHex(ref)
        const bytes = keep.has(key) ? undefined : this.writes.get(key)
        if (bytes === undefined) continue
        keep.add(key)
        nodeRefs(RLP.decode(bytes) as Raw, account, todo)
      }
    }
    return keep
  }
}

/** a cached node: its RLP, whether it was read since the hand passed, its decoded form once a trie read asked */
interface CachedNode {
  value: Uint8Array
  used: boolean
  node?: MPTNode
}

/** what a decoded node is counted as, over its RLP: its objects are several times the RLP's size */
const decodedBytes = (value: Uint8Array): number => 4 * value.length + 512

/**
 * The database's trie nodes most recently read or accepted, by unprefixed hex key, up to `maxBytes` of values (and
 * of the decoded nodes trie reads asked for, `decoded`). A node's key is its hash, so a cached node is never stale;
 * pruning drops the nodes it deletes (`retain`), so a pruned root reads as missing again. Every state read
 * (eth_getBalance, eth_call, block execution) walks the trie from its root: without it each node on the path was a
 * LevelDB read.
 *
 * Eviction is a clock (second chance): a read marks its node, the hand moves over the nodes in insertion order, takes
 * a mark off or evicts an unmarked node. One iterator is kept as the hand. The least-recently-used order this had
 * before re-inserted a node on every hit, and each eviction started a fresh iterator that walked every hole those
 * deletes left at the front of the map's table (V8 keeps them until it rebuilds it): 24 µs per read-read-read-insert
 * round and single inserts of 14 ms once full (70,000 nodes), as `remember` had (runtime/bounded-map.ts).
 */
export class NodeCache {
  readonly #map = new Map<string, CachedNode>()
  #hand: MapIterator<[string, CachedNode]> | undefined
  #bytes = 0

  constructor(readonly maxBytes: number) {}

  get size(): number {
    return this.#map.size
  }

  get bytes(): number {
    return this.#bytes
  }

  /** The cached node, without marking it as read (pruning's walk over the whole state). */
  peek(key: string): Uint8Array | undefined {
    return this.#map.get(key)?.value
  }

  get(key: string): Uint8Array | undefined {
    const entry = this.#map.get(key)
    if (entry === undefined) return undefined
    entry.used = true
    return entry.value
  }

  /**
   * The cached node decoded (decoded on the first ask and kept with it; counted in the cache's bytes), for trie
   * reads that only read it (trie-get.ts). undefined when the node is not cached.
   */
  decoded(key: string): MPTNode | undefined {
    const entry = this.#map.get(key)
    if (entry === undefined) return undefined
    entry.used = true
    if (entry.node !== undefined) return entry.node
    const node = decodeMPTNode(entry.value)
    entry.node = node
    this.#bytes += decodedBytes(entry.value)
    while (this.#bytes > this.maxBytes && this.#evictOne()) {}
    return node
  }

  set(key: string, value: Uint8Array): void {
    if (this.#map.has(key)) return
    this.#map.set(key, { value, used: false })
    this.#bytes += value.length + key.length
    while (this.#bytes > this.maxBytes && this.#evictOne()) {}
  }

  /** Moves the hand to the next node without a mark and evicts it; false when the cache is empty. */
  #evictOne(): boolean {
    for (;;) {
      let step = this.#hand?.next()
      if (step === undefined || step.done === true) {
        this.#hand = this.#map.entries()
        step = this.#hand.next()
        if (step.done === true) return false
      }
      const [key, entry] = step.value
      if (entry.used) {
        entry.used = false
        continue
      }
      this.#drop(key, entry)
      return true
    }
  }

  #drop(key: string, entry: CachedNode): void {
    this.#map.delete(key)
    this.#bytes -= entry.value.length + key.length + (entry.node === undefined ? 0 : decodedBytes(entry.value))
  }

  /** Keep only the nodes `keep` says yes to. */
  retain(keep: (key: string) => boolean): void {
    for (const [key, entry] of this.#map) {
      if (!keep(key)) this.#drop(key, entry)
    }
  }

  clear(): void {
    this.#map.clear()
    this.#hand = undefined
    this.#bytes = 0
  }
}

/** 32 MiB of trie nodes per chain (about 70,000 nodes of a busy account trie) */
export const NODE_CACHE_BYTES = 32 * 1024 * 1024
/** The node cache of a chain's node store. */
export const nodeCache: (store: NodeStore) => NodeCache = perObject(() => new NodeCache(NODE_CACHE_BYTES))
