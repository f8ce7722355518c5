/**
 * The account trie: a Merkle Patricia trie that stores accounts in Avalanche's 5-field RLP. Reads need no
 * change (ethereumjs decodes the first four fields and ignores the fifth); writes append `isMultiCoin`.
 * Storage tries are the base class: `shallowCopy` of this trie builds a plain MerklePatriciaTrie.
 */

import type { MPTOpts } from '@ethereumjs/mpt'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { withMultiCoin } from './account-rlp.js'

export class AccountTrie extends MerklePatriciaTrie {
  constructor(opts: MPTOpts) {
    super(opts)
  }

  override async put(key: Uint8Array, value: Uint8Array | null, skipKeyTransform = false): Promise<void> {
    const stored = value === null || value.length === 0 ? value : withMultiCoin(value)
    return super.put(key, stored, skipKeyTransform)
  }
}
