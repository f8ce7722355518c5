/**
 * The C chain's state manager: ethereumjs' MerkleStateManager with Avalanche's account RLP (AccountTrie),
 * normalised storage keys, and one trie commit per block: account/storage/code changes stay in the caches
 * across transactions and reach the tries only when the state root is asked for (once per block).
 */
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { Caches, CODEHASH_PREFIX, MerkleStateManager } from '@ethereumjs/statemanager'
import {
  Account,
  type Address,
  concatBytes,
  createAccountFromRLP,
  createAddressFromString,
  type DB,
  unpadBytes,
  unprefixedHexToBytes,
  ValueEncoding,
} from '@ethereumjs/util'
import { fastKeccak256 as keccak256 } from '../exec/native-crypto.js'
import type { TrieReads } from './account-reads.js'
import { normaliseStorageKey } from './account-rlp.js'
import { AccountTrie, type StorageTrie } from './account-trie.js'
import './debug-colors.js'
import type { NodeLayer } from './node-layer.js'

/** accounts decoded, by the RLP the account cache holds (a new RLP object for every change) */
const decodedAccounts = new WeakMap<Uint8Array, Account>()

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

  /**
   * ethereumjs' getAccount, with the account decoded once per cached RLP: its cache keeps accounts as RLP and
   * decoded them again on every read (~8 reads per ERC-20 transfer). Each caller gets its own Account, as before.
   */
  override async getAccount(address: Address): Promise<Account | undefined> {
    const elem = this._caches?.account?.get(address)
    if (elem === undefined) return super.getAccount(address)
    const rlp = elem.accountRLP
    if (rlp === undefined) return undefined
    let decoded = decodedAccounts.get(rlp)
    if (decoded === undefined) {
      decoded = createAccountFromRLP(rlp)
      decodedAccounts.set(rlp, decoded)
    }
    return new Account(decoded.nonce, decoded.balance, decoded.storageRoot, decoded.codeHash)
  }

  /**
   * ethereumjs' putAccount, with the account it put known decoded: its cache keeps the new RLP, which the next read
   * of the account (the next tx of the same sender, the coinbase) decoded again. The copy is the account as put.
   */
  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    await super.putAccount(address, account)
    if (account === undefined) return
    const rlp = this._caches?.account?.get(address)?.accountRLP
    if (rlp !== undefined) {
      decodedAccounts.set(rlp, new Account(account.nonce, account.balance, account.storageRoot, account.codeHash))
    }
  }

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    return super.getStorage(address, normaliseStorageKey(key))
  }

  /**
   * Into the storage cache only (flushed with the block). ethereumjs 10.1.3 means to do this, but its
   * `cache.put(...) ?? write()` also writes the trie on every SSTORE (`put` returns undefined): a storage trie put
   * (the path re-encoded and hashed) and an account update per write, ~2 per ERC-20 transfer. Its checks and
   * error texts are kept.
   */
  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    const cache = this._caches?.storage
    if (cache === undefined) return super.putStorage(address, normaliseStorageKey(key), value)
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long')
    if (value.length > 32) throw new Error('Storage value cannot be longer than 32 bytes')
    if ((await this.getAccount(address)) === undefined) throw new Error('putStorage() called on non-existing account')
    cache.put(address, normaliseStorageKey(key), RLP.encode(unpadBytes(value)))
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

  /**
   * The caches' changes into the tries, in ethereumjs' order and with its effects (code, then storage with each
   * contract's new storage root, then the accounts), but each trie's puts as one pass (account-trie.ts
   * `putMany`, trie-bulk.ts) instead of key by key; a trie's deletes follow its puts.
   */
  override async flush(): Promise<void> {
    const caches = this._caches!
    for (const [addressHex, { code }] of caches.code!.flush()) {
      if (code === undefined) continue
      const address = createAddressFromString(`0x${addressHex}`)
      const codeHash = keccak256(code)
      await this._getCodeDB().put(this._prefixCodeHashes ? concatBytes(CODEHASH_PREFIX, codeHash) : codeHash, code)
      if ((await this.getAccount(address)) === undefined) await this.putAccount(address, new Account())
      await this.modifyAccountFields(address, { codeHash })
    }
    const slots = new Map<string, [Uint8Array, Uint8Array | undefined][]>()
    for (const [addressHex, keyHex, value] of caches.storage!.flush()) {
      const list = slots.get(addressHex) ?? []
      if (list.length === 0) slots.set(addressHex, list)
      list.push([unprefixedHexToBytes(keyHex), value])
    }
    for (const [addressHex, list] of slots) {
      const address = createAddressFromString(`0x${addressHex}`)
      const account = await this.getAccount(address)
      if (account === undefined) continue
      const trie = this._getStorageTrie(address, account) as StorageTrie
      const puts: [Uint8Array, Uint8Array][] = []
      const dels: Uint8Array[] = []
      for (const [key, value] of list) {
        // the trie holds the RLP of the value without leading zeros, as the cache's entry decodes to
        const decoded = RLP.decode(value ?? new Uint8Array(0))
        if (decoded instanceof Uint8Array && decoded.length > 0) puts.push([key, RLP.encode(decoded)])
        else dels.push(key)
      }
      await trie.putMany(puts)
      for (const key of dels) await trie.del(key)
      // _getStorageTrie keeps the trie in _storageTries for the rest of the block
      account.storageRoot = trie.root()
      await this.putAccount(address, account)
    }
    const puts: [Uint8Array, Uint8Array][] = []
    const dels: Uint8Array[] = []
    for (const [addressHex, { accountRLP }] of caches.account!.flush()) {
      if (accountRLP === undefined) dels.push(unprefixedHexToBytes(addressHex))
      else puts.push([unprefixedHexToBytes(addressHex), accountRLP])
    }
    const trie = this._trie as AccountTrie
    await trie.putMany(puts)
    for (const key of dels) await trie.del(key)
  }

  /** A copy over the same layer at the last committed root (used by the EVM for simulations). */
  override shallowCopy(): AvaStateManager {
    return new AvaStateManager(this.common, this.layer, this._trie.root(), this.reads)
  }
}
