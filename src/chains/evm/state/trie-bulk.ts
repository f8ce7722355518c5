/**
 * Many puts into a Merkle Patricia trie in one pass, each changed node encoded and hashed once.
 *
 * ethereumjs' `put` walks from the root to the key, changes the path and encodes and hashes every node on it: a
 * block that touches 1,000 accounts encodes the root branch (~530 bytes) 1,000 times, each branch under it about
 * 60 times, and decodes them again from the node store for the next put. Here the keys go in sorted; the walk
 * visits each node once, reading only the nodes under a changed key, builds the changed part of the trie in
 * memory and then encodes it bottom-up: each new node once. The result is the same trie (an MPT's shape is a
 * function of its keys and values only), so the same root and nodes as the puts one by one.
 *
 * Scope: inserts and updates where no key is a prefix of another (the hashed keys of the state and storage tries,
 * all of one length; the RLP-encoded indexes of a block's tx and receipt tries). Anything else (a branch holding
 * a value, a key that ends where another goes on) throws BulkUnsupported before a node is written: the caller
 * then puts key by key. Deletions are the caller's (after the puts: the final content is the same).
 */
import {
  BranchMPTNode,
  ExtensionMPTNode,
  LeafMPTNode,
  type MerklePatriciaTrie,
  type MPTNode,
  type NodeReferenceOrRawMPTNode,
} from '@ethereumjs/mpt'
import { equalsBytes } from '@ethereumjs/util'
import { unprefixedHex } from '../../../runtime/hex.js'
import { commitPause } from './writer-pause.js'

export class BulkUnsupported extends Error {}

/** A key (as nibbles) and its new value, sorted by key. */
interface Item {
  path: number[]
  value: Uint8Array
}

/** The trie being built: new nodes, and the references of subtrees left as they were. */
type Built =
  | { kind: 'leaf'; key: number[]; value: Uint8Array }
  | { kind: 'ext'; key: number[]; child: Built }
  | { kind: 'branch'; children: (Built | null)[] }
  | { kind: 'ref'; ref: NodeReferenceOrRawMPTNode }

/** What of MerklePatriciaTrie this needs (public in JS, some not in its types). */
interface TrieInternals {
  root(value?: Uint8Array): Uint8Array
  readonly EMPTY_TRIE_ROOT: Uint8Array
  lookupNode(node: NodeReferenceOrRawMPTNode): Promise<MPTNode>
  hash(bytes: Uint8Array): Uint8Array
  _getDbKey(hash: Uint8Array): Uint8Array
  _db: { batch(ops: { type: 'put'; key: Uint8Array; value: Uint8Array }[]): Promise<void> }
  _lock: { acquire(): Promise<boolean>; release(): void }
  persistRoot(): Promise<void>
}

function nibblesOf(key: Uint8Array): number[] {
  const out = new Array<number>(key.length * 2)
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i]! >> 4
    out[2 * i + 1] = key[i]! & 15
  }
  return out
}

/** nibbles `a[from..]` and `b[from..]` have in common */
function shared(a: number[], b: number[], from: number): number {
  let n = 0
  while (from + n < a.length && from + n < b.length && a[from + n] === b[from + n]) n++
  return n
}

/** `key` against `path[from..]`: how many nibbles match */
function matching(key: number[], path: number[], from: number): number {
  let n = 0
  while (n < key.length && from + n < path.length && key[n] === path[from + n]) n++
  return n
}

const compare = (a: Item, b: Item): number => {
  const n = Math.min(a.path.length, b.path.length)
  for (let i = 0; i < n; i++) if (a.path[i] !== b.path[i]) return a.path[i]! - b.path[i]!
  return a.path.length - b.path.length
}

class BulkPut {
  readonly ops: { type: 'put'; key: Uint8Array; value: Uint8Array }[] = []
  constructor(readonly trie: TrieInternals) {}

  async load(ref: NodeReferenceOrRawMPTNode): Promise<Built> {
    const pause = commitPause()
    if (pause !== undefined) await pause
    const node = await this.trie.lookupNode(ref)
    if (node instanceof LeafMPTNode) return { kind: 'leaf', key: node.key(), value: node.value() as Uint8Array }
    if (node instanceof ExtensionMPTNode)
      return { kind: 'ext', key: node.key(), child: { kind: 'ref', ref: node.value() } }
    if (node instanceof BranchMPTNode) {
      if (node.value() !== null) throw new BulkUnsupported('a branch with a value')
      return {
        kind: 'branch',
        children: Array.from({ length: 16 }, (_, i) => {
          const ref = node.getBranch(i)
          return ref === null ? null : { kind: 'ref', ref }
        }),
      }
    }
    throw new BulkUnsupported('an unknown node')
  }

  /** `items[lo..hi)` (sharing their first `d` nibbles) into `at`, the node at depth `d` (or nothing) */
  async apply(at: Built | null, items: Item[], lo: number, hi: number, d: number): Promise<Built> {
    if (at === null) return this.build(items, lo, hi, d)
    const node = at.kind === 'ref' ? await this.load(at.ref) : at
    switch (node.kind) {
      case 'leaf': {
        const path = items[lo]!.path.slice(0, d).concat(node.key)
        const old = { path, value: node.value }
        for (let i = lo; i < hi; i++) if (compare(items[i]!, old) === 0) return this.build(items, lo, hi, d)
        const merged = items.slice(lo, hi).concat(old).sort(compare)
        return this.build(merged, 0, merged.length, d)
      }
      case 'ext': {
        const k = node.key
        // the range is sorted: its least match with k is at one of its ends
        const p = Math.min(matching(k, items[lo]!.path, d), matching(k, items[hi - 1]!.path, d))
        if (p === k.length) return { kind: 'ext', key: k, child: await this.apply(node.child, items, lo, hi, d + p) }
        // the extension splits at nibble p: a branch there, the old rest under k[p]
        const rest = k.slice(p + 1)
        const old: Built = rest.length > 0 ? { kind: 'ext', key: rest, child: node.child } : node.child
        const children: (Built | null)[] = new Array(16).fill(null)
        children[k[p]!] = old
        await this.fill(children, items, lo, hi, d + p)
        const branch: Built = { kind: 'branch', children }
        return p > 0 ? { kind: 'ext', key: k.slice(0, p), child: branch } : branch
      }
      case 'branch': {
        const children = node.children.slice()
        await this.fill(children, items, lo, hi, d)
        return { kind: 'branch', children }
      }
      case 'ref':
        throw new BulkUnsupported('a reference to a reference')
    }
  }

  /** items grouped by their nibble at `d` into the children of a branch at depth `d` */
  async fill(children: (Built | null)[], items: Item[], lo: number, hi: number, d: number): Promise<void> {
    let i = lo
    while (i < hi) {
      const path = items[i]!.path
      if (d >= path.length) throw new BulkUnsupported('a key ending at a branch')
      const nibble = path[d]!
      let j = i + 1
      while (j < hi && items[j]!.path[d] === nibble) j++
      children[nibble] = await this.apply(children[nibble] ?? null, items, i, j, d + 1)
      i = j
    }
  }

  /** a new subtree of `items[lo..hi)` at depth `d` */
  async build(items: Item[], lo: number, hi: number, d: number): Promise<Built> {
    const pause = commitPause()
    if (pause !== undefined) await pause
    if (hi - lo === 1) return { kind: 'leaf', key: items[lo]!.path.slice(d), value: items[lo]!.value }
    const p = shared(items[lo]!.path, items[hi - 1]!.path, d)
    // sorted: a key that is a prefix of the others comes first
    if (d + p >= items[lo]!.path.length) throw new BulkUnsupported('a key that is a prefix of another')
    const children: (Built | null)[] = new Array(16).fill(null)
    await this.fill(children, items, lo, hi, d + p)
    const branch: Built = { kind: 'branch', children }
    return p > 0 ? { kind: 'ext', key: items[lo]!.path.slice(d, d + p), child: branch } : branch
  }

  /**
   * Encode bottom-up (letting the event loop in: writer-pause.ts): a node's hash (the node stored) when its
   * encoding is 32 bytes or more or it is the root, else its raw form (embedded in its parent).
   */
  async format(b: Built, top: boolean): Promise<NodeReferenceOrRawMPTNode> {
    if (b.kind === 'ref') return b.ref
    const pause = commitPause()
    if (pause !== undefined) await pause
    let node: MPTNode
    switch (b.kind) {
      case 'leaf':
        node = new LeafMPTNode(b.key, b.value)
        break
      case 'ext':
        node = new ExtensionMPTNode(b.key, (await this.format(b.child, false)) as Uint8Array)
        break
      case 'branch': {
        const branch = new BranchMPTNode()
        for (let i = 0; i < 16; i++) {
          const child = b.children[i]
          if (child !== null && child !== undefined) branch.setBranch(i, await this.format(child, false))
        }
        node = branch
      }
    }
    const encoded = node.serialize()
    // a small branch is embedded too (its raw form is a 17-item list, which ethereumjs' types leave out)
    if (encoded.length < 32 && !top) return node.raw() as unknown as NodeReferenceOrRawMPTNode
    const hash = this.trie.hash(encoded)
    this.ops.push({ type: 'put', key: this.trie._getDbKey(hash), value: encoded })
    return hash
  }
}

/**
 * Puts `entries` (keys as the trie stores them: already hashed; non-empty values) into `trie` as one pass.
 * Throws BulkUnsupported, with nothing written, for what it does not handle (see above).
 */
export async function bulkPut(trie: MerklePatriciaTrie, entries: [Uint8Array, Uint8Array][]): Promise<void> {
  if (entries.length === 0) return
  const t = trie as unknown as TrieInternals
  const byKey = new Map<string, Item>()
  for (const [key, value] of entries) {
    if (value.length === 0) throw new BulkUnsupported('an empty value (a delete)')
    byKey.set(unprefixedHex(key), { path: nibblesOf(key), value })
  }
  const items = [...byKey.values()].sort(compare)
  for (let i = 1; i < items.length; i++) {
    const [a, b] = [items[i - 1]!.path, items[i]!.path]
    if (shared(a, b, 0) === a.length) throw new BulkUnsupported('a key that is a prefix of another')
  }
  await t._lock.acquire()
  try {
    const bulk = new BulkPut(t)
    const root = t.root()
    const start: Built | null = equalsBytes(root, t.EMPTY_TRIE_ROOT) ? null : { kind: 'ref', ref: root }
    const built = await bulk.apply(start, items, 0, items.length, 0)
    const newRoot = (await bulk.format(built, true)) as Uint8Array
    await t._db.batch(bulk.ops)
    t.root(newRoot)
    await t.persistRoot()
  } finally {
    t._lock.release()
  }
}
