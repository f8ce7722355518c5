/**
 * The reference's time-weighted EWMA (utils/math averager): an observation x at time t decays the running sums by
 * `w = exp(-dt * ln2 / halflife)`, then `sum = x + w * sum`, `norm = 1 + w * norm`; the value is `sum / norm`.
 * Seeded with a prior at a weight (1 in the reference). Pure functions over a JSON-safe state; times in ms.
 */

export interface Ewma {
  /** decayed sum of observations (prior included) */
  sum: number
  /** decayed sum of weights */
  norm: number
  /** time of the latest observation (or of the seed), ms */
  lastMs: number
  halflifeMs: number
}

/** A fresh average holding `prior` at `priorWeight` (default 1), as of `nowMs`. */
export function ewmaCreate(prior: number, nowMs: number, halflifeMs: number, priorWeight = 1): Ewma {
  if (!(halflifeMs > 0)) throw new RangeError(`EWMA halflife must be positive, got ${halflifeMs}`)
  return { sum: prior * priorWeight, norm: priorWeight, lastMs: nowMs, halflifeMs }
}

/** The decay factor for `dtMs` elapsed; a clock that went backwards does not decay (factor 1). */
export const ewmaDecay = (dtMs: number, halflifeMs: number): number =>
  dtMs <= 0 ? 1 : Math.exp((-dtMs * Math.LN2) / halflifeMs)

/** Observes `x` at `nowMs`. A time before the latest observation counts as no time elapsed. */
export function ewmaObserve(s: Ewma, x: number, nowMs: number): Ewma {
  const w = ewmaDecay(nowMs - s.lastMs, s.halflifeMs)
  return { sum: x + w * s.sum, norm: 1 + w * s.norm, lastMs: Math.max(s.lastMs, nowMs), halflifeMs: s.halflifeMs }
}

/** The current average (decay scales sum and norm alike, so it only changes on observations). */
export const ewmaValue = (s: Ewma): number => s.sum / s.norm
