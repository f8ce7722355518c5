/**
 * ACP-176 dynamic fees (Fortuna+), reference/cchain.md 5.5. The state lives in header.extra[0:24] as
 * capacity u64 ‖ excess u64 ‖ targetExcess u64, big-endian. All functions are pure: they return new states.
 */
import { fakeExponential, minBig, mulCapped, searchSmallest, U64_MAX } from './fake-exp.js'

export interface FeeState {
  capacity: bigint
  excess: bigint
  targetExcess: bigint
}

/** P: the minimum target, gas per second. */
export const MIN_TARGET_PER_SECOND = 1_000_000n
/** Q: the largest change of targetExcess per block. */
export const MAX_TARGET_EXCESS_DIFF = 32_768n
/** Controls the rate at which the target can change per block. */
export const MAX_TARGET_CHANGE_RATE = 1024n
/** D: the target conversion, 2^25. */
export const TARGET_CONVERSION = MAX_TARGET_CHANGE_RATE * MAX_TARGET_EXCESS_DIFF
/** M: the minimum gas price (wei). */
export const MIN_GAS_PRICE = 1n
/** Seconds to refill the capacity from empty. */
export const TIME_TO_FILL_CAPACITY = 5n
/** Max rate = 2 × target. */
export const TARGET_TO_MAX = 2n
/** K = 87 × target (≈ 60 / ln 2: the price doubles at most every ~60 s). */
export const TARGET_TO_PRICE_UPDATE_CONVERSION = 87n
/** C = 10 × target. */
export const TARGET_TO_MAX_CAPACITY = TARGET_TO_MAX * TIME_TO_FILL_CAPACITY
/** Bytes of the encoded state. */
export const FEE_STATE_SIZE = 24
/** D × ln(2^64−1 / P) + 1: every larger targetExcess saturates the target. */
export const MAX_TARGET_EXCESS = 1_024_950_627n

export const ZERO_FEE_STATE: FeeState = Object.freeze({ capacity: 0n, excess: 0n, targetExcess: 0n })

function checkU64(name: string, v: bigint): void {
  if (v < 0n || v > U64_MAX) throw new Error(`invalid fee state: ${name} out of range`)
}

export function encodeFeeState(s: FeeState): Uint8Array {
  checkU64('capacity', s.capacity)
  checkU64('excess', s.excess)
  checkU64('targetExcess', s.targetExcess)
  const out = new Uint8Array(FEE_STATE_SIZE)
  const view = new DataView(out.buffer)
  view.setBigUint64(0, s.capacity)
  view.setBigUint64(8, s.excess)
  view.setBigUint64(16, s.targetExcess)
  return out
}

/** Reads the first 24 bytes (anything after them, e.g. predicate results, is ignored). */
export function decodeFeeState(bytes: Uint8Array): FeeState {
  if (bytes.length < FEE_STATE_SIZE) {
    throw new Error(
      `insufficient length for fee state: expected at least ${FEE_STATE_SIZE} bytes but got ${bytes.length} bytes`,
    )
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, FEE_STATE_SIZE)
  return { capacity: view.getBigUint64(0), excess: view.getBigUint64(8), targetExcess: view.getBigUint64(16) }
}

/** T = F(P, targetExcess, D), gas per second. */
export function target(s: FeeState): bigint {
  return fakeExponential(MIN_TARGET_PER_SECOND, s.targetExcess, TARGET_CONVERSION)
}

/** C = 10 × T: also the header gasLimit. */
export function maxCapacity(s: FeeState): bigint {
  return mulCapped(target(s), TARGET_TO_MAX_CAPACITY)
}

/** The base fee: F(M, excess, 87 × T). */
export function price(s: FeeState): bigint {
  return fakeExponential(MIN_GAS_PRICE, s.excess, mulCapped(target(s), TARGET_TO_PRICE_UPDATE_CONVERSION))
}

function addOverTime(g: bigint, rate: bigint, duration: bigint): bigint {
  return minBig(g + rate * duration, U64_MAX)
}

function subOverTime(g: bigint, rate: bigint, duration: bigint): bigint {
  const v = g - rate * duration
  return v < 0n ? 0n : v
}

/**
 * The state after `elapsed` time. Granite: `elapsed` is milliseconds, with per-ms rates T/1000 and 2 × (T/1000)
 * (integer division). Fortuna (granite = false): `elapsed` is whole seconds (childSec − parentSec), rates T and 2T.
 * capacity = min(C, capacity + R × elapsed); excess = max(0, excess − T × elapsed).
 */
export function advance(s: FeeState, elapsed: bigint, granite: boolean): FeeState {
  if (elapsed < 0n) throw new Error('invalid fee state advance: negative duration')
  const t = target(s)
  const cap = mulCapped(mulCapped(t, TARGET_TO_MAX), TIME_TO_FILL_CAPACITY)
  const targetRate = granite ? t / 1000n : t
  const maxRate = granite ? targetRate * TARGET_TO_MAX : mulCapped(t, TARGET_TO_MAX)
  const capacity = addOverTime(s.capacity, maxRate, elapsed)
  return {
    capacity: minBig(capacity, cap),
    excess: subOverTime(s.excess, targetRate, elapsed),
    targetExcess: s.targetExcess,
  }
}

function consumeOne(s: FeeState, gas: bigint): FeeState {
  if (gas < 0n || s.capacity < gas) throw new Error(`insufficient capacity: capacity (${s.capacity}) < gas (${gas})`)
  const excess = s.excess + gas
  return { capacity: s.capacity - gas, excess: minBig(excess, U64_MAX), targetExcess: s.targetExcess }
}

/** Consumes `gas`, then `extraGas` (extDataGasUsed) as the reference does; excess saturates at 2^64−1. */
export function consume(s: FeeState, gas: bigint, extraGas?: bigint): FeeState {
  const after = consumeOne(s, gas)
  if (extraGas === undefined) return after
  if (extraGas > U64_MAX) {
    throw new Error(`insufficient capacity: extraGasUsed (${extraGas}) exceeds MaxUint64`)
  }
  return consumeOne(after, extraGas)
}

/**
 * Moves targetExcess by at most Q toward `desiredTargetExcess` (no move when undefined), rescales the excess by
 * newT / oldT so the price stays put, and caps the capacity at the new C.
 */
export function moveTarget(s: FeeState, desiredTargetExcess?: bigint): FeeState {
  if (desiredTargetExcess === undefined) return s
  const oldT = target(s)
  const diff =
    s.targetExcess > desiredTargetExcess ? s.targetExcess - desiredTargetExcess : desiredTargetExcess - s.targetExcess
  const change = diff < MAX_TARGET_EXCESS_DIFF ? diff : MAX_TARGET_EXCESS_DIFF
  const targetExcess = s.targetExcess < desiredTargetExcess ? s.targetExcess + change : s.targetExcess - change
  const moved = { ...s, targetExcess }
  const newT = target(moved)
  const scaled = (s.excess * newT) / oldT
  const newCap = mulCapped(newT, TARGET_TO_MAX_CAPACITY)
  return {
    capacity: minBig(s.capacity, newCap),
    excess: minBig(scaled, U64_MAX),
    targetExcess,
  }
}

/** The smallest targetExcess whose target is ≥ `desiredTarget` gas/s (what a node's `gas-target` turns into). */
export function desiredTargetExcess(desiredTarget: bigint): bigint {
  return searchSmallest(
    MAX_TARGET_EXCESS,
    (x) => target({ capacity: 0n, excess: 0n, targetExcess: x }) >= desiredTarget,
  )
}

/** Go's %+v of the reference's state struct, used in `incorrect fee state` messages. */
export function formatFeeState(s: FeeState): string {
  return `{Gas:{Capacity:${s.capacity} Excess:${s.excess}} TargetExcess:${s.targetExcess}}`
}

export function feeStatesEqual(a: FeeState, b: FeeState): boolean {
  return a.capacity === b.capacity && a.excess === b.excess && a.targetExcess === b.targetExcess
}
