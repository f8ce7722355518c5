/**
 * Block proposer selection: the "simple faithful scheme" for a small local network (consensus reference 2.3).
 * Post-Durango style 5 s slots after the parent's timestamp; each slot's proposer is a stake-weighted pick
 * derived from sha256(chainSeed || height || slot). Not wire-compatible with proposervm's MT19937 sampler.
 */
import { sha256 } from '@noble/hashes/sha2.js'

/** Length of one proposer slot. */
export const WINDOW_MS = 5000
/** How many slots ahead a builder looks for its own slot (1 h). */
export const MAX_LOOK_AHEAD_SLOTS = 720
/** How far a block's timestamp may run ahead of the verifier's clock. */
export const MAX_SKEW_MS = 10_000

export const errTimeNotMonotonic = 'time must monotonically increase'
export const errTimeTooAdvanced = 'time is too far advanced'
export const errUnsignedChild = 'expected child to be signed'
export const errUnexpectedProposer = 'unexpected proposer for current window'
export const errProposerMismatch = 'proposer mismatch'

export interface WeightedValidator {
  nodeId: string
  weight: bigint
}

/** Slot of time `tMs` after a parent stamped `parentTsMs`: floor((t − parent) / 5 s), 0 before the parent. */
export function slotOf(parentTsMs: number, tMs: number): bigint {
  if (tMs < parentTsMs) return 0n
  return BigInt(Math.floor((tMs - parentTsMs) / WINDOW_MS))
}

const U64 = (1n << 64n) - 1n

function seedBytes(chainId: Uint8Array, height: bigint, slot: bigint): Uint8Array {
  if (chainId.length < 8) throw new Error('chainId must be at least 8 bytes')
  const buf = new Uint8Array(24)
  buf.set(chainId.subarray(0, 8), 0)
  const view = new DataView(buf.buffer)
  view.setBigUint64(8, height & U64)
  view.setBigUint64(16, slot & U64)
  return buf
}

function toBigInt(bytes: Uint8Array): bigint {
  let n = 0n
  for (const b of bytes) n = (n << 8n) | BigInt(b)
  return n
}

/** Validators with positive weight, sorted by NodeID (string order). */
function sortedPositive(validators: readonly WeightedValidator[]): WeightedValidator[] {
  return validators
    .filter((v) => v.weight > 0n)
    .sort((a, b) => (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0))
}

/**
 * The proposer of `slot` at `height`, or undefined when the set has no weight (anyone may build, unsigned).
 * The 256-bit digest is reduced mod totalWeight; the bias is at most totalWeight / 2^256, negligible.
 */
export function expectedProposer(
  validators: readonly WeightedValidator[],
  chainId: Uint8Array,
  height: bigint,
  slot: bigint,
): string | undefined {
  const sorted = sortedPositive(validators)
  let total = 0n
  for (const v of sorted) total += v.weight
  if (total === 0n) return undefined
  let pick = toBigInt(sha256(seedBytes(chainId, height, slot))) % total
  for (const v of sorted) {
    if (pick < v.weight) return v.nodeId
    pick -= v.weight
  }
  return undefined // unreachable
}

/**
 * When `me` may build on a parent stamped `parentTsMs`: my first slot in [currentSlot, currentSlot + look-ahead),
 * at parentTs + max(slot·5 s, minDelay). With an empty set, the current slot (anyone may build).
 * Undefined if I have no slot within the look-ahead.
 */
export function nextProposalTime(
  validators: readonly WeightedValidator[],
  chainId: Uint8Array,
  height: bigint,
  parentTsMs: number,
  nowMs: number,
  me: string,
  minDelayMs: number,
  maxLookAheadSlots = MAX_LOOK_AHEAD_SLOTS,
): number | undefined {
  const current = slotOf(parentTsMs, nowMs)
  const at = (slot: bigint): number => parentTsMs + Math.max(Number(slot) * WINDOW_MS, minDelayMs)
  if (sortedPositive(validators).length === 0) return at(current)
  for (let s = current; s < current + BigInt(maxLookAheadSlots); s++) {
    if (expectedProposer(validators, chainId, height, s) === me) return at(s)
  }
  return undefined
}

/**
 * The verifier's rule for a block at `height` stamped `tsMs` on a parent stamped `parentTsMs`, signed by `signer`
 * (undefined if unsigned): parentTs ≤ ts ≤ now + 10 s, and the signer is the slot's proposer (unsigned iff the set
 * is empty). Returns null if acceptable, else the reason.
 */
export function checkProposer(
  validators: readonly WeightedValidator[],
  chainId: Uint8Array,
  height: bigint,
  parentTsMs: number,
  tsMs: number,
  signer: string | undefined,
  nowMs: number,
): string | null {
  if (tsMs < parentTsMs) return errTimeNotMonotonic
  if (tsMs > nowMs + MAX_SKEW_MS) return errTimeTooAdvanced
  const expected = expectedProposer(validators, chainId, height, slotOf(parentTsMs, tsMs))
  if (expected === undefined) return signer === undefined ? null : errUnexpectedProposer
  if (signer === undefined) return errUnsignedChild
  return signer === expected ? null : errProposerMismatch
}
