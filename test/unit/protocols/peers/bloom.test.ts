/** The known-peers bloom filter (reference layout and sizing) and the 15-claim selection. */
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { describe, it } from 'node:test'
import {
  BloomError,
  BloomFilter,
  bloomHash,
  estimateCount,
  gossipId,
  MAX_CLAIMS_PER_LIST,
  newKnownPeersFilter,
  optimalEntries,
  optimalHashes,
  selectClaims,
} from '../../../../protocols/peers/bloom.js'

const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(data).digest())
const zeros = (n: number): Uint8Array => new Uint8Array(n)
const seeded =
  (...seeds: number[]) =>
  (n: number): Uint8Array => {
    const out = new Uint8Array(n)
    seeds.forEach((s, i) => {
      out[i * 8 + 7] = s
    })
    return out
  }

describe('bloom filter', () => {
  it('sets the bits the reference sets (rotate left 17, xor seed, mod bits)', () => {
    const one = BloomFilter.create(1, 1, zeros)
    assert.equal(one.add(1n), true)
    assert.deepEqual([...one.marshal()], [1, 0, 0, 0, 0, 0, 0, 0, 0, 0x01])
    assert.equal(one.add(1n), false)
    assert.equal(one.count, 1)
    // seeds 0 and 5: 1 -> 2^17 (bit 0), then 2^34 ^ 5 (bit 5)
    const two = BloomFilter.create(2, 1, seeded(0, 5))
    two.add(1n)
    assert.deepEqual([...two.marshal()], [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0x21])
  })

  it('parses what it marshals and keeps membership', () => {
    const { filter, salt, maxCount } = newKnownPeersFilter(10, randomBytes)
    assert.equal(salt.length, 32)
    assert.ok(maxCount > 128)
    const keys = Array.from({ length: 100 }, () => randomBytes(32))
    for (const k of keys) filter.add(bloomHash(sha256, k, salt))
    const parsed = BloomFilter.parse(filter.marshal())
    for (const k of keys) assert.ok(parsed.contains(bloomHash(sha256, k, salt)))
    assert.deepEqual(parsed.marshal(), filter.marshal())
    const absent = Array.from({ length: 1000 }, () => randomBytes(32)).filter((k) =>
      parsed.contains(bloomHash(sha256, k, salt)),
    )
    assert.ok(absent.length < 20, `${absent.length} false positives of 1000`)
    assert.equal(BloomFilter.empty().contains(123n), false)
  })

  it('refuses malformed filters with the reference texts', () => {
    const text = (bytes: number[]) => {
      try {
        BloomFilter.parse(Uint8Array.from(bytes))
        return 'parsed'
      } catch (e) {
        assert.ok(e instanceof BloomError)
        return e.message
      }
    }
    assert.equal(text([]), 'invalid num hashes')
    assert.equal(text([0, 1]), 'too few hashes: 0 < 1')
    assert.equal(text([17]), 'too many hashes: 17 > 16')
    assert.equal(text([1, 0, 0, 0, 0, 0, 0, 0, 0]), 'too few entries')
    assert.equal(text([1, 0, 0, 0, 0, 0, 0, 0, 0, 0]), 'parsed')
    assert.throws(() => BloomFilter.create(0, 1, zeros), BloomError)
    assert.throws(() => BloomFilter.create(17, 1, zeros), BloomError)
    assert.throws(() => BloomFilter.create(1, 0, zeros), BloomError)
  })

  it('sizes filters as the reference (optimal_test.go vectors)', () => {
    assert.equal(optimalEntries(1024, 0.01), 1227)
    assert.equal(optimalHashes(1024, 1024), 6)
    assert.equal(optimalEntries(10_000, 0.01), 11_982)
    assert.equal(optimalHashes(11_982, 10_000), 7)
    assert.equal(estimateCount(7, 11_982, 0.01), 9_993)
    assert.equal(estimateCount(7, 11_982, 0.05), 14_449)
    assert.equal(optimalHashes(0, 1024), 1)
    assert.equal(optimalHashes(1024, 0), 16)
    assert.equal(optimalEntries(0, 0.5), 1)
  })

  it('derives gossip ids from the 40-byte preimage nodeID ‖ timestamp ‖ zeros', () => {
    const nodeId = new Uint8Array(20).fill(0xab)
    const preimage = new Uint8Array(40)
    preimage.set(nodeId)
    preimage.set([0, 0, 0, 0, 0x65, 0x53, 0xf1, 0x00], 20)
    assert.deepEqual(gossipId(sha256, nodeId, 0x6553f100), sha256(preimage))
    assert.equal(
      bloomHash(sha256, Uint8Array.of(1), Uint8Array.of(2)),
      sha256(Uint8Array.of(1, 2))
        .subarray(0, 8)
        .reduce((v, b) => (v << 8n) | BigInt(b), 0n),
    )
  })
})

describe('claim selection', () => {
  const claims = Array.from({ length: 40 }, (_, i) => ({
    nodeId: `node-${i % 36}`, // four repeated NodeIDs
    gossipId: gossipId(sha256, new Uint8Array(20).fill(i), 1000 + i),
    index: i,
  }))

  it('returns at most 15 claims, none known, none from the requester, one per NodeID', () => {
    const { filter, salt } = newKnownPeersFilter(40, randomBytes)
    for (const c of claims.slice(0, 10)) filter.add(bloomHash(sha256, c.gossipId, salt))
    for (let round = 0; round < 20; round++) {
      const picked = selectClaims(claims, { sha256, filter, salt, exceptNodeId: 'node-12' })
      assert.equal(picked.length, MAX_CLAIMS_PER_LIST)
      assert.equal(new Set(picked.map((c) => c.nodeId)).size, picked.length)
      for (const c of picked) {
        assert.ok(c.index >= 10, `known claim ${c.index} selected`)
        assert.notEqual(c.nodeId, 'node-12')
      }
    }
  })

  it('returns every unknown claim when fewer than 15 remain, sampled uniformly', () => {
    const { filter, salt } = newKnownPeersFilter(40, randomBytes)
    for (const c of claims.slice(0, 30)) filter.add(bloomHash(sha256, c.gossipId, salt))
    const unknown = claims.slice(30).filter((c) => !filter.contains(bloomHash(sha256, c.gossipId, salt)))
    const picked = selectClaims(claims, { sha256, filter, salt })
    assert.deepEqual(new Set(picked.map((c) => c.nodeId)), new Set(unknown.map((c) => c.nodeId)))
    const firsts = new Set<number>()
    for (let i = 0; i < 200; i++)
      firsts.add(selectClaims(claims, { sha256, filter: BloomFilter.empty(), salt, max: 1 })[0]?.index ?? -1)
    assert.ok(firsts.size > 20, `only ${firsts.size} distinct first picks`)
    assert.deepEqual(selectClaims(claims, { sha256, filter, salt, max: 0 }), [])
    assert.deepEqual(selectClaims([], { sha256, filter, salt }), [])
  })

  it('uses the injected randomness', () => {
    const pick = (random: () => number) =>
      selectClaims(claims, { sha256, filter: BloomFilter.empty(), salt: new Uint8Array(0), max: 3, random }).map(
        (c) => c.index,
      )
    assert.deepEqual(
      pick(() => 0),
      [0, 39, 38],
    )
    assert.deepEqual(
      pick(() => 0.999999),
      [39, 38, 37],
    )
  })
})
