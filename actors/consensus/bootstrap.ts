/**
 * Bootstrapping rules as pure helpers (reference consensus.md 3.2-3.5): the start threshold, the frontier sample,
 * the majority rule over GetAccepted answers, the round rule, and the two bootstrap-serving helpers
 * (`collectAncestors` for GetAncestors, `answerGetAccepted` for GetAccepted). Lookups are injected; no IO here.
 * The fetch state (Fetcher) and peer choice (PeerTracker) live in `bootstrap-fetcher.ts`.
 */
import type { AcceptedRef, Weighted } from './types.js'

/** Containers per Ancestors message, sent and accepted (`--bootstrap-ancestors-max-containers-*`). */
export const MAX_ANCESTORS_CONTAINERS = 2000
/** Bytes per Ancestors message: 4/5 of the 2 MiB message limit. */
export const MAX_ANCESTORS_BYTES = 1_677_721
/** Work spent answering one GetAncestors (`--bootstrap-max-time-get-ancestors`), ms. */
export const MAX_ANCESTORS_TIME_MS = 50
/** Length prefix counted per container, as the reference counts it. */
export const ANCESTORS_CONTAINER_OVERHEAD = 4
/** Requests in flight per phase. */
export const MAX_OUTSTANDING_REQUESTS = 50
/** Fetched-but-not-executed blocks kept in memory; beyond it the highest are dropped and fetched again later. */
export const MAX_STORED_BLOCKS = 100_000
/** Peers treated as "enough responsive peers" by the peer choice. */
export const RESPONSIVE_PEERS_TARGET = 20

/** Sum of the weights. */
export const totalWeight = (beacons: readonly Weighted[]): bigint => beacons.reduce((s, b) => s + b.weight, 0n)

/** Connected beacon weight needed to start: (3W + 3) / 4, integer division; 0 for an empty set. */
export function startThreshold(total: bigint): bigint {
  if (total <= 0n) return 0n
  return (3n * total + 3n) / 4n
}

/** Weight needed for an id to count as accepted: W/2 + 1 (integer division). */
export const majorityThreshold = (total: bigint): bigint => total / 2n + 1n

/** One stake-weighted draw (with replacement); undefined when the set has no weight. */
function drawWeighted(beacons: readonly Weighted[], total: bigint, random: () => number): string | undefined {
  if (total <= 0n) return undefined
  let pick = BigInt(Math.floor(random() * Number(total)))
  if (pick >= total) pick = total - 1n
  if (pick < 0n) pick = 0n
  for (const b of beacons) {
    if (b.weight <= 0n) continue
    if (pick < b.weight) return b.nodeId
    pick -= b.weight
  }
  return undefined
}

/**
 * The frontier peers of a round: the distinct nodes among min(k, W) stake-weighted draws from the beacons, in
 * first-draw order. Empty for an empty (or weightless) set.
 */
export function sampleFrontierPeers(beacons: readonly Weighted[], k: number, random: () => number): string[] {
  const total = totalWeight(beacons)
  const kk = Math.max(0, Math.trunc(k))
  const draws = total < BigInt(kk) ? Number(total) : kk
  const out: string[] = []
  for (let i = 0; i < draws; i++) {
    const node = drawWeighted(beacons, total, random)
    if (node !== undefined && !out.includes(node)) out.push(node)
  }
  return out
}

/**
 * The ids listed by beacons holding at least W/2 + 1 of the weight, in order of first mention. Votes from nodes
 * that are not beacons do not count; an id listed twice by one node counts once.
 */
export function acceptedByMajority(
  votes: ReadonlyMap<string, readonly string[]>,
  beacons: readonly Weighted[],
): string[] {
  const weightOf = new Map<string, bigint>()
  for (const b of beacons) weightOf.set(b.nodeId, (weightOf.get(b.nodeId) ?? 0n) + b.weight)
  const need = majorityThreshold(totalWeight(beacons))
  const backing = new Map<string, bigint>()
  for (const [node, ids] of votes) {
    const w = weightOf.get(node)
    if (w === undefined || w <= 0n) continue
    for (const id of new Set(ids)) backing.set(id, (backing.get(id) ?? 0n) + w)
  }
  return [...backing].filter(([, w]) => w >= need).map(([id]) => id)
}

/**
 * After executing `executedThisRound` blocks, is another round needed (to chase a moving tip)? Yes iff
 * n > 0 and n < prev/2, where prev is the previous round's count (null or Infinity before the first round).
 */
export function shouldStartAnotherRound(executedThisRound: number, executedLastRound: number | null): boolean {
  const prev = executedLastRound ?? Number.POSITIVE_INFINITY
  return executedThisRound > 0 && executedThisRound < prev / 2
}

/** A block as the serving side looks it up. */
export interface StoredContainer {
  bytes: Uint8Array
  parentId: string
  height: number
}

export interface AncestorsCaps {
  /** at most this many containers (default 2000) */
  maxContainers?: number
  /** at most this many bytes, each container counted with a 4-byte prefix (default 1,677,721) */
  maxBytes?: number
  /** stop looking up ancestors once this much time passed (default 50 ms) */
  maxTimeMs?: number
  /** the clock for the time budget, ms (default: none, no time budget) */
  now?: () => number
}

/**
 * The answer to GetAncestors(startId): the block, then its ancestors newest first, within the caps. The first
 * container is always included (if known); the walk stops at genesis (height 0), at an unknown parent, or at a cap.
 * An unknown start id gives an empty list (the caller sends no reply).
 */
export async function collectAncestors(
  startId: string,
  lookup: (id: string) => Promise<StoredContainer | undefined>,
  caps: AncestorsCaps = {},
): Promise<Uint8Array[]> {
  const maxContainers = caps.maxContainers ?? MAX_ANCESTORS_CONTAINERS
  const maxBytes = caps.maxBytes ?? MAX_ANCESTORS_BYTES
  const maxTimeMs = caps.maxTimeMs ?? MAX_ANCESTORS_TIME_MS
  const now = caps.now
  const startedAt = now?.() ?? 0
  const first = await lookup(startId)
  if (first === undefined || maxContainers < 1) return []
  const out = [first.bytes]
  let bytes = first.bytes.length + ANCESTORS_CONTAINER_OVERHEAD
  let blk = first
  while (out.length < maxContainers && blk.height > 0) {
    if (now !== undefined && now() - startedAt >= maxTimeMs) break
    const parent = await lookup(blk.parentId)
    if (parent === undefined) break
    const next = bytes + parent.bytes.length + ANCESTORS_CONTAINER_OVERHEAD
    if (next > maxBytes) break
    out.push(parent.bytes)
    bytes = next
    blk = parent
  }
  return out
}

/**
 * The answer to GetAccepted(ids): those I know at a height ≤ my last accepted height that are my accepted
 * (canonical) block at that height, in the order asked, each once. `canonical(height)` is my accepted id there.
 */
export async function answerGetAccepted(
  ids: readonly string[],
  lookup: (id: string) => Promise<{ height: number } | undefined>,
  lastAccepted: AcceptedRef,
  canonical: (height: number) => Promise<string | undefined>,
): Promise<string[]> {
  const out: string[] = []
  for (const id of new Set(ids)) {
    const blk = await lookup(id)
    if (blk === undefined || blk.height > lastAccepted.height) continue
    if ((await canonical(blk.height)) === id) out.push(id)
  }
  return out
}
