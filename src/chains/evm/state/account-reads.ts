/**
 * Reads at a state root, kept per chain. The state at a root never changes, so an entry is never stale; pruning
 * (prune.ts) drops the entries of the roots it removed, so a pruned root reads as missing again.
 *
 * - Accounts by root and address (null: no account there): eth_getBalance, eth_getTransactionCount and the tx
 *   pool's reads at the head cost a map lookup instead of opening a state view and walking the account trie
 *   (EvmChainCore.accountAt).
 * - Trie values by trie root and key (null: absent), for account and storage tries alike (account-trie.ts): what
 *   a state view's trie reads, so calls at the same root (eth_call at the head) walk each path once.
 */
import type { Account, Address } from '@ethereumjs/util'
import { unprefixedHex } from '../../../runtime/hex.js'
import { perObject } from '../../../runtime/per-object.js'
import type { NodeStore } from './node-layer.js'

/** entries kept per chain (an entry is a key of ~100 chars and an Account) */
export const ACCOUNT_READS = 50_000

/** An account read's key: the root's 64 hex digits, then the address's 40. */
export const accountKey = (root: Uint8Array, address: Address): string =>
  unprefixedHex(root) + unprefixedHex(address.bytes)

/** The root (unprefixed hex) of an account read's key. */
export const rootOfAccountKey = (key: string): string => key.slice(0, 64)

/** The account reads of a chain's node store. */
export const accountReads: (store: NodeStore) => Map<string, Account | null> = perObject(
  () => new Map<string, Account | null>(),
)

/** trie values by root hex + key hex */
export type TrieReads = Map<string, Uint8Array | null>

/** entries kept per chain (an entry is a key of 104-128 chars and a value of up to ~110 bytes) */
export const TRIE_READS = 50_000

/** The trie reads of a chain's node store. */
export const trieReads: (store: NodeStore) => TrieReads = perObject((): TrieReads => new Map())
