/**
 * Plain-data containers for the engine core's state (JSON-safe, unlike Map/Set): `Sized`, a record with its entry
 * count, and `Bounded`, a record that forgets its oldest entry beyond a cap. Keys are block IDs (0x hex), NodeIDs
 * (`NodeID-...`) or vote keys, never array-index-like strings, so a record's key order is its insertion order, as
 * a Map's would be; `Bounded` keeps its order explicitly (its keys may be heights). The helpers mutate in place:
 * the engine core updates its state in place within one input (docs/architecture.md, decisions).
 */

/** Own property lookup (no prototype keys). */
export const has = (rec: Record<string, unknown>, key: string): boolean => Object.hasOwn(rec, key)

export const get = <V>(rec: Record<string, V>, key: string): V | undefined =>
  Object.hasOwn(rec, key) ? rec[key] : undefined

/** A record with its number of entries. */
export interface Sized<V> {
  size: number
  items: Record<string, V>
}

export const sizedCreate = <V>(): Sized<V> => ({ size: 0, items: {} })

export const sizedHas = <V>(d: Sized<V>, key: string): boolean => Object.hasOwn(d.items, key)

export const sizedGet = <V>(d: Sized<V>, key: string): V | undefined => get(d.items, key)

/** Sets `key`; an existing key keeps its place in the order (as Map.set). */
export function sizedSet<V>(d: Sized<V>, key: string, value: V): void {
  if (!Object.hasOwn(d.items, key)) d.size++
  d.items[key] = value
}

export function sizedDelete<V>(d: Sized<V>, key: string): boolean {
  if (!Object.hasOwn(d.items, key)) return false
  delete d.items[key]
  d.size--
  return true
}

/**
 * A record that forgets its oldest entry beyond `cap` (insertion order; re-setting a key refreshes it). Each key
 * carries the sequence number of its last set, so a refresh is O(1) and an eviction scans for the oldest.
 */
export interface Bounded<V> {
  cap: number
  size: number
  /** the next sequence number */
  seq: number
  items: Record<string, V>
  /** key -> sequence number of its last set */
  setAt: Record<string, number>
}

export const boundedCreate = <V>(cap: number): Bounded<V> => ({ cap, size: 0, seq: 0, items: {}, setAt: {} })

export const boundedHas = <V>(b: Bounded<V>, key: string): boolean => Object.hasOwn(b.items, key)

export const boundedGet = <V>(b: Bounded<V>, key: string): V | undefined => get(b.items, key)

export const boundedSize = <V>(b: Bounded<V>): number => b.size

export function boundedSet<V>(b: Bounded<V>, key: string, value: V): void {
  if (!Object.hasOwn(b.items, key)) b.size++
  b.items[key] = value
  b.setAt[key] = b.seq++
  while (b.size > b.cap) {
    let oldest: string | undefined
    let at = Number.POSITIVE_INFINITY
    for (const k in b.setAt) {
      const t = b.setAt[k] as number
      if (t < at) {
        at = t
        oldest = k
      }
    }
    if (oldest === undefined) break
    boundedDelete(b, oldest)
  }
}

export function boundedDelete<V>(b: Bounded<V>, key: string): void {
  if (!Object.hasOwn(b.items, key)) return
  delete b.items[key]
  delete b.setAt[key]
  b.size--
}
