/** ACP-226 minimum block delay (Granite), reference/cchain.md 5.3. */
import { fakeExponential, searchSmallest } from './fake-exp.js'

/** M: the minimum delay, ms. */
export const MIN_DELAY_MILLISECONDS = 1n
/** D: 2^20. */
export const DELAY_CONVERSION_RATE = 1n << 20n
/** Q: the largest change of the excess per block. */
export const MAX_DELAY_EXCESS_DIFF = 200n
/** D × ln(2000) + 1: a 2000 ms delay. */
export const INITIAL_MIN_DELAY_EXCESS = 7_970_124n
/** D × ln(2^64−1 / M) + 1: every larger excess saturates the delay. */
export const MAX_DELAY_EXCESS = 46_516_320n

/** Delay in ms = F(M, excess, D). */
export function minDelayMs(excess: bigint): bigint {
  return fakeExponential(MIN_DELAY_MILLISECONDS, excess, DELAY_CONVERSION_RATE)
}

/** The smallest excess whose delay is ≥ `delayMs` (what a node's `min-delay-target` turns into). */
export function desiredDelayExcess(delayMs: bigint): bigint {
  return searchSmallest(MAX_DELAY_EXCESS, (x) => minDelayMs(x) >= delayMs)
}

/** Moves `excess` by at most Q toward `desiredExcess`. */
export function moveDelayExcess(excess: bigint, desiredExcess: bigint): bigint {
  const diff = excess > desiredExcess ? excess - desiredExcess : desiredExcess - excess
  const change = diff < MAX_DELAY_EXCESS_DIFF ? diff : MAX_DELAY_EXCESS_DIFF
  return excess < desiredExcess ? excess + change : excess - change
}

/** A child's excess: the parent's, moved ≤200 toward the excess of `desiredDelayMs` when that is given. */
export function nextMinDelayExcess(parentExcess: bigint, desiredDelayMs?: bigint): bigint {
  if (desiredDelayMs === undefined) return parentExcess
  return moveDelayExcess(parentExcess, desiredDelayExcess(desiredDelayMs))
}

/** Throws `minimum block delay not met: actual delay Xms < required Yms` when the child comes too early. */
export function verifyMinDelay(parentMs: bigint, childMs: bigint, parentExcess: bigint): void {
  const actual = childMs - parentMs
  const required = minDelayMs(parentExcess)
  if (actual < required) {
    throw new Error(`minimum block delay not met: actual delay ${actual}ms < required ${required}ms`)
  }
}
