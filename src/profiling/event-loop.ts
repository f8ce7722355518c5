/**
 * The event-loop half of the lock profile: a `perf_hooks.monitorEventLoopDelay` histogram and the
 * event-loop utilization, both measured from the moment the monitor is created (when the node starts).
 * One monitor per node; `close()` disables the histogram.
 */
import { type EventLoopUtilization, monitorEventLoopDelay, performance } from 'node:perf_hooks'

/** Event-loop delay in milliseconds (0 everywhere until the first sample). */
export interface EventLoopDelayReport {
  min: number
  max: number
  mean: number
  stddev: number
  p50: number
  p90: number
  p99: number
  p999: number
  /** delay samples taken */
  count: number
}

export interface EventLoopUtilizationReport {
  /** active / (active + idle), 0..1 */
  utilization: number
  activeMs: number
  idleMs: number
}

export interface EventLoopMonitor {
  /** `performance.now()` when the monitor started */
  readonly startedAt: number
  delay(): EventLoopDelayReport
  utilization(): EventLoopUtilizationReport
  close(): void
}

/** Sampling period of the delay histogram in ms (the Node default). */
export const DEFAULT_EVENT_LOOP_RESOLUTION_MS = 10

const nsToMs = (ns: number): number => (Number.isFinite(ns) ? Math.round(ns / 1000) / 1000 : 0)

export function createEventLoopMonitor(resolutionMs = DEFAULT_EVENT_LOOP_RESOLUTION_MS): EventLoopMonitor {
  const histogram = monitorEventLoopDelay({ resolution: Math.max(1, Math.floor(resolutionMs)) })
  histogram.enable()
  const startedAt = performance.now()
  const eluAtStart: EventLoopUtilization = performance.eventLoopUtilization()
  let closed = false
  return {
    startedAt,
    delay() {
      const count = histogram.count
      if (count === 0) return { min: 0, max: 0, mean: 0, stddev: 0, p50: 0, p90: 0, p99: 0, p999: 0, count: 0 }
      return {
        min: nsToMs(histogram.min),
        max: nsToMs(histogram.max),
        mean: nsToMs(histogram.mean),
        stddev: nsToMs(histogram.stddev),
        p50: nsToMs(histogram.percentile(50)),
        p90: nsToMs(histogram.percentile(90)),
        p99: nsToMs(histogram.percentile(99)),
        p999: nsToMs(histogram.percentile(99.9)),
        count,
      }
    },
    utilization() {
      const elu = performance.eventLoopUtilization(eluAtStart)
      return {
        utilization: Number.isFinite(elu.utilization) ? Math.round(elu.utilization * 1e6) / 1e6 : 0,
        activeMs: Math.round(elu.active * 1000) / 1000,
        idleMs: Math.round(elu.idle * 1000) / 1000,
      }
    },
    close() {
      if (closed) return
      closed = true
      histogram.disable()
    },
  }
}
