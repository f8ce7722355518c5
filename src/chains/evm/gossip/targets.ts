/**
 * Whom tx gossip goes to: the validators holding the top share of stake, a uniform sample of connected
 * validators, one random connected validator (pull). Only connected peers other than self are ever returned;
 * randomness is injected ([0, 1) uniform).
 */

export interface WeightedNode {
  nodeId: string
  weight: bigint
}

/** Weight over zero: the validators that count. */
export function isValidator(validators: readonly WeightedNode[], nodeId: string): boolean {
  return validators.some((v) => v.nodeId === nodeId && v.weight > 0n)
}

/**
 * The reference's `Validators.Top`: validators by weight, heaviest first (ties by NodeID), taken until their
 * weight reaches `percent` % of the total. Self and unconnected nodes count toward the stake, then are dropped.
 */
export function topByStake(
  validators: readonly WeightedNode[],
  percent: number,
  connected: ReadonlySet<string>,
  self: string,
): string[] {
  const sorted = validators
    .filter((v) => v.weight > 0n)
    .sort((a, b) => (a.weight === b.weight ? (a.nodeId < b.nodeId ? -1 : 1) : a.weight > b.weight ? -1 : 1))
  const total = sorted.reduce((sum, v) => sum + v.weight, 0n)
  const scaled = BigInt(Math.round(percent * 100))
  const threshold = (total * scaled + 9_999n) / 10_000n
  const out: string[] = []
  let acc = 0n
  for (const v of sorted) {
    if (acc >= threshold) break
    acc += v.weight
    if (v.nodeId !== self && connected.has(v.nodeId)) out.push(v.nodeId)
  }
  return out
}

/** Up to `n` items drawn uniformly without replacement (partial Fisher–Yates). */
export function sample<T>(items: readonly T[], n: number, random: () => number): T[] {
  const pool = [...items]
  const out: T[] = []
  for (let left = pool.length; left > 0 && out.length < n; left--) {
    const pick = Math.min(Math.floor(random() * left), left - 1)
    out.push(pool[pick] as T)
    pool[pick] = pool[left - 1] as T
  }
  return out
}

/** Connected validators other than self, in the transport's order. */
export function connectedValidators(
  validators: readonly WeightedNode[],
  connected: readonly string[],
  self: string,
): string[] {
  const weighted = new Set(validators.filter((v) => v.weight > 0n).map((v) => v.nodeId))
  return [...new Set(connected)].filter((id) => id !== self && weighted.has(id))
}

/** Push targets: top `percent` % of stake plus up to `sampled` other connected validators. */
export function pushTargets(
  validators: readonly WeightedNode[],
  connected: readonly string[],
  self: string,
  opts: { percent: number; sampled: number; random: () => number },
): string[] {
  const top = topByStake(validators, opts.percent, new Set(connected), self)
  const chosen = new Set(top)
  const rest = connectedValidators(validators, connected, self).filter((id) => !chosen.has(id))
  return [...top, ...sample(rest, opts.sampled, opts.random)]
}
