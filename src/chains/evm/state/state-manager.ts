/**
 * The C chain's state manager: ethereumjs' MerkleStateManager with Avalanche's account RLP (AccountTrie),
 * normalised storage keys, and one trie commit per block: account/storage/code changes stay in the caches
 * across transactions and reach the tries only when the state root is asked for (once per block).
 */
import type { Common } from '@ethereumjs/common'
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager'
import type { Address, DB } from '@ethereumjs/util'
import { ValueEncoding } from '@ethereumjs/util'
import type { TrieReads } from './account-reads.js'
import { normaliseStorageKey } from './account-rlp.js'
import { AccountTrie } from './account-trie.js'
import './debug-colors.js'
import type { NodeLayer } from './node-layer.js'

export class AvaStateManager extends MerkleStateManager {
  readonly layer: NodeLayer

  /** `reads`: the chain's trie reads, for views (account-trie.ts); block runs go without */
  constructor(
    common: Common,
    layer: NodeLayer,
    root: Uint8Array | undefined,
    readonly reads?: TrieReads,
  ) {
    const trie = new AccountTrie(
      {
        db: layer as unknown as DB<string, string | Uint8Array>,
        valueEncoding: ValueEncoding.Bytes,
        useKeyHashing: true,
        common,
        cacheSize: 0,
        ...(root === undefined ? {} : { root }),
      },
      reads,
    )
    super({ common, trie, caches: new Caches() })
    this.layer = layer
  }

  /** checkpoints open (the call pool's balance check) */
  get checkpoints(): number {
    return this._checkpointCount
  }

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    return super.getStorage(address, normaliseStorageKey(key))
  }

  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    return super.putStorage(address, normaliseStorageKey(key), value)
  }

  /** Like the base, but the outermost commit leaves changes in the caches (flushed by getStateRoot). */
  override async commit(): Promise<void> {
    await this._trie.commit()
    this._caches?.commit()
    this._checkpointCount--
    if (this._checkpointCount === 0) this.originalStorageCache.clear()
  }

  override async revert(): Promise<void> {
    await this._trie.revert()
    this._caches?.revert()
    this._storageTries = {}
    this._checkpointCount--
    if (this._checkpointCount === 0) this.originalStorageCache.clear()
  }

  /** A copy over the same layer at the last committed root (used by the EVM for simulations). */
  override shallowCopy(): AvaStateManager {
    return new AvaStateManager(this.common, this.layer, this._trie.root(), this.reads)
  }
}
