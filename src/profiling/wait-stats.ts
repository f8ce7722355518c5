/**
 * Bounded wait-time statistics: count, mean and max over every sample, p50/p99 over the most recent
 * `windowSize` samples (a ring buffer, so memory stays fixed however long the node runs), and a keyed
 * collection of them with a cap on the number of keys.
 */

/** One key's figures, in milliseconds rounded to the microsecond. */
export interface WaitSummary {
  count: number
  meanMs: number
  p50Ms: number
  p99Ms: number
  maxMs: number
}

export interface WaitRecorder {
  record(ms: number): void
  summary(): WaitSummary
}

export const DEFAULT_WAIT_WINDOW = 512
export const DEFAULT_MAX_KEYS = 256
/** Where samples go once `maxKeys` distinct keys are tracked. */
export const OTHER_KEY = '(other)'

const roundMs = (ms: number): number => Math.round(ms * 1000) / 1000

/** Nearest-rank percentile of an ascending array (0 for an empty one). */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))
  return sorted[rank] ?? 0
}

export function createWaitRecorder(windowSize = DEFAULT_WAIT_WINDOW): WaitRecorder {
  const window = new Float64Array(Math.max(1, windowSize))
  let count = 0
  let sum = 0
  let max = 0
  return {
    record(ms) {
      const value = Number.isFinite(ms) && ms > 0 ? ms : 0
      window[count % window.length] = value
      count += 1
      sum += value
      if (value > max) max = value
    },
    summary() {
      const recent = window.slice(0, Math.min(count, window.length)).sort()
      return {
        count,
        meanMs: count === 0 ? 0 : roundMs(sum / count),
        p50Ms: roundMs(percentile(recent, 0.5)),
        p99Ms: roundMs(percentile(recent, 0.99)),
        maxMs: roundMs(max),
      }
    },
  }
}

export interface KeyedWaitStats {
  record(key: string, ms: number): void
  summaries(): Record<string, WaitSummary>
}

/** Recorders by key; past `maxKeys` distinct keys, new keys share the {@link OTHER_KEY} recorder. */
export function createKeyedWaitStats(maxKeys = DEFAULT_MAX_KEYS, windowSize = DEFAULT_WAIT_WINDOW): KeyedWaitStats {
  const recorders = new Map<string, WaitRecorder>()
  const recorderFor = (key: string): WaitRecorder => {
    const found = recorders.get(key)
    if (found) return found
    const slot = recorders.size < maxKeys ? key : OTHER_KEY
    const existing = recorders.get(slot)
    if (existing) return existing
    const created = createWaitRecorder(windowSize)
    recorders.set(slot, created)
    return created
  }
  return {
    record(key, ms) {
      recorderFor(key).record(ms)
    },
    summaries() {
      const keys = [...recorders.keys()].sort()
      return Object.fromEntries(keys.map((key) => [key, (recorders.get(key) as WaitRecorder).summary()]))
    },
  }
}
