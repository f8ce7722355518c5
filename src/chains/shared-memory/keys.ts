/**
 * Shared memory's key layout, as the reference lays out chains/atomic (memory.go, prefixes.go) but in one flat
 * keyspace of the `shared-memory` sublevel:
 *
 * - every ordered chain pair shares one space, named by `sharedId(a, b)` = sha256(u16 0 ‖ smaller ID ‖ larger ID)
 *   (the reference's codec bytes of `[2]ids.ID{smaller, larger}`), the same whichever chain asks;
 * - inside it, four prefixes as the reference's: 0 = values the larger chain wrote for the smaller one, 1 = their
 *   index, 2 = values the smaller chain wrote for the larger one, 3 = their index. A chain writes (puts) on its
 *   outbound side and reads and removes on its inbound side, so what A puts for B is what B reads from A;
 * - value key: sharedId ‖ valuePrefix ‖ key  ->  the element record (element.ts);
 * - index key: sharedId ‖ indexPrefix ‖ u32 len(trait) ‖ trait ‖ u64 (2^64-1 - seq) ‖ key  ->  empty. `seq` is the
 *   element's insertion number, so within a trait an ascending scan is NEWEST FIRST, the order of the reference's
 *   linked list (new keys go to its head);
 * - `seq` (3 bytes, shorter than any pair key): the last insertion number handed out.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { idFromString } from '../../identity/ids.js'

/** A chain ID: 32 bytes or its CB58 text. */
export type ChainIdLike = Uint8Array | string

export function chainIdBytes(id: ChainIdLike): Uint8Array {
  return typeof id === 'string' ? idFromString(id) : id
}

/** bytes.Compare */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return compareBytes(a, b) === 0
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let n = 0
  for (const p of parts) n += p.length
  const out = new Uint8Array(n)
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

export function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')
}

/** The ID of the space two chains share: sha256 of the codec bytes of the pair, smaller ID first. */
export function sharedId(a: ChainIdLike, b: ChainIdLike): Uint8Array {
  let x = chainIdBytes(a)
  let y = chainIdBytes(b)
  if (compareBytes(x, y) > 0) [x, y] = [y, x]
  return sha256(concatBytes(new Uint8Array(2), x, y))
}

const INBOUND_SMALLER_VALUE = 0
const INBOUND_SMALLER_INDEX = 1
const INBOUND_LARGER_VALUE = 2
const INBOUND_LARGER_INDEX = 3

export type Direction = 'inbound' | 'outbound'

/** The value and index prefixes `me` uses toward `peer` in one direction (the reference's prefixes.go). */
export function sidePrefixes(me: Uint8Array, peer: Uint8Array, dir: Direction): { value: number; index: number } {
  const smaller = compareBytes(me, peer) < 0
  // inbound and outbound have the smaller and larger prefixes swapped
  const useSmaller = dir === 'inbound' ? smaller : !smaller
  return useSmaller
    ? { value: INBOUND_SMALLER_VALUE, index: INBOUND_SMALLER_INDEX }
    : { value: INBOUND_LARGER_VALUE, index: INBOUND_LARGER_INDEX }
}

/** One side of one pair's space: where its values and its index live. */
export interface Side {
  valueBase: Uint8Array
  indexBase: Uint8Array
}

export function side(me: Uint8Array, peer: Uint8Array, dir: Direction): Side {
  const id = sharedId(me, peer)
  const p = sidePrefixes(me, peer, dir)
  return { valueBase: concatBytes(id, Uint8Array.of(p.value)), indexBase: concatBytes(id, Uint8Array.of(p.index)) }
}

export function valueKey(s: Side, key: Uint8Array): Uint8Array {
  return concatBytes(s.valueBase, key)
}

/** Every index key of `trait` starts with this. */
export function traitPrefix(s: Side, trait: Uint8Array): Uint8Array {
  const len = new Uint8Array(4)
  new DataView(len.buffer).setUint32(0, trait.length)
  return concatBytes(s.indexBase, len, trait)
}

const MAX_U64 = (1n << 64n) - 1n

export function invertedSeq(seq: number): Uint8Array {
  const out = new Uint8Array(8)
  new DataView(out.buffer).setBigUint64(0, MAX_U64 - BigInt(seq))
  return out
}

export function indexKey(s: Side, trait: Uint8Array, seq: number, key: Uint8Array): Uint8Array {
  return concatBytes(traitPrefix(s, trait), invertedSeq(seq), key)
}

/** The smallest byte string above every string that starts with `prefix` (undefined: there is none). */
export function prefixEnd(prefix: Uint8Array): Uint8Array | undefined {
  let end = prefix.length
  while (end > 0 && prefix[end - 1] === 0xff) end--
  if (end === 0) return undefined
  const out = prefix.slice(0, end)
  out[end - 1]! += 1
  return out
}

export const SEQ_KEY = new TextEncoder().encode('seq')
