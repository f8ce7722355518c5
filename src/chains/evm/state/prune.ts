/**
 * Pruning by mark and sweep, run by the single writer between blocks: mark every trie node reachable from the
 * roots that must stay readable (the last `stateHistory` accepted roots), then delete every other trie node of
 * the store. Nodes are content-addressed and shared between roots, so marking stops at a node already marked.
 * Contract code (keys of 33 bytes: 'c' ‖ codeHash) is never deleted. Cost: one walk over the kept state plus one
 * scan of the node keys, so the executor runs it every `stateHistory` blocks, not after each block.
 */
import { RLP } from '@ethereumjs/rlp'
import { bytesToUnprefixedHex, KECCAK256_RLP } from '@ethereumjs/util'
import { accountReads, trieReads } from './account-reads.js'
import { type NodeStore, nodeCache } from './node-layer.js'

type Raw = Uint8Array | Raw[]

/** Mark the nodes of the trie at `ref`; `account` says leaves are accounts whose storage tries are walked too. */
async function mark(store: NodeStore, ref: Raw, account: boolean, marked: Set<string>): Promise<void> {
  let node: Raw
  if (ref instanceof Uint8Array) {
    if (ref.length === 0) return
    if (ref.length !== 32) {
      node = RLP.decode(ref) as Raw
    } else {
      const key = bytesToUnprefixedHex(ref)
      if (marked.has(key)) return
      const bytes = await store.get(ref)
      if (bytes === undefined) return
      marked.add(key)
      node = RLP.decode(bytes) as Raw
    }
  } else {
    node = ref
  }
  if (!Array.isArray(node)) return
  if (node.length === 17) {
    for (let i = 0; i < 16; i++) await mark(store, node[i]!, account, marked)
    return
  }
  const path = node[0]
  const isLeaf = path instanceof Uint8Array && path.length > 0 && (path[0]! & 0x20) !== 0
  if (!isLeaf) return mark(store, node[1]!, account, marked)
  if (!account || !(node[1] instanceof Uint8Array)) return
  const fields = RLP.decode(node[1])
  const storageRoot = Array.isArray(fields) ? fields[2] : undefined
  if (storageRoot instanceof Uint8Array && !equals(storageRoot, KECCAK256_RLP)) {
    await mark(store, storageRoot, false, marked)
  }
}

function equals(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** Delete the trie nodes not reachable from `keep`; returns how many were deleted. */
export async function pruneState(store: NodeStore, keep: Uint8Array[]): Promise<number> {
  const marked = new Set<string>()
  for (const root of keep) await mark(store, root, true, marked)
  const dead: Uint8Array[] = []
  for await (const key of store.keys()) {
    if (key.length === 32 && !marked.has(bytesToUnprefixedHex(key))) dead.push(key)
  }
  for (let i = 0; i < dead.length; i += 10_000) {
    await store.batch(dead.slice(i, i + 10_000).map((key) => ({ type: 'del' as const, key })))
  }
  // a pruned root reads as missing again
  nodeCache(store).clear()
  accountReads(store).clear()
  trieReads(store).clear()
  return dead.length
}
