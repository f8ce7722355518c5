/**
 * Sender recovery is the dominant cost of a transfer (~1.4 ms in pure JS, ~85 us native: native-crypto.ts). A
 * transaction is recovered when it enters the pool, again when a block is verified, and again on every node
 * restart; this bounded cache keyed by the recovery's inputs (hash, v, r, s, chain id) makes every recovery after
 * the first a map lookup. It is passed to the Common as `ecrecover`; recovery ahead (recover-ahead.ts) fills it
 * from worker threads with what those inputs recover to.
 */
import { remember } from '../../../runtime/bounded-map.js'
import { type Ecrecover, fastEcrecover } from './native-crypto.js'

export type { Ecrecover }

/** what ethereumjs passes to `ecrecover` */
export type RecoverArgs = Parameters<Ecrecover>

/** `part` behind its length byte at `at`; returns where the next part goes */
function pack(out: Buffer, at: number, part: Uint8Array): number {
  out[at] = part.length
  out.set(part, at + 1)
  return at + 1 + part.length
}

/**
 * The recovery's inputs as one string: hash, r and s each behind its length byte, as latin1 (a char per byte, one
 * native encoding), then v and the chain id in decimal. Built byte by byte in hex (ethereumjs' `bytesToHex`), this
 * key was a third of the allocations of an ERC-20 transfer (docs/performance.md, "Sixth round").
 */
export function keyOf(...[msgHash, v, r, s, chainId]: RecoverArgs): string {
  const packed = Buffer.allocUnsafe(3 + msgHash.length + r.length + s.length)
  const at = pack(packed, pack(packed, pack(packed, 0, msgHash), r), s)
  return `${packed.toString('latin1', 0, at)}${v}:${chainId ?? ''}`
}

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
