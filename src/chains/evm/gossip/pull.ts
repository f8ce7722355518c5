/**
 * Both sides of pull gossip, without IO: the requester's bloom filter of the tx hashes it knows (sized as coreth
 * sizes its eth tx filter: at least 8192 elements, 1 % false positives) and the server's choice of pending txs
 * the requester's filter does not hold, up to a byte budget. A tx's gossip ID is its 32-byte hash.
 */
import { hexToBytes } from '@ethereumjs/util'
import {
  BLOOM_SALT_LEN,
  BloomFilter,
  bloomHash,
  optimalEntries,
  optimalHashes,
  type RandomBytes,
  type Sha256,
} from '../../../../protocols/peers/bloom.js'
import { encodedItemSize } from './wire.js'

/** coreth's TxGossipBloomMinTargetElements and TxGossipBloomTargetFalsePositiveRate. */
export const BLOOM_MIN_TARGET_ELEMENTS = 8 * 1024
export const BLOOM_TARGET_FALSE_POSITIVE = 0.01

/** A filter of `hashes` (0x-hex tx hashes) under a fresh salt, sized for twice their number. */
export function knownTxsFilter(
  hashes: Iterable<string>,
  count: number,
  sha256: Sha256,
  randomBytes: RandomBytes,
): { filter: BloomFilter; salt: Uint8Array } {
  const target = Math.max(2 * count, BLOOM_MIN_TARGET_ELEMENTS)
  const numEntries = optimalEntries(target, BLOOM_TARGET_FALSE_POSITIVE)
  const filter = BloomFilter.create(optimalHashes(numEntries, target), numEntries, randomBytes)
  const salt = randomBytes(BLOOM_SALT_LEN)
  for (const hash of hashes) filter.add(bloomHash(sha256, hexToBytes(hash as `0x${string}`), salt))
  return { filter, salt }
}

export interface GossipCandidate {
  /** 0x-hex tx hash (the gossip ID) */
  hash: string
  /** canonical serialized tx, computed only for the ones taken */
  serialize(): Uint8Array
}

/**
 * The candidates, in order, whose salted hash is not in `filter`, serialized, while the encoded answer stays
 * within `maxBytes` (a first tx larger than that goes alone).
 */
export function selectUnknown(
  candidates: Iterable<GossipCandidate>,
  filter: BloomFilter,
  salt: Uint8Array,
  sha256: Sha256,
  maxBytes: number,
): Uint8Array[] {
  const out: Uint8Array[] = []
  let size = 0
  for (const c of candidates) {
    if (filter.contains(bloomHash(sha256, hexToBytes(c.hash as `0x${string}`), salt))) continue
    const bytes = c.serialize()
    const cost = encodedItemSize(bytes)
    if (out.length > 0 && size + cost > maxBytes) break
    out.push(bytes)
    size += cost
  }
  return out
}
