/**
 * The account trie: a Merkle Patricia trie that stores accounts in Avalanche's 5-field RLP. Reads need no
 * change (ethereumjs decodes the first four fields and ignores the fifth); writes append `isMultiCoin`.
 * Storage tries are plain Merkle Patricia tries: `shallowCopy` of this trie builds a `StorageTrie`.
 *
 * Both may share a chain's trie reads (account-reads.ts `trieReads`): the value at a key of a trie whose root is
 * R, by (R, key). A root is the hash of the trie's whole content, so such an entry is never stale, whoever wrote
 * the trie and whether it has checkpoints; a hit skips the key's hash and the walk from the root (a node lookup and
 * an RLP decode per level). State views (eth_call, estimateGas, proofs) use it: their reads are at roots that many
 * calls share. Block runs do not: they read each parent root once and would only push shared entries out.
 */
import type { MPTOpts } from '@ethereumjs/mpt'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { remember } from '../../../runtime/bounded-map.js'
import { unprefixedHex } from '../../../runtime/hex.js'
import { TRIE_READS, type TrieReads } from './account-reads.js'
import { withMultiCoin } from './account-rlp.js'
import { NodeLayer } from './node-layer.js'
import { BulkUnsupported, bulkPut } from './trie-bulk.js'
import { trieValue } from './trie-get.js'
import { commitPause } from './writer-pause.js'

/** the trie's root as unprefixed hex, converted once per root */
class RootId {
  #root: Uint8Array | undefined
  #id = ''

  of(root: Uint8Array): string {
    if (root !== this.#root) {
      this.#root = root
      this.#id = unprefixedHex(root)
    }
    return this.#id
  }
}

/** A contract's storage trie (a plain Merkle Patricia trie), reading through the chain's trie reads when given. */
export class StorageTrie extends MerklePatriciaTrie {
  readonly #rootId = new RootId()

  constructor(
    opts: MPTOpts,
    readonly reads?: TrieReads,
  ) {
    super(opts)
  }

  override async get(key: Uint8Array, throwIfMissing = false): Promise<Uint8Array | null> {
    const reads = this.reads
    if (reads === undefined) return this.#read(key, throwIfMissing)
    const id = this.#rootId.of(this.root()) + unprefixedHex(key)
    const hit = reads.get(id)
    if (hit !== undefined) return hit
    const value = await this.#read(key, throwIfMissing)
    remember(reads, id, value, TRIE_READS)
    return value
  }

  /** ethereumjs' `get`; without `throwIfMissing`, the same answer read directly (trie-get.ts) */
  #read(key: Uint8Array, throwIfMissing: boolean): Promise<Uint8Array | null> {
    if (throwIfMissing) return super.get(key, true)
    const db = this._db.db
    return trieValue(this, this.appliedKey(key), db instanceof NodeLayer ? db : undefined)
  }

  override async put(key: Uint8Array, value: Uint8Array | null, skipKeyTransform = false): Promise<void> {
    const pause = commitPause()
    if (pause !== undefined) await pause
    return super.put(key, value, skipKeyTransform)
  }

  /**
   * Puts many keys (as given to `put`; non-empty values) as one pass (trie-bulk.ts), or key by key when the
   * pass does not handle the trie's shape.
   */
  async putMany(entries: [Uint8Array, Uint8Array][]): Promise<void> {
    const applied = entries.map(([key, value]): [Uint8Array, Uint8Array] => [this.appliedKey(key), this.stored(value)])
    try {
      await bulkPut(this, applied)
    } catch (err) {
      if (!(err instanceof BulkUnsupported)) throw err
      for (const [key, value] of entries) await this.put(key, value)
    }
  }

  /** the value as the trie stores it */
  protected stored(value: Uint8Array): Uint8Array {
    return value
  }

  /** ethereumjs' shallowCopy (how the state manager makes storage tries): a StorageTrie with the same reads */
  override shallowCopy(includeCheckpoints = true, opts?: MPTOpts): StorageTrie {
    const trie = new StorageTrie(
      { ...this._opts, db: this._db.db.shallowCopy(), root: this.root(), cacheSize: 0, ...(opts ?? {}) },
      this.reads,
    )
    if (includeCheckpoints && this.hasCheckpoints()) trie._db.setCheckpoints(this._db.checkpoints)
    return trie
  }
}

export class AccountTrie extends StorageTrie {
  override async put(key: Uint8Array, value: Uint8Array | null, skipKeyTransform = false): Promise<void> {
    const stored = value === null || value.length === 0 ? value : withMultiCoin(value)
    return super.put(key, stored, skipKeyTransform)
  }

  protected override stored(value: Uint8Array): Uint8Array {
    return withMultiCoin(value)
  }
}
