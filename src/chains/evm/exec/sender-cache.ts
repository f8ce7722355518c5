/**
 * Sender recovery is the dominant cost of a transfer (~1.4 ms in pure JS, ~60 us native: native-crypto.ts). A
 * transaction is recovered when it enters the pool, again when a block is verified, and again on every node
 * restart; this bounded cache keyed by (hash, v, r, s) makes every recovery after the first a map lookup. It is
 * passed to the Common as `ecrecover`.
 */
import { bytesToHex } from '@ethereumjs/util'
import { remember } from '../../../runtime/bounded-map.js'
import { type Ecrecover, fastEcrecover } from './native-crypto.js'

export type { Ecrecover }

export function cachedEcrecover(maxEntries = 100_000): Ecrecover {
  const cache = new Map<string, Uint8Array>()
  return (msgHash, v, r, s, chainId) => {
    const key = `${bytesToHex(msgHash)}${v.toString(16)}${bytesToHex(r)}${bytesToHex(s)}`
    return cache.get(key) ?? remember(cache, key, fastEcrecover(msgHash, v, r, s, chainId), maxEntries)
  }
}
