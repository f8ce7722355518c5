/**
 * Snow consensus parameters (K, αp, αc, β, …), their defaults, validation and derived thresholds, as in
 * the reference node's snowball parameters. Error texts follow the reference to the letter.
 */

export interface SnowParams {
  /** Poll sample size, in stake units. */
  k: number
  /** Votes needed to set or keep a preference. */
  alphaPreference: number
  /** Votes needed for a poll to raise confidence. */
  alphaConfidence: number
  /** Consecutive αc-successful polls that finalize. */
  beta: number
  /** Polls kept outstanding while anything is processing. */
  concurrentRepolls: number
  /** No block building while this many blocks are processing. */
  optimalProcessing: number
  /** Health only: max processing blocks. */
  maxOutstandingItems: number
  /** Health only: max age of the oldest processing block, in milliseconds. */
  maxItemProcessingTimeMs: number
}

export const DEFAULT_SNOW_PARAMS: Readonly<SnowParams> = Object.freeze({
  k: 20,
  alphaPreference: 15,
  alphaConfidence: 15,
  beta: 20,
  concurrentRepolls: 4,
  optimalProcessing: 10,
  maxOutstandingItems: 256,
  maxItemProcessingTimeMs: 30_000,
})

export const ERR_PARAMETERS_INVALID = 'parameters invalid'

/** Safety buffer raising the healthy connected-stake fraction above αc/K. */
export const MIN_PERCENT_CONNECTED_BUFFER = 0.2

const invalid = (detail: string): string => `${ERR_PARAMETERS_INVALID}: ${detail}`

/**
 * Null when the parameters are valid, else the reference's error text. Valid means
 * floor(K/2) < αp <= αc <= K, 0 < concurrentRepolls <= β, and the last three strictly positive.
 * The processing-time value is printed in nanoseconds, as the reference prints its duration.
 */
export function validateSnowParams(p: SnowParams): string | null {
  if (p.alphaPreference <= Math.trunc(p.k / 2)) {
    return invalid(
      `k = ${p.k}, alphaPreference = ${p.alphaPreference}: fails the condition that: k/2 < alphaPreference`,
    )
  }
  if (p.alphaConfidence < p.alphaPreference) {
    return invalid(
      `alphaPreference = ${p.alphaPreference}, alphaConfidence = ${p.alphaConfidence}: fails the condition that: alphaPreference <= alphaConfidence`,
    )
  }
  if (p.k < p.alphaConfidence) {
    return invalid(`k = ${p.k}, alphaConfidence = ${p.alphaConfidence}: fails the condition that: alphaConfidence <= k`)
  }
  if (p.concurrentRepolls <= 0) {
    return invalid(`concurrentRepolls = ${p.concurrentRepolls}: fails the condition that: 0 < concurrentRepolls`)
  }
  if (p.concurrentRepolls > p.beta) {
    return invalid(
      `concurrentRepolls = ${p.concurrentRepolls}, beta = ${p.beta}: fails the condition that: concurrentRepolls <= beta`,
    )
  }
  if (p.optimalProcessing <= 0) {
    return invalid(`optimalProcessing = ${p.optimalProcessing}: fails the condition that: 0 < optimalProcessing`)
  }
  if (p.maxOutstandingItems <= 0) {
    return invalid(`maxOutstandingItems = ${p.maxOutstandingItems}: fails the condition that: 0 < maxOutstandingItems`)
  }
  if (p.maxItemProcessingTimeMs <= 0) {
    const ns = Math.round(p.maxItemProcessingTimeMs * 1_000_000)
    return invalid(`maxItemProcessingTime = ${ns}: fails the condition that: 0 < maxItemProcessingTime`)
  }
  return null
}

/** Connected-stake fraction below which queries are skipped: αc/K. */
export const minConnectedStakeFraction = (p: SnowParams): number => p.alphaConfidence / p.k

/** Connected-stake fraction the health check wants: αc/K·(1 − buffer) + buffer. */
export const minPercentConnectedHealthy = (p: SnowParams): number =>
  (p.alphaConfidence / p.k) * (1 - MIN_PERCENT_CONNECTED_BUFFER) + MIN_PERCENT_CONNECTED_BUFFER

/** Largest stake fraction the benchlist may bench: (1 − αc/K)/3. */
export const maxBenchedFraction = (p: SnowParams): number => (1 - p.alphaConfidence / p.k) / 3
