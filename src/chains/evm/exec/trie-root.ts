/** Root of the trie of RLP(index) -> value, as for a block's transactions and receipts; computed once per block. */
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { commitPause } from '../state/writer-pause.js'
import { fastKeccak256 } from './native-crypto.js'

export async function orderedTrieRoot(values: Uint8Array[]): Promise<Uint8Array> {
  // keys are not hashed; nodes are, with the native keccak when it loaded
  const trie = new MerklePatriciaTrie({ useKeyHashing: false, useKeyHashingFunction: fastKeccak256 })
  for (let i = 0; i < values.length; i++) {
    // a block of thousands of txs: the event loop gets in between slices (state/writer-pause.ts)
    const pause = commitPause()
    if (pause !== undefined) await pause
    await trie.put(RLP.encode(i), values[i]!)
  }
  return trie.root()
}
