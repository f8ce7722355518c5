/**
 * Accounts read at a state root, by root and address (null: no account there). The state at a root never changes,
 * so an entry is never stale; pruning (prune.ts) clears the map with the node cache, so a pruned root reads as
 * missing again. eth_getBalance, eth_getTransactionCount and the tx pool's reads at the head then cost a map lookup
 * instead of opening a state view and walking the account trie (EvmChainCore.accountAt).
 */
import type { Account } from '@ethereumjs/util'
import { type NodeStore, perStore } from './node-layer.js'

/** entries kept per chain (an entry is a key of ~100 chars and an Account) */
export const ACCOUNT_READS = 50_000

/** The account reads of a chain's node store. */
export const accountReads: (store: NodeStore) => Map<string, Account | null> = perStore(
  () => new Map<string, Account | null>(),
)
