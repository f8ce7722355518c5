/**
 * Pruning by mark and sweep, run by the single writer between blocks: mark every trie node reachable from the
 * roots that must stay readable (the last `stateHistory` accepted roots), then delete every other trie node of
 * the store. Nodes are content-addressed and shared between roots, so marking stops at a node already marked.
 * Contract code (keys of 33 bytes: 'c' ‖ codeHash) is never deleted. Cost: one walk over the kept state plus one
 * scan of the node keys, so the executor runs it at most every `stateHistory` blocks, and only once as many nodes
 * were accepted since the last prune as that one kept (exec/executor.ts). The read caches (node-layer.ts,
 * account-reads.ts) drop only what pruning made unreadable. The mark reads nodes with LevelDB's `getSync` when it
 * can (an async read per node left the writer waiting on the thread pool most of a prune) and lets the event loop
 * in every slice of the writer (writer-pause.ts).
 */
import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_RLP } from '@ethereumjs/util'
import { unprefixedHex } from '../../../runtime/hex.js'
import { accountReads, rootOfAccountKey, trieReads } from './account-reads.js'
import { type NodeStore, nodeCache, readNow } from './node-layer.js'
import { nodeRefs, type Raw, type Ref } from './trie-refs.js'
import { commitPause } from './writer-pause.js'

/** Mark the nodes of the trie at `root` (leaves are accounts whose storage tries are walked too). */
async function mark(store: NodeStore, root: Uint8Array, marked: Set<string>): Promise<void> {
  const cache = nodeCache(store)
  const todo: Ref[] = [{ ref: root, account: true }]
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    const { ref, account } = next
    if (!(ref instanceof Uint8Array)) {
      nodeRefs(ref, account, todo)
      continue
    }
    if (ref.length === 0) continue
    if (ref.length !== 32) {
      nodeRefs(RLP.decode(ref) as Raw, account, todo)
      continue
    }
    const key = unprefixedHex(ref)
    if (marked.has(key)) continue
    const pause = commitPause()
    if (pause !== undefined) await pause
    const read = cache.peek(key) ?? readNow(store, ref)
    const bytes = read instanceof Promise ? await read : read
    if (bytes === undefined) continue
    marked.add(key)
    nodeRefs(RLP.decode(bytes) as Raw, account, todo)
  }
}

/** Delete the trie nodes not reachable from `keep`; returns how many were deleted and how many kept. */
export async function pruneState(store: NodeStore, keep: Uint8Array[]): Promise<{ deleted: number; kept: number }> {
  const marked = new Set<string>()
  for (const root of keep) await mark(store, root, marked)
  const dead: Uint8Array[] = []
  // the keys in chunks (one promise per 2,000 keys, not per key), the writer's pauses between them
  const keys = store.keys()
  try {
    for (let chunk = await keys.nextv(2_000); chunk.length > 0; chunk = await keys.nextv(2_000)) {
      for (const key of chunk) if (key.length === 32 && !marked.has(unprefixedHex(key))) dead.push(key)
      const pause = commitPause()
      if (pause !== undefined) await pause
    }
  } finally {
    await keys.close()
  }
  // in batches the event loop gets in between (an array batch's ops are checked and encoded in one go)
  for (let i = 0; i < dead.length; i += 2_000) {
    await store.batch(dead.slice(i, i + 2_000).map((key) => ({ type: 'del' as const, key })))
  }
  // a pruned root reads as missing again: the read caches forget what was deleted and what was read at a root
  // that is gone (a kept root's trie is kept whole, so its reads stay true)
  nodeCache(store).retain((key) => key.length !== 64 || marked.has(key))
  const kept = (root: string): boolean => root === EMPTY_ROOT || marked.has(root)
  const reads = trieReads(store)
  for (const key of reads.keys()) if (!kept(key.slice(0, 64))) reads.delete(key)
  const accounts = accountReads(store)
  for (const key of accounts.keys()) if (!kept(rootOfAccountKey(key))) accounts.delete(key)
  return { deleted: dead.length, kept: marked.size }
}

const EMPTY_ROOT = unprefixedHex(KECCAK256_RLP)
