import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  acceptedByMajority,
  answerGetAccepted,
  collectAncestors,
  MAX_ANCESTORS_BYTES,
  sampleFrontierPeers,
  shouldStartAnotherRound,
  startThreshold,
} from '../../../../actors/consensus/bootstrap.js'
import { Fetcher, PeerTracker } from '../../../../actors/consensus/bootstrap-fetcher.js'
import type { ParsedBlock } from '../../../../actors/consensus/types.js'
import { extend, genesisChain, parseBlock } from './bootstrap.fixtures.js'

const lookupIn = (chain: ParsedBlock[]) => {
  const byId = new Map(chain.map((b) => [b.id, b]))
  return async (id: string) => byId.get(id)
}
const ref = (b: ParsedBlock) => ({ id: b.id, height: b.height })
const seq = (xs: number[]) => {
  let i = 0
  return () => xs[i++ % xs.length] as number
}

describe('bootstrap rules', () => {
  it('startThreshold is (3W+3)/4 with integer division, 0 for an empty set', () => {
    assert.equal(startThreshold(0n), 0n)
    assert.equal(startThreshold(1n), 1n)
    assert.equal(startThreshold(4n), 3n)
    assert.equal(startThreshold(5n), 4n)
    assert.equal(startThreshold(100n), 75n)
    assert.equal(startThreshold(2_000_000_000_000_000n), 1_500_000_000_000_000n)
  })

  it('sampleFrontierPeers: distinct nodes among min(K, W) weighted draws', () => {
    const beacons = [
      { nodeId: 'a', weight: 1n },
      { nodeId: 'b', weight: 1n },
      { nodeId: 'c', weight: 2n },
    ]
    assert.deepEqual(sampleFrontierPeers([], 20, Math.random), [])
    // W = 4 < K: 4 draws; 0.9 -> c, 0.1 -> a, 0.3 -> b
    assert.deepEqual(sampleFrontierPeers(beacons, 20, seq([0.9, 0.1, 0.9, 0.3])), ['c', 'a', 'b'])
    assert.deepEqual(sampleFrontierPeers(beacons, 2, seq([0.9, 0.9, 0.1])), ['c'])
    assert.deepEqual(
      sampleFrontierPeers(beacons, 20, () => 0.99),
      ['c'],
    )
  })

  it('acceptedByMajority keeps ids backed by >= W/2 + 1 weight', () => {
    const beacons = ['a', 'b', 'c', 'd'].map((nodeId) => ({ nodeId, weight: 1n })) // need 3
    const votes = new Map([
      ['a', ['x', 'y', 'x']],
      ['b', ['x', 'y']],
      ['c', ['x']],
      ['intruder', ['y', 'y']],
    ])
    assert.deepEqual(acceptedByMajority(votes, beacons), ['x'])
    assert.deepEqual(acceptedByMajority(new Map([['a', ['x']]]), [{ nodeId: 'a', weight: 1n }]), ['x'])
    assert.deepEqual(
      acceptedByMajority(new Map([['a', ['x']]]), [...beacons.slice(0, 1), { nodeId: 'b', weight: 1n }]),
      [],
    )
  })

  it('shouldStartAnotherRound: n > 0 and n < prev/2', () => {
    assert.equal(shouldStartAnotherRound(500, null), true)
    assert.equal(shouldStartAnotherRound(0, null), false)
    assert.equal(shouldStartAnotherRound(249, 500), true)
    assert.equal(shouldStartAnotherRound(250, 500), false)
    assert.equal(shouldStartAnotherRound(0, 500), false)
  })
})

describe('collectAncestors (serving GetAncestors)', () => {
  const chain = extend(genesisChain(), 3000)
  const tip = chain[3000] as ParsedBlock

  it('the block then its ancestors newest first, down to genesis', async () => {
    const out = await collectAncestors((chain[5] as ParsedBlock).id, lookupIn(chain))
    assert.deepEqual(
      out.map((b) => parseBlock(b)?.height),
      [5, 4, 3, 2, 1, 0],
    )
  })

  it('at most 2000 containers by default, or the configured cap', async () => {
    const out = await collectAncestors(tip.id, lookupIn(chain))
    assert.equal(out.length, 2000)
    assert.equal(parseBlock(out[1999] as Uint8Array)?.height, 1001)
    assert.equal((await collectAncestors(tip.id, lookupIn(chain), { maxContainers: 7 })).length, 7)
  })

  it('the byte cap counts each container with a 4-byte prefix', async () => {
    const big = (h: number) => ({ bytes: new Uint8Array(100_000), parentId: `b${h - 1}`, height: h })
    const lookup = async (id: string) => big(Number(id.slice(1)))
    const out = await collectAncestors('b100', lookup)
    assert.equal(out.length, Math.floor(MAX_ANCESTORS_BYTES / 100_004))
    assert.equal((await collectAncestors('b100', lookup, { maxBytes: 200_008 })).length, 2)
    assert.equal((await collectAncestors('b100', lookup, { maxBytes: 200_007 })).length, 1)
  })

  it('stops when the time budget is spent (injected clock)', async () => {
    let t = 0
    const lookup = async (id: string) => {
      t += 10
      return lookupIn(chain)(id)
    }
    const out = await collectAncestors(tip.id, lookup, { now: () => t, maxTimeMs: 50 })
    assert.equal(out.length, 5)
  })

  it('an unknown id gives nothing; an unknown parent ends the walk', async () => {
    assert.deepEqual(await collectAncestors('0xunknown', lookupIn(chain)), [])
    const out = await collectAncestors(tip.id, lookupIn(chain.slice(2990)))
    assert.equal(out.length, 11)
  })
})

describe('answerGetAccepted', () => {
  it('returns only canonical ids at height <= my last accepted height', async () => {
    const chain = extend(genesisChain(), 20)
    const fork = extend(chain.slice(0, 6), 3, 'fork')
    const known = [...chain, ...fork.slice(6)]
    const la = chain[15] as ParsedBlock
    const ids = [chain[3], chain[15], chain[16], fork[7], chain[3]].map((b) => (b as ParsedBlock).id).concat(['0xnope'])
    const out = await answerGetAccepted(ids, lookupIn(known), ref(la), async (h) => chain[h]?.id)
    assert.deepEqual(out, [(chain[3] as ParsedBlock).id, la.id])
  })
})

describe('Fetcher', () => {
  const chain = extend(genesisChain(), 100)
  const at = (h: number) => chain[h] as ParsedBlock
  const bytesFrom = (h: number, n: number) =>
    chain
      .slice(h - n + 1, h + 1)
      .reverse()
      .map((b) => b.bytes)

  it('walks parents from the cache down to the last accepted height, then asks for the missing parent', () => {
    const f = new Fetcher(ref(at(10)))
    f.want(at(100).id)
    assert.equal(f.markRequested(at(100).id, 'p'), true)
    assert.equal(f.markRequested(at(100).id, 'q'), false, 'one outstanding request per id')
    assert.deepEqual(f.onAncestors(at(100).id, 'p', bytesFrom(100, 30), parseBlock), { kind: 'used', containers: 30 })
    assert.equal(f.storedCount, 30)
    assert.deepEqual([...f.missing], [at(70).id])
    f.markRequested(at(70).id, 'p')
    f.onAncestors(at(70).id, 'p', bytesFrom(70, 2000), parseBlock)
    assert.equal(f.storedCount, 90)
    assert.equal(f.idle, true)
    assert.equal(f.nextExecutable()?.height, 11)
  })

  it('refuses empty, unparsable and wrong-first answers, and ignores unsolicited ones', () => {
    const f = new Fetcher(ref(at(0)))
    f.want(at(50).id)
    assert.deepEqual(f.onAncestors(at(50).id, 'p', bytesFrom(50, 5), parseBlock), { kind: 'unsolicited' })
    for (const [peer, answer, reason] of [
      ['a', [], 'empty'],
      ['b', [new TextEncoder().encode('junk')], 'unparsable'],
      ['c', bytesFrom(49, 5), 'wrong first container'],
    ] as const) {
      f.markRequested(at(50).id, peer)
      assert.deepEqual(f.onAncestors(at(50).id, peer, answer, parseBlock), { kind: 'refused', reason })
    }
    assert.deepEqual([...f.failedFor(at(50).id)].sort(), ['a', 'b', 'c'])
    assert.ok(f.missing.has(at(50).id))
  })

  it('uses at most maxContainers containers of an answer', () => {
    const f = new Fetcher(ref(at(0)), { maxContainers: 10 })
    f.want(at(100).id)
    f.markRequested(at(100).id, 'p')
    assert.deepEqual(f.onAncestors(at(100).id, 'p', bytesFrom(100, 50), parseBlock), { kind: 'used', containers: 10 })
    assert.equal(f.storedCount, 10)
  })

  it('records a conflicting block at the last accepted height', () => {
    const other = extend(chain.slice(0, 10), 1, 'x')[10] as ParsedBlock
    const f = new Fetcher(ref(at(10)))
    f.process(other)
    assert.match(f.conflict ?? '', /conflicts with the last accepted block/)
  })
})

describe('PeerTracker', () => {
  it('untried peers first, then mostly the best bandwidth; a failed peer is no longer responsive', () => {
    const t = new PeerTracker()
    assert.equal(t.select([], Math.random), undefined)
    assert.equal(
      t.select(['a', 'b'], () => 0.6),
      'b',
    )
    t.recordSuccess('a', 1000, 10, 0)
    t.recordSuccess('b', 5000, 10, 0)
    t.recordSuccess('c', 100, 10, 0)
    assert.equal(
      t.select(['a', 'b', 'c', 'new'], () => 0),
      'new',
      'untried while < 20 responsive',
    )
    assert.equal(
      t.select(['a', 'b', 'c'], () => 0.5),
      'b',
      '80 %: best bandwidth',
    )
    assert.equal(t.select(['a', 'b', 'c'], seq([0.9, 0])), 'a', '20 %: random responsive')
    t.recordFailure('b', 1)
    assert.equal(t.isResponsive('b'), false)
    assert.equal(
      t.select(['a', 'b', 'c'], () => 0.5),
      'a',
    )
  })
})
