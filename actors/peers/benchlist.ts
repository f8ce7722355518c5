/**
 * One chain's benchlist, the reference's current algorithm (snow/networking/benchlist, v1.14.2+): per validator an
 * EWMA of the failure probability (a response observes 0, a request timeout 1; prior 0 at weight 1, halflife
 * 1 min). A node is benched when p > 0.5 and the stake cap allows; at the cap, benched nodes with a lower p are
 * evicted (lowest first) if that frees enough, otherwise the node is not benched. It is unbenched when p < 0.2
 * or once it has been benched for the bench duration (5 min), which also resets its average.
 * Only validators (weight > 0) are tracked. Pure reducer over JSON-safe state; times in ms, weights as numbers
 * (only ratios matter, so precision past 2^53 is irrelevant).
 */
import { type Ewma, ewmaCreate, ewmaObserve, ewmaValue } from './ewma.js'

export interface BenchlistConfig {
  halflifeMs: number
  benchProbability: number
  unbenchProbability: number
  benchDurationMs: number
  /** the share of the total stake that may be benched at once; <= 0 disables benching */
  maxBenchedPortion: number
}

/** The stake cap the reference derives from the consensus parameters: (1 - alphaConfidence / K) / 3. */
export const maxBenchedPortion = (k: number, alphaConfidence: number): number => (1 - alphaConfidence / k) / 3

export const DEFAULT_BENCHLIST: Readonly<BenchlistConfig> = Object.freeze({
  halflifeMs: 60_000,
  benchProbability: 0.5,
  unbenchProbability: 0.2,
  benchDurationMs: 5 * 60_000,
  maxBenchedPortion: maxBenchedPortion(20, 15),
})

export interface BenchlistNode {
  weight: number
  failure: Ewma
  benched: boolean
  /** when the current bench started, ms; null when not benched */
  benchedAtMs: number | null
}

export interface BenchlistState {
  config: BenchlistConfig
  /** the chain's (subnet's) total validator weight */
  totalWeight: number
  nodes: Record<string, BenchlistNode>
}

export interface ValidatorWeight {
  nodeId: string
  weight: number
}

export type BenchlistEvent =
  | { type: 'success'; nodeId: string; weight: number; now: number }
  | { type: 'failure'; nodeId: string; weight: number; now: number }
  | { type: 'tick'; now: number }
  | { type: 'validatorsChanged'; validators: ValidatorWeight[]; now: number }

export interface BenchChange {
  nodeId: string
  benched: boolean
}

export interface BenchlistResult {
  state: BenchlistState
  changes: BenchChange[]
}

/** Relative slack for the cap comparison, so 1/12 of 12 equal weights fits despite float rounding. */
const CAP_EPSILON = 1e-9

export function benchlistCreate(
  config: Partial<BenchlistConfig> = {},
  validators: ValidatorWeight[] = [],
): BenchlistState {
  return {
    config: { ...DEFAULT_BENCHLIST, ...config },
    totalWeight: validators.reduce((acc, v) => acc + Math.max(0, v.weight), 0),
    nodes: {},
  }
}

/** The node's failure probability, 0 when untracked. */
export const failureProbability = (s: BenchlistState, nodeId: string): number => {
  const n = s.nodes[nodeId]
  return n === undefined ? 0 : ewmaValue(n.failure)
}

const expired = (n: BenchlistNode, c: BenchlistConfig, now: number): boolean =>
  n.benched && n.benchedAtMs !== null && now - n.benchedAtMs >= c.benchDurationMs

/** True when requests to `nodeId` on this chain should fail at once; with `now`, an expired bench is over. */
export function isBenched(s: BenchlistState, nodeId: string, now?: number): boolean {
  const n = s.nodes[nodeId]
  if (n === undefined || !n.benched) return false
  return now === undefined || !expired(n, s.config, now)
}

export const benchedNodeIds = (s: BenchlistState): string[] =>
  Object.keys(s.nodes)
    .filter((id) => s.nodes[id]?.benched)
    .sort()

export const benchedWeight = (s: BenchlistState): number =>
  Object.values(s.nodes).reduce((acc, n) => acc + (n.benched ? n.weight : 0), 0)

/** When the earliest bench runs out, ms (schedule a `tick` then); null when nobody is benched. */
export function nextBenchExpiry(s: BenchlistState): number | null {
  let next: number | null = null
  for (const n of Object.values(s.nodes)) {
    if (!n.benched || n.benchedAtMs === null) continue
    const at = n.benchedAtMs + s.config.benchDurationMs
    if (next === null || at < next) next = at
  }
  return next
}

const fresh = (c: BenchlistConfig, weight: number, now: number): BenchlistNode => ({
  weight,
  failure: ewmaCreate(0, now, c.halflifeMs),
  benched: false,
  benchedAtMs: null,
})

const unbenched = (n: BenchlistNode): BenchlistNode => ({ ...n, benched: false, benchedAtMs: null })

/**
 * Which benched nodes to evict so that `nodeId` (failure probability p) fits under the cap: those with a lower
 * p, lowest first, until enough stake is freed. `[]` when it fits as is; null when it cannot fit.
 */
function evictionsFor(s: BenchlistState, nodeId: string, weight: number, p: number): string[] | null {
  const { maxBenchedPortion: portion } = s.config
  if (!(portion > 0) || !(s.totalWeight > 0)) return null
  const cap = s.totalWeight * portion * (1 + CAP_EPSILON)
  let benched = benchedWeight(s)
  if (benched + weight <= cap) return []
  const candidates = Object.entries(s.nodes)
    .filter(([id, n]) => id !== nodeId && n.benched && ewmaValue(n.failure) < p)
    .map(([id, n]) => ({ id, weight: n.weight, p: ewmaValue(n.failure) }))
    .sort((a, b) => a.p - b.p || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const evict: string[] = []
  for (const c of candidates) {
    evict.push(c.id)
    benched -= c.weight
    if (benched + weight <= cap) return evict
  }
  return null
}

function observe(s: BenchlistState, nodeId: string, weight: number, x: 0 | 1, now: number): BenchlistResult {
  const c = s.config
  const known = s.nodes[nodeId]
  if (!(weight > 0)) {
    // not a validator: not tracked (one already benched stays benched until it runs out)
    if (known?.benched) return { state: s, changes: [] }
    if (known === undefined) return { state: s, changes: [] }
    const { [nodeId]: _, ...rest } = s.nodes
    return { state: { ...s, nodes: rest }, changes: [] }
  }
  const changes: BenchChange[] = []
  let n: BenchlistNode = known === undefined ? fresh(c, weight, now) : { ...known, weight }
  if (expired(n, c, now)) {
    n = fresh(c, weight, now)
    changes.push({ nodeId, benched: false })
  }
  n = { ...n, failure: ewmaObserve(n.failure, x, now) }
  const p = ewmaValue(n.failure)
  let nodes = { ...s.nodes, [nodeId]: n }
  if (n.benched && p < c.unbenchProbability) {
    nodes[nodeId] = unbenched(n)
    changes.push({ nodeId, benched: false })
  } else if (!n.benched && p > c.benchProbability) {
    const evict = evictionsFor({ ...s, nodes }, nodeId, weight, p)
    if (evict !== null) {
      nodes = { ...nodes }
      for (const id of evict) {
        const e = nodes[id]
        if (e === undefined) continue
        nodes[id] = unbenched(e)
        changes.push({ nodeId: id, benched: false })
      }
      nodes[nodeId] = { ...n, benched: true, benchedAtMs: now }
      changes.push({ nodeId, benched: true })
    }
  }
  return { state: { ...s, nodes }, changes }
}

/** Ends every bench that has run out (the node's average starts afresh). */
function tick(s: BenchlistState, now: number): BenchlistResult {
  const changes: BenchChange[] = []
  let nodes = s.nodes
  for (const id of Object.keys(s.nodes).sort()) {
    const n = s.nodes[id]
    if (n === undefined || !expired(n, s.config, now)) continue
    if (nodes === s.nodes) nodes = { ...s.nodes }
    nodes[id] = fresh(s.config, n.weight, now)
    changes.push({ nodeId: id, benched: false })
  }
  return { state: nodes === s.nodes ? s : { ...s, nodes }, changes }
}

/** New weights and total; nodes that left the validator set are dropped (and unbenched). */
function validatorsChanged(s: BenchlistState, validators: ValidatorWeight[]): BenchlistResult {
  const weights = new Map<string, number>()
  for (const v of validators) if (v.weight > 0) weights.set(v.nodeId, (weights.get(v.nodeId) ?? 0) + v.weight)
  const totalWeight = [...weights.values()].reduce((a, b) => a + b, 0)
  const changes: BenchChange[] = []
  const nodes: Record<string, BenchlistNode> = {}
  for (const id of Object.keys(s.nodes).sort()) {
    const n = s.nodes[id]
    if (n === undefined) continue
    const weight = weights.get(id)
    if (weight === undefined) {
      if (n.benched) changes.push({ nodeId: id, benched: false })
      continue
    }
    nodes[id] = { ...n, weight }
  }
  return { state: { ...s, totalWeight, nodes }, changes }
}

export function benchlistReducer(s: BenchlistState, e: BenchlistEvent): BenchlistResult {
  switch (e.type) {
    case 'success':
      return observe(s, e.nodeId, e.weight, 0, e.now)
    case 'failure':
      return observe(s, e.nodeId, e.weight, 1, e.now)
    case 'tick':
      return tick(s, e.now)
    case 'validatorsChanged':
      return validatorsChanged(s, e.validators)
  }
}
