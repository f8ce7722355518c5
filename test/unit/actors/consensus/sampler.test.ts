import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { distinct, ERR_INSUFFICIENT_WEIGHT, sampleStake, uniformBelow } from '../../../../actors/consensus/sampler.js'
import { mulberry32 } from '../../../sim/consensus-sim.js'

describe('stake sampler', () => {
  it('draws K units, each owner counted once per unit it owns (lone validator: 20 times)', () => {
    const s = sampleStake([{ nodeId: 'A', weight: 100n }], 20, mulberry32(1))
    assert.ok(s.ok)
    assert.deepEqual(s.nodeIds, Array(20).fill('A'))
    assert.deepEqual(distinct(s.nodeIds), ['A'])
  })

  it('draws without replacement: two owners of 10 units each fill K = 20 exactly half and half', () => {
    const rnd = mulberry32(7)
    for (let i = 0; i < 50; i++) {
      const s = sampleStake(
        [
          { nodeId: 'A', weight: 10n },
          { nodeId: 'B', weight: 10n },
        ],
        20,
        rnd,
      )
      assert.ok(s.ok)
      assert.equal(s.nodeIds.filter((n) => n === 'A').length, 10)
      assert.equal(s.nodeIds.filter((n) => n === 'B').length, 10)
    }
  })

  it('is proportional to stake (seeded)', () => {
    const vals = [
      { nodeId: 'A', weight: 1_000n },
      { nodeId: 'B', weight: 2_000n },
      { nodeId: 'C', weight: 7_000n },
      { nodeId: 'Z', weight: 0n },
    ]
    const rnd = mulberry32(42)
    const counts: Record<string, number> = { A: 0, B: 0, C: 0, Z: 0 }
    const rounds = 2_000
    for (let i = 0; i < rounds; i++) {
      const s = sampleStake(vals, 20, rnd)
      assert.ok(s.ok)
      assert.equal(s.nodeIds.length, 20)
      for (const n of s.nodeIds) counts[n] = (counts[n] ?? 0) + 1
    }
    const total = rounds * 20
    assert.equal(counts.Z, 0)
    assert.ok(Math.abs((counts.A ?? 0) / total - 0.1) < 0.01, `A ${counts.A}`)
    assert.ok(Math.abs((counts.B ?? 0) / total - 0.2) < 0.015, `B ${counts.B}`)
    assert.ok(Math.abs((counts.C ?? 0) / total - 0.7) < 0.015, `C ${counts.C}`)
  })

  it('is deterministic for a seed', () => {
    const vals = Array.from({ length: 9 }, (_, i) => ({ nodeId: `N${i}`, weight: BigInt(100 + i) }))
    const a = sampleStake(vals, 20, mulberry32(5))
    const b = sampleStake(vals, 20, mulberry32(5))
    assert.deepEqual(a, b)
  })

  it('fails when total weight < K', () => {
    const s = sampleStake(
      [
        { nodeId: 'A', weight: 10n },
        { nodeId: 'B', weight: 9n },
      ],
      20,
      mulberry32(1),
    )
    assert.deepEqual(s, { ok: false, error: ERR_INSUFFICIENT_WEIGHT })
    assert.deepEqual(sampleStake([], 1, mulberry32(1)), { ok: false, error: ERR_INSUFFICIENT_WEIGHT })
  })

  it('handles stake beyond 2^53 uniformly enough', () => {
    const big = 10n ** 24n
    const rnd = mulberry32(3)
    for (let i = 0; i < 200; i++) {
      const r = uniformBelow(big, rnd)
      assert.ok(r >= 0n && r < big)
    }
    const s = sampleStake(
      [
        { nodeId: 'A', weight: big },
        { nodeId: 'B', weight: big },
      ],
      20,
      rnd,
    )
    assert.ok(s.ok)
    assert.equal(s.nodeIds.length, 20)
  })
})
