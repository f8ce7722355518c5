/**
 * The reference's network-wide adaptive request timeout (utils/timer/adaptive_timeout_manager.go):
 * `timeout = clamp(coefficient * EWMA(latency), min, max)`, the EWMA seeded with the initial timeout, which is
 * also the timeout until the first observation. Latency is observed on every response, and on a timeout as the
 * request's full timeout. Pure state and functions; times in ms.
 */
import { type Ewma, ewmaCreate, ewmaObserve, ewmaValue } from './ewma.js'

export interface AdaptiveTimeoutConfig {
  initialMs: number
  minMs: number
  maxMs: number
  halflifeMs: number
  /** >= 1 */
  coefficient: number
}

/** `--network-initial-timeout`, `--network-minimum-timeout`, `--network-maximum-timeout`,
 * `--network-timeout-halflife`, `--network-timeout-coefficient` */
export const DEFAULT_ADAPTIVE_TIMEOUT: Readonly<AdaptiveTimeoutConfig> = Object.freeze({
  initialMs: 5_000,
  minMs: 2_000,
  maxMs: 10_000,
  halflifeMs: 5 * 60_000,
  coefficient: 2,
})

export interface AdaptiveTimeoutState {
  config: AdaptiveTimeoutConfig
  latency: Ewma
  /** the timeout a request sent now gets, whole ms */
  currentMs: number
}

export function adaptiveTimeoutCreate(
  nowMs: number,
  config: Partial<AdaptiveTimeoutConfig> = {},
): AdaptiveTimeoutState {
  const c: AdaptiveTimeoutConfig = { ...DEFAULT_ADAPTIVE_TIMEOUT, ...config }
  return { config: c, latency: ewmaCreate(c.initialMs, nowMs, c.halflifeMs), currentMs: c.initialMs }
}

export const clampTimeout = (ms: number, c: Pick<AdaptiveTimeoutConfig, 'minMs' | 'maxMs'>): number =>
  Math.min(c.maxMs, Math.max(c.minMs, ms))

/** A response arrived `latencyMs` after its request was sent. */
export function observeLatency(s: AdaptiveTimeoutState, latencyMs: number, nowMs: number): AdaptiveTimeoutState {
  const latency = ewmaObserve(s.latency, latencyMs, nowMs)
  const currentMs = clampTimeout(Math.floor(s.config.coefficient * ewmaValue(latency)), s.config)
  return { config: s.config, latency, currentMs }
}

/** A request timed out: its whole timeout (by default the current one) counts as its latency. */
export const observeTimeout = (
  s: AdaptiveTimeoutState,
  nowMs: number,
  requestTimeoutMs: number = s.currentMs,
): AdaptiveTimeoutState => observeLatency(s, requestTimeoutMs, nowMs)

export const currentTimeoutMs = (s: AdaptiveTimeoutState): number => s.currentMs

/** The average latency the timeout derives from, ms. */
export const averageLatencyMs = (s: AdaptiveTimeoutState): number => ewmaValue(s.latency)
