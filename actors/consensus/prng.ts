/**
 * The engine's seeded PRNG (mulberry32) with its state as a plain number, so it lives in JSON-safe actor context:
 * `next(state)` returns a number in [0, 1) and the state to keep. A state made from seed `s` yields exactly the
 * sequence of the classic `mulberry32(s)` closure.
 */

/** The state a seed starts from (any number; kept as a uint32). */
export const prngState = (seed: number): number => seed >>> 0

/** The holder's next number in [0, 1); advances `holder.rng` in place. */
export function nextRandom(holder: { rng: number }): number {
  const a = (holder.rng + 0x6d2b79f5) >>> 0
  holder.rng = a
  let t = a
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** A closure over a fresh state, for callers that want `() => number` (tests, simulations). */
export function mulberry32(seed: number): () => number {
  const holder = { rng: prngState(seed) }
  return () => nextRandom(holder)
}
