/**
 * Root of the trie of RLP(index) -> value, as for a block's transactions and receipts; computed once per block,
 * as one bulk build (state/trie-bulk.ts: RLP's encodings of the indexes are prefix-free), each node encoded and
 * hashed once.
 */
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { bulkPut } from '../state/trie-bulk.js'
import { fastKeccak256 } from './native-crypto.js'

export async function orderedTrieRoot(values: Uint8Array[]): Promise<Uint8Array> {
  // keys are not hashed; nodes are, with the native keccak when it loaded
  const trie = new MerklePatriciaTrie({ useKeyHashing: false, useKeyHashingFunction: fastKeccak256 })
  await bulkPut(
    trie,
    values.map((value, i) => [RLP.encode(i), value]),
  )
  return trie.root()
}
