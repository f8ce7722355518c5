/**
 * A Map used as a bounded cache in insertion order: `remember` puts an entry last and drops the oldest past `max`.
 * The caches of immutable things (decoded accepted blocks, accounts by state root, a call's block, fee history)
 * need nothing more: an entry is never stale, only old.
 *
 * The oldest entry is found with one iterator kept per map, not `map.keys().next()`: V8 keeps a deleted entry as a
 * hole at the front of the map's table until the table is rebuilt, and a new iterator walks every hole first. At
 * 50,000 entries that was ~19 µs per `remember` and stalls of up to 20 ms while the holes piled up (the trie reads
 * of eth_call, the sender cache). A kept iterator has already passed the holes it made. An iterator goes on past
 * entries added after it was made, so it still meets the entries in insertion order; once it is done (every entry
 * it could see was dropped or moved), a new one starts at the front.
 */
const oldest = new WeakMap<Map<unknown, unknown>, Iterator<unknown>>()

export function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): V {
  map.delete(key)
  map.set(key, value)
  if (map.size <= max) return value
  let keys = oldest.get(map) as Iterator<K> | undefined
  while (map.size > max) {
    let next = keys?.next()
    if (next === undefined || next.done === true) {
      keys = map.keys()
      oldest.set(map, keys)
      next = keys.next()
    }
    map.delete(next.value as K)
  }
  return value
}
