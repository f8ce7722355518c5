/**
 * Sender recovery is the dominant cost of a transfer (~1.4 ms in pure JS, ~85 us native: native-crypto.ts). A
 * transaction is recovered when it enters the pool, again when a block is verified, and again on every node
 * restart; this bounded cache keyed by the recovery's inputs (hash, v, r, s, chain id) makes every recovery after
 * the first a map lookup. It is passed to the Common as `ecrecover`; recovery ahead (recover-ahead.ts) fills it
 * from worker threads with what those inputs recover to.
 */
import { bytesToHex } from '@ethereumjs/util'
import { remember } from '../../../runtime/bounded-map.js'
import { type Ecrecover, fastEcrecover } from './native-crypto.js'

export type { Ecrecover }

/** what ethereumjs passes to `ecrecover` */
export type RecoverArgs = Parameters<Ecrecover>

const keyOf = (...[msgHash, v, r, s, chainId]: RecoverArgs): string =>
  `${bytesToHex(msgHash)}${v.toString(16)}${bytesToHex(r)}${bytesToHex(s)}:${chainId ?? ''}`

export class SenderCache {
  readonly #cache = new Map<string, Uint8Array>()

  constructor(readonly maxEntries = 100_000) {}

  /** ethereumjs' `ecrecover`, through the cache */
  readonly recover: Ecrecover = (...args) => {
    const key = keyOf(...args)
    return this.#cache.get(key) ?? remember(this.#cache, key, fastEcrecover(...args), this.maxEntries)
  }

  /** What `args` recover to, found elsewhere (a worker thread running the same recovery). */
  put(args: RecoverArgs, publicKey: Uint8Array): void {
    remember(this.#cache, keyOf(...args), publicKey, this.maxEntries)
  }

  has(args: RecoverArgs): boolean {
    return this.#cache.has(keyOf(...args))
  }
}

const byRecover = new WeakMap<Ecrecover, SenderCache>()

export function cachedEcrecover(maxEntries = 100_000): Ecrecover {
  const cache = new SenderCache(maxEntries)
  byRecover.set(cache.recover, cache)
  return cache.recover
}

/** The sender cache behind a Common's `ecrecover` (undefined when it has another). */
export const senderCacheOf = (ecrecover: Ecrecover | undefined): SenderCache | undefined =>
  ecrecover === undefined ? undefined : byRecover.get(ecrecover)
