/**
 * Accounts read at a state root, by root and address. The state at a root never changes, so an entry is never
 * stale; pruning (prune.ts) clears the cache with the node cache, so a pruned root reads as missing again.
 * eth_getBalance and eth_getTransactionCount at `latest` then cost a map lookup instead of opening a state view
 * and walking the account trie (about 100 us each with every node cached, more without).
 */
import type { Account } from '@ethereumjs/util'
import { type NodeStore, perStore } from './node-layer.js'

/** entries kept per chain (an entry is a key of ~100 chars and an Account) */
export const ACCOUNT_READS = 50_000

export class AccountReads {
  /** null: the account does not exist at that root */
  readonly #map = new Map<string, Account | null>()

  constructor(readonly max: number) {}

  get size(): number {
    return this.#map.size
  }

  get(key: string): Account | null | undefined {
    return this.#map.get(key)
  }

  set(key: string, account: Account | null): void {
    if (this.#map.size >= this.max) this.#map.delete(this.#map.keys().next().value as string)
    this.#map.set(key, account)
  }

  clear(): void {
    this.#map.clear()
  }
}

/** The account reads of a chain's node store. */
export const accountReads: (store: NodeStore) => AccountReads = perStore(() => new AccountReads(ACCOUNT_READS))
