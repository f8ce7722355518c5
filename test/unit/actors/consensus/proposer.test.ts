import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  checkProposer,
  errProposerMismatch,
  errTimeNotMonotonic,
  errTimeTooAdvanced,
  errUnexpectedProposer,
  errUnsignedChild,
  expectedProposer,
  nextProposalTime,
  slotOf,
  type WeightedValidator,
  WINDOW_MS,
} from '../../../../actors/consensus/proposer.js'

const chainId = new Uint8Array(32).map((_, i) => i + 1)
const otherChain = new Uint8Array(32).map((_, i) => 255 - i)
const set: WeightedValidator[] = [
  { nodeId: 'NodeID-D', weight: 4n },
  { nodeId: 'NodeID-A', weight: 1n },
  { nodeId: 'NodeID-C', weight: 3n },
  { nodeId: 'NodeID-B', weight: 2n },
]
const P = 1_700_000_000_000

/** A height whose slot 0 and slot 1 proposers differ (two equal validators). */
function splitHeight(vs: WeightedValidator[]): { height: bigint; first: string; second: string } {
  for (let h = 1n; h < 1000n; h++) {
    const first = expectedProposer(vs, chainId, h, 0n) as string
    const second = expectedProposer(vs, chainId, h, 1n) as string
    if (first !== second) return { height: h, first, second }
  }
  throw new Error('no split height')
}

describe('slotOf', () => {
  it('floors elapsed time into 5 s slots and clamps before the parent', () => {
    assert.equal(slotOf(P, P), 0n)
    assert.equal(slotOf(P, P + 4999), 0n)
    assert.equal(slotOf(P, P + 5000), 1n)
    assert.equal(slotOf(P, P + 12_345), 2n)
    assert.equal(slotOf(P, P - 1), 0n)
  })
})

describe('expectedProposer', () => {
  it('is deterministic and independent of input order', () => {
    const reversed = [...set].reverse()
    for (let s = 0n; s < 50n; s++) {
      const a = expectedProposer(set, chainId, 7n, s)
      assert.equal(a, expectedProposer(set, chainId, 7n, s))
      assert.equal(a, expectedProposer(reversed, chainId, 7n, s))
      assert.ok(set.some((v) => v.nodeId === a))
    }
  })

  it('depends on chain, height and slot', () => {
    const seq = (c: Uint8Array, h: bigint) =>
      Array.from({ length: 40 }, (_, i) => expectedProposer(set, c, h, BigInt(i))).join(',')
    assert.notEqual(seq(chainId, 1n), seq(chainId, 2n))
    assert.notEqual(seq(chainId, 1n), seq(otherChain, 1n))
    assert.ok(new Set(seq(chainId, 1n).split(',')).size > 1)
  })

  it('picks in proportion to weight (chi-square, 3 dof, p=0.001)', () => {
    const n = 20_000
    const counts = new Map<string, number>()
    for (let i = 0; i < n; i++) {
      const who = expectedProposer(set, chainId, BigInt(i % 100), BigInt(Math.floor(i / 100))) as string
      counts.set(who, (counts.get(who) ?? 0) + 1)
    }
    let chi = 0
    for (const v of set) {
      const expected = (n * Number(v.weight)) / 10
      const observed = counts.get(v.nodeId) ?? 0
      chi += (observed - expected) ** 2 / expected
    }
    assert.ok(chi < 16.27, `chi-square ${chi} too large: ${JSON.stringify([...counts])}`)
  })

  it('a single validator always proposes; zero-weight validators never do', () => {
    const solo = [
      { nodeId: 'NodeID-S', weight: 5n },
      { nodeId: 'NodeID-Z', weight: 0n },
    ]
    for (let s = 0n; s < 100n; s++) assert.equal(expectedProposer(solo, chainId, s * 3n, s), 'NodeID-S')
  })

  it('is undefined for an empty set', () => {
    assert.equal(expectedProposer([], chainId, 1n, 0n), undefined)
    assert.equal(expectedProposer([{ nodeId: 'NodeID-Z', weight: 0n }], chainId, 1n, 0n), undefined)
  })
})

describe('nextProposalTime', () => {
  const pair = [
    { nodeId: 'NodeID-A', weight: 1n },
    { nodeId: 'NodeID-B', weight: 1n },
  ]

  it('the slot proposer builds after the min delay; a dead proposer costs one slot', () => {
    const { height, first, second } = splitHeight(pair)
    assert.equal(nextProposalTime(pair, chainId, height, P, P, first, 1000), P + 1000)
    assert.equal(nextProposalTime(pair, chainId, height, P, P, first, 0), P)
    assert.equal(nextProposalTime(pair, chainId, height, P, P + 200, second, 1000), P + WINDOW_MS)
    // once slot 1 has begun, the first proposer waits for its next slot, never in the past
    const later = nextProposalTime(pair, chainId, height, P, P + WINDOW_MS, first, 1000) as number
    assert.ok(later >= P + 2 * WINDOW_MS)
    assert.equal(expectedProposer(pair, chainId, height, slotOf(P, later)), first)
  })

  it('a lone validator builds at once; an outsider never; empty set anyone', () => {
    const solo = [{ nodeId: 'NodeID-S', weight: 1n }]
    assert.equal(nextProposalTime(solo, chainId, 3n, P, P + 7000, 'NodeID-S', 1000), P + WINDOW_MS)
    assert.equal(nextProposalTime(solo, chainId, 3n, P, P + 300, 'NodeID-S', 1000), P + 1000)
    assert.equal(nextProposalTime(solo, chainId, 3n, P, P, 'NodeID-X', 1000), undefined)
    assert.equal(nextProposalTime([], chainId, 3n, P, P + 300, 'NodeID-X', 1000), P + 1000)
  })

  it('respects the look-ahead', () => {
    const { height, first } = splitHeight(pair)
    // starting in slot 1 with a look-ahead of 1 slot: found only if `first` owns slot 1 too (it does not)
    assert.equal(nextProposalTime(pair, chainId, height, P, P + WINDOW_MS, first, 0, 1), undefined)
  })
})

describe('checkProposer', () => {
  const pair = [
    { nodeId: 'NodeID-A', weight: 1n },
    { nodeId: 'NodeID-B', weight: 1n },
  ]

  it('accepts the slot proposer and rejects the other', () => {
    const { height, first, second } = splitHeight(pair)
    assert.equal(checkProposer(pair, chainId, height, P, P + 1000, first, P + 1000), null)
    assert.equal(checkProposer(pair, chainId, height, P, P + 1000, second, P + 1000), errProposerMismatch)
    assert.equal(checkProposer(pair, chainId, height, P, P + 5000, second, P + 5000), null)
    assert.equal(checkProposer(pair, chainId, height, P, P + 4999, second, P + 6000), errProposerMismatch)
    assert.equal(checkProposer(pair, chainId, height, P, P + 1000, 'NodeID-X', P + 1000), errProposerMismatch)
  })

  it('requires a signature iff the set is non-empty', () => {
    const { height } = splitHeight(pair)
    assert.equal(checkProposer(pair, chainId, height, P, P, undefined, P), errUnsignedChild)
    assert.equal(checkProposer([], chainId, height, P, P, undefined, P), null)
    assert.equal(checkProposer([], chainId, height, P, P, 'NodeID-A', P), errUnexpectedProposer)
  })

  it('rejects timestamps before the parent or beyond now + 10 s', () => {
    const solo = [{ nodeId: 'NodeID-S', weight: 1n }]
    assert.equal(checkProposer(solo, chainId, 1n, P, P - 1, 'NodeID-S', P), errTimeNotMonotonic)
    assert.equal(checkProposer(solo, chainId, 1n, P, P + 10_000, 'NodeID-S', P), null)
    assert.equal(checkProposer(solo, chainId, 1n, P, P + 10_001, 'NodeID-S', P), errTimeTooAdvanced)
  })
})
