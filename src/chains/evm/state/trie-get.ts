/**
 * A trie read without ethereumjs' walk: from the root down the key's nibbles, a node at a time, the nodes the
 * chain's node cache holds coming already decoded.
 *
 * ethereumjs' `get` finds a key through `findPath`, a general walk (a WalkController, a task queue and a promise per
 * node) that decodes every node on the path again from its RLP: ~70 µs of every ERC-20 transfer in the node, most
 * of it decoding the same top levels of the same tries (docs/performance.md, "Sixth round"). The answer here is
 * ethereumjs' answer: a branch where the key ends gives its value, an extension must match the key's next nibbles,
 * a leaf must match the rest exactly, a missing child or a mismatch is `null`, and so is a node missing from the
 * database (ethereumjs' `get` without `throwIfMissing`; with it, callers use ethereumjs' own). A node's key is its
 * hash, so a decoded node kept by that hash is the node wherever it is stored; the nodes handed out here are only
 * read, never changed (ethereumjs changes the nodes of its own walk when it writes, and those are its own).
 */
import type { LeafMPTNode, MerklePatriciaTrie, MPTNode } from '@ethereumjs/mpt'
import { BranchMPTNode, ExtensionMPTNode } from '@ethereumjs/mpt'
import { equalsBytes } from '@ethereumjs/util'
import { unprefixedHex } from '../../../runtime/hex.js'

/** where decoded nodes are kept: the chain's node cache (node-layer.ts `NodeCache.decoded`) */
export interface DecodedNodes {
  decoded(key: string): MPTNode | undefined
}

/** ethereumjs' text for a node the database does not have (mpt.ts `lookupNode`) */
const MISSING_NODE = 'Missing node in DB'

/** The nibble at `i` of `key`. */
const nibble = (key: Uint8Array, i: number): number => ((i & 1) === 0 ? key[i >> 1]! >> 4 : key[i >> 1]! & 15)

/** Whether `nibbles` are the nibbles of `key` from `at` on: all of them when `whole` (a leaf), else a prefix. */
function matches(nibbles: number[], key: Uint8Array, at: number, whole: boolean): boolean {
  const left = key.length * 2 - at
  if (whole ? nibbles.length !== left : nibbles.length > left) return false
  for (let i = 0; i < nibbles.length; i++) if (nibbles[i] !== nibble(key, at + i)) return false
  return true
}

/** The value at `key` (already hashed when the trie hashes its keys), as ethereumjs' `get(key)` gives it. */
export async function trieValue(
  trie: MerklePatriciaTrie,
  key: Uint8Array,
  nodes: DecodedNodes | undefined,
): Promise<Uint8Array | null> {
  const root = trie.root()
  if (equalsBytes(root, trie.EMPTY_TRIE_ROOT)) return null
  let ref: Uint8Array | Uint8Array[] = root
  let at = 0
  try {
    for (;;) {
      const node: MPTNode =
        (ref instanceof Uint8Array && ref.length === 32 ? nodes?.decoded(unprefixedHex(ref)) : undefined) ??
        (await trie.lookupNode(ref))
      if (node instanceof BranchMPTNode) {
        if (at === key.length * 2) return node.value()
        const child = node.getBranch(nibble(key, at))
        if (child === null) return null
        at++
        ref = child
      } else if (node instanceof ExtensionMPTNode) {
        const nibbles = node.key()
        if (!matches(nibbles, key, at, false)) return null
        at += nibbles.length
        ref = node.value()
      } else {
        const leaf = node as LeafMPTNode
        return matches(leaf.key(), key, at, true) ? leaf.value() : null
      }
    }
  } catch (err) {
    if (err instanceof Error && err.message === MISSING_NODE) return null
    throw err
  }
}
