/**
 * A Map used as a bounded cache in insertion order: `remember` puts an entry last and drops the oldest past `max`.
 * The caches of immutable things (decoded accepted blocks, accounts by state root, a call's block, fee history)
 * need nothing more: an entry is never stale, only old.
 */
export function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): V {
  map.delete(key)
  map.set(key, value)
  while (map.size > max) map.delete(map.keys().next().value as K)
  return value
}
