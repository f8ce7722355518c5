/**
 * The known-peers bloom filter, laid out as the reference's `utils/bloom`: byte 0 = hash count (1-16), then one
 * 8-byte BE seed per hash, then at least one entry byte. An entry's hash is the first 8 bytes (BE) of
 * SHA-256(gossipID ‖ salt); gossipID = SHA-256(nodeID ‖ timestamp u64 BE, zero-padded to 40 bytes). Also the
 * selection of up to 15 claims a requester does not know. SHA-256 and randomness are injected.
 */

export type Sha256 = (data: Uint8Array) => Uint8Array
export type RandomBytes = (length: number) => Uint8Array

export const MIN_HASHES = 1
export const MAX_HASHES = 16
export const MIN_ENTRIES = 1
/** Salts over this length close the connection. */
export const MAX_BLOOM_SALT_LEN = 32
/** The salt length the reference generates. */
export const BLOOM_SALT_LEN = 32
/** The reference's ip tracker sizing: count = max(2 × tracked nodes, 128) at p = 0.001, reset past p = 0.01. */
export const MIN_COUNT_ESTIMATE = 128
export const TARGET_FALSE_POSITIVE_PROBABILITY = 0.001
export const MAX_FALSE_POSITIVE_PROBABILITY = 0.01
/** Claims per PeerList answer. */
export const MAX_CLAIMS_PER_LIST = 15

const MASK64 = (1n << 64n) - 1n
const ROTATION = 17n

export class BloomError extends Error {
  override name = 'BloomError'
}

const rotl64 = (x: bigint): bigint => ((x << ROTATION) | (x >> (64n - ROTATION))) & MASK64

function readU64(bytes: Uint8Array, offset: number): bigint {
  let v = 0n
  for (let i = 0; i < 8; i++) v = (v << 8n) | BigInt(bytes[offset + i] as number)
  return v
}

function writeU64(out: Uint8Array, offset: number, v: bigint): void {
  for (let i = 7; i >= 0; i--) {
    out[offset + i] = Number(v & 0xffn)
    v >>= 8n
  }
}

/** A bloom filter; `parse` gives a read-only use of someone else's, `create` a fresh one of ours. */
export class BloomFilter {
  #count = 0
  private constructor(
    readonly seeds: readonly bigint[],
    private readonly entries: Uint8Array,
  ) {}

  static create(numHashes: number, numEntries: number, randomBytes: RandomBytes): BloomFilter {
    if (numEntries < MIN_ENTRIES) throw new BloomError('too few entries')
    if (numHashes < MIN_HASHES) throw new BloomError(`too few hashes: ${numHashes} < ${MIN_HASHES}`)
    if (numHashes > MAX_HASHES) throw new BloomError(`too many hashes: ${numHashes} > ${MAX_HASHES}`)
    const seedBytes = randomBytes(numHashes * 8)
    const seeds = Array.from({ length: numHashes }, (_, i) => readU64(seedBytes, i * 8))
    return new BloomFilter(seeds, new Uint8Array(numEntries))
  }

  /** The reference's `bloom.Parse`; throws BloomError with its texts. The entry bytes are copied. */
  static parse(bytes: Uint8Array): BloomFilter {
    if (bytes.length === 0) throw new BloomError('invalid num hashes')
    const numHashes = bytes[0] as number
    const entriesOffset = 1 + numHashes * 8
    if (numHashes < MIN_HASHES) throw new BloomError(`too few hashes: ${numHashes} < ${MIN_HASHES}`)
    if (numHashes > MAX_HASHES) throw new BloomError(`too many hashes: ${numHashes} > ${MAX_HASHES}`)
    if (bytes.length < entriesOffset + MIN_ENTRIES) throw new BloomError('too few entries')
    const seeds = Array.from({ length: numHashes }, (_, i) => readU64(bytes, 1 + i * 8))
    return new BloomFilter(seeds, bytes.slice(entriesOffset))
  }

  /** The reference's `EmptyFilter`: one zero seed, one zero byte; contains nothing. */
  static empty(): BloomFilter {
    return new BloomFilter([0n], new Uint8Array(1))
  }

  /** Additions that set at least one new bit. */
  get count(): number {
    return this.#count
  }

  /** Adds a hash; true if it was not already present. */
  add(hash: bigint): boolean {
    const numBits = BigInt(this.entries.length * 8)
    let acc = 1
    let h = hash & MASK64
    for (const seed of this.seeds) {
      h = rotl64(h) ^ seed
      const index = h % numBits
      const byteIndex = Number(index >> 3n)
      const bit = Number(index & 7n)
      acc &= (this.entries[byteIndex] as number) >> bit
      this.entries[byteIndex] = (this.entries[byteIndex] as number) | (1 << bit)
    }
    const added = (acc & 1) === 0
    if (added) this.#count++
    return added
  }

  contains(hash: bigint): boolean {
    const numBits = BigInt(this.entries.length * 8)
    let h = hash & MASK64
    for (const seed of this.seeds) {
      h = rotl64(h) ^ seed
      const index = h % numBits
      if ((((this.entries[Number(index >> 3n)] as number) >> Number(index & 7n)) & 1) === 0) return false
    }
    return true
  }

  marshal(): Uint8Array {
    const offset = 1 + this.seeds.length * 8
    const out = new Uint8Array(offset + this.entries.length)
    out[0] = this.seeds.length
    this.seeds.forEach((seed, i) => {
      writeU64(out, 1 + i * 8, seed)
    })
    out.set(this.entries, offset)
    return out
  }
}

/** First 8 bytes (BE) of SHA-256(key ‖ salt). */
export function bloomHash(sha256: Sha256, key: Uint8Array, salt: Uint8Array): bigint {
  const data = new Uint8Array(key.length + salt.length)
  data.set(key)
  data.set(salt, key.length)
  return readU64(sha256(data), 0)
}

/** SHA-256(nodeID ‖ timestamp u64 BE), over the reference's 40-byte preimage (zero-padded). */
export function gossipId(sha256: Sha256, nodeId: Uint8Array, timestamp: bigint | number): Uint8Array {
  const preimage = new Uint8Array(Math.max(40, nodeId.length + 8))
  preimage.set(nodeId)
  writeU64(preimage, nodeId.length, BigInt(timestamp) & MASK64)
  return sha256(preimage)
}

/** The reference's `OptimalEntries`. */
export function optimalEntries(count: number, falsePositiveProbability: number): number {
  if (count <= 0 || falsePositiveProbability >= 1) return MIN_ENTRIES
  if (falsePositiveProbability <= 0) return Number.MAX_SAFE_INTEGER
  const bits = (-count * Math.log(falsePositiveProbability)) / (Math.LN2 * Math.LN2)
  return Math.max(Math.trunc((bits + 7) / 8), MIN_ENTRIES)
}

/** The reference's `OptimalHashes`. */
export function optimalHashes(numEntries: number, count: number): number {
  if (numEntries < MIN_ENTRIES) return MIN_HASHES
  if (count <= 0) return MAX_HASHES
  const n = Math.ceil((numEntries * 8 * Math.LN2) / count)
  return n >= MAX_HASHES ? MAX_HASHES : Math.max(n, MIN_HASHES)
}

/** The reference's `EstimateCount`: additions after which the filter reaches `falsePositiveProbability`. */
export function estimateCount(numHashes: number, numEntries: number, falsePositiveProbability: number): number {
  if (numHashes < MIN_HASHES || numEntries < MIN_ENTRIES || falsePositiveProbability <= 0) return 0
  if (falsePositiveProbability >= 1) return Number.MAX_SAFE_INTEGER
  const exp = 1 - falsePositiveProbability ** (1 / numHashes)
  return Math.ceil((-Math.log(exp) * numEntries * 8) / numHashes)
}

/** Our known-peers filter as the reference's ip tracker sizes it for `trackedNodes`; fresh salt each time. */
export function newKnownPeersFilter(
  trackedNodes: number,
  randomBytes: RandomBytes,
): { filter: BloomFilter; salt: Uint8Array; maxCount: number } {
  const count = Math.max(2 * trackedNodes, MIN_COUNT_ESTIMATE)
  const numEntries = optimalEntries(count, TARGET_FALSE_POSITIVE_PROBABILITY)
  const numHashes = optimalHashes(numEntries, count)
  return {
    filter: BloomFilter.create(numHashes, numEntries, randomBytes),
    salt: randomBytes(BLOOM_SALT_LEN),
    maxCount: estimateCount(numHashes, numEntries, MAX_FALSE_POSITIVE_PROBABILITY),
  }
}

/** Something gossipable: the claim's NodeID (any stable text) and its gossipID. */
export interface Gossipable {
  nodeId: string
  gossipId: Uint8Array
}

export interface SelectOptions {
  sha256: Sha256
  filter: BloomFilter
  salt: Uint8Array
  /** The requester: never sent its own claim. */
  exceptNodeId?: string
  /** Defaults to MAX_CLAIMS_PER_LIST. */
  max?: number
  /** Uniform in [0, 1); defaults to Math.random. */
  random?: () => number
}

/**
 * Up to `max` claims, sampled uniformly without replacement, skipping the requester, repeated NodeIDs, and
 * claims whose gossipID (salted) is in the requester's filter.
 */
export function selectClaims<T extends Gossipable>(claims: readonly T[], options: SelectOptions): T[] {
  const max = options.max ?? MAX_CLAIMS_PER_LIST
  const random = options.random ?? Math.random
  const order = claims.map((_, i) => i)
  const out: T[] = []
  const seen = new Set<string>()
  for (let n = order.length; n > 0 && out.length < max; n--) {
    const pick = Math.min(Math.floor(random() * n), n - 1)
    const index = order[pick] as number
    order[pick] = order[n - 1] as number
    const claim = claims[index] as T
    if (claim.nodeId === options.exceptNodeId || seen.has(claim.nodeId)) continue
    if (options.filter.contains(bloomHash(options.sha256, claim.gossipId, options.salt))) continue
    out.push(claim)
    seen.add(claim.nodeId)
  }
  return out
}
