/**
 * Stake-weighted poll sampling (consensus reference 1.5): K stake units drawn without replacement from
 * [0, totalWeight), each mapped to the validator owning it. A validator drawn c times appears c times in the
 * sample (it counts c times in the poll). Pure: the randomness is an injected `random: () => number` in [0, 1).
 */
import type { Weighted } from './types.js'

export const ERR_INSUFFICIENT_WEIGHT = 'insufficient weight'

export type SampleResult = { ok: true; nodeIds: string[] } | { ok: false; error: string }

const TWO_POW_53 = 2n ** 53n
const TWO_POW_32 = 2 ** 32

/** A uniform bigint in [0, n), n > 0, from a [0, 1) source (rejection sampling above 2^53). */
export function uniformBelow(n: bigint, random: () => number): bigint {
  if (n <= 0n) throw new Error('uniformBelow: n must be positive')
  if (n <= TWO_POW_53) {
    const r = BigInt(Math.floor(random() * Number(n)))
    return r < n ? r : n - 1n
  }
  const bits = n.toString(2).length
  const mask = (1n << BigInt(bits)) - 1n
  for (;;) {
    let r = 0n
    for (let got = 0; got < bits; got += 32) r = (r << 32n) | BigInt(Math.floor(random() * TWO_POW_32))
    r &= mask
    if (r < n) return r
  }
}

/** Total weight of the validators (weights <= 0 count as 0). */
export const totalWeight = (validators: readonly Weighted[]): bigint =>
  validators.reduce((s, v) => (v.weight > 0n ? s + v.weight : s), 0n)

/**
 * Draws `k` distinct stake units (Floyd's algorithm: exactly k draws) and maps each to its owner. The result
 * lists owners in draw order, with repeats. Fails with `insufficient weight` when total weight < k.
 */
export function sampleStake(validators: readonly Weighted[], k: number, random: () => number): SampleResult {
  const owners = validators.filter((v) => v.weight > 0n)
  const total = totalWeight(owners)
  const kk = BigInt(k)
  if (k < 0 || total < kk) return { ok: false, error: ERR_INSUFFICIENT_WEIGHT }
  const units: bigint[] = []
  const drawn = new Set<bigint>()
  for (let j = total - kk; j < total; j++) {
    const t = uniformBelow(j + 1n, random)
    const unit = drawn.has(t) ? j : t
    drawn.add(unit)
    units.push(unit)
  }
  // cumulative upper bounds: owner i holds units [ends[i-1], ends[i])
  const ends: bigint[] = []
  let acc = 0n
  for (const v of owners) {
    acc += v.weight
    ends.push(acc)
  }
  const nodeIds = units.map((u) => {
    let lo = 0
    let hi = ends.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (u < (ends[mid] as bigint)) hi = mid
      else lo = mid + 1
    }
    return (owners[lo] as Weighted).nodeId
  })
  return { ok: true, nodeIds }
}

/** The distinct NodeIDs of a sample, in first-drawn order. */
export const distinct = (nodeIds: readonly string[]): string[] => [...new Set(nodeIds)]
