/**
 * Pure helpers of the Snowman engine core: the validator weights, the connected-stake gate, the frontier-poll
 * target pick and the chits answer. No state of their own.
 */
import type { BlockTree } from './block-tree.js'
import type { SnowParams } from './params.js'
import { type Bounded, boundedGet } from './records.js'
import type { Chits, ValidatorStake, Weighted } from './types.js'

/** The validator set with bigint weights, as sampling needs them. */
export const weightsOf = (validators: readonly ValidatorStake[]): Weighted[] =>
  validators.map((v) => ({ nodeId: v.nodeId, weight: BigInt(v.weight) }))

/** Queries are skipped while connected stake / total stake < αc/K (self counts as connected). */
export function enoughConnectedStake(
  params: SnowParams,
  validators: readonly Weighted[],
  self: string,
  isConnected: (nodeId: string) => boolean,
): boolean {
  let total = 0n
  let connected = 0n
  for (const v of validators) {
    if (v.weight <= 0n) continue
    total += v.weight
    if (v.nodeId === self || isConnected(v.nodeId)) connected += v.weight
  }
  if (total === 0n) return false
  // connected / total >= αc / K  <=>  connected * K >= total * αc
  return connected * BigInt(params.k) >= total * BigInt(params.alphaConfidence)
}

/** One connected validator other than self, chosen uniformly (not by stake); undefined when there is none. */
export function pickFrontierTarget(
  validators: readonly Weighted[],
  self: string,
  isConnected: (nodeId: string) => boolean,
  random: () => number,
): string | undefined {
  const candidates = validators.filter((v) => v.weight > 0n && v.nodeId !== self && isConnected(v.nodeId))
  if (candidates.length === 0) return undefined
  const i = Math.min(candidates.length - 1, Math.floor(random() * candidates.length))
  return candidates[i]?.nodeId
}

/** The preferred chain's block at `height`, walking up from the preference; undefined when off the chain. */
export function preferredAt(tree: BlockTree, height: number): string | undefined {
  let id: string | undefined = tree.preference
  while (id !== undefined) {
    const n: BlockTree['blocks'][string] | undefined = Object.hasOwn(tree.blocks, id) ? tree.blocks[id] : undefined
    if (n === undefined || n.height < height) return undefined
    if (n.height === height) return n.id
    id = n.parentId ?? undefined
  }
  return undefined
}

/**
 * The chits answering a query for `requestedHeight`: the preference, the block at that height (the accepted
 * one at or below the last accepted height, else the preferred chain's, falling back to last accepted /
 * preference), and the last accepted block.
 */
export function chitsFor(tree: BlockTree, acceptedAt: Bounded<string>, requestedHeight: number): Chits {
  const la = tree.lastAccepted
  const atHeight =
    requestedHeight <= la.height
      ? (boundedGet(acceptedAt, String(requestedHeight)) ?? la.id)
      : (preferredAt(tree, requestedHeight) ?? tree.preference)
  return { preferredId: tree.preference, preferredIdAtHeight: atHeight, acceptedId: la.id, acceptedHeight: la.height }
}
