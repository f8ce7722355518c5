/**
 * What a state trie node refers to, for the walks over stored state (pruning's mark, the accepted layer's
 * reachable nodes): a node is the RLP list of a branch (17 items: 16 children and a value), an extension (a path
 * and a child) or a leaf (a path with the leaf flag and a value). A child is a 32-byte hash of a stored node, or a
 * node under 32 bytes inlined as its raw list. An account trie's leaf value is an account whose storage root is
 * the root of another trie (contract code is stored apart, by code hash, and never walked).
 */
import { RLP } from '@ethereumjs/rlp'
import { equalsBytes, KECCAK256_RLP } from '@ethereumjs/util'

/** a raw (decoded) node or a reference */
export type Raw = Uint8Array | Raw[]

/** A reference to walk: a hash (32 bytes), an inlined node, or empty; `account` says its leaves are accounts. */
export interface Ref {
  ref: Raw
  account: boolean
}

/** The references in `node` (a decoded node) that a walk follows. */
export function nodeRefs(node: Raw, account: boolean, out: Ref[]): void {
  if (!Array.isArray(node)) return
  if (node.length === 17) {
    for (let i = 0; i < 16; i++) out.push({ ref: node[i]!, account })
    return
  }
  const path = node[0]
  const isLeaf = path instanceof Uint8Array && path.length > 0 && (path[0]! & 0x20) !== 0
  if (!isLeaf) {
    out.push({ ref: node[1]!, account })
    return
  }
  if (!account || !(node[1] instanceof Uint8Array)) return
  const fields = RLP.decode(node[1])
  const storageRoot = Array.isArray(fields) ? fields[2] : undefined
  if (storageRoot instanceof Uint8Array && !equalsBytes(storageRoot, KECCAK256_RLP)) {
    out.push({ ref: storageRoot, account: false })
  }
}
