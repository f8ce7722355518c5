/**
 * The lock profile (`admin.lockProfile` -> `<profile-dir>/lock.profile`). Node has no mutexes, so instead of a
 * Go mutex profile Firn records what blocks this node: the event loop (every request, timer and actor shares
 * it) and actor mailboxes (a busy actor makes its callers wait).
 *
 * Format `firn-lock-profile/1`, one JSON document (UTF-8, 2-space indented):
 *
 * ```
 * {
 *   "format": "firn-lock-profile/1",    // this format and its version
 *   "createdAt": "2025-01-02T03:04:05.678Z", // RFC 3339 UTC time the profile was written
 *   "uptimeSeconds": 12.345,            // seconds since the node's monitors started (node start)
 *   "eventLoopDelayMs": {               // perf_hooks.monitorEventLoopDelay since node start, milliseconds:
 *     "min", "max", "mean", "stddev",   //   how late the loop ran a 10 ms timer (0 before the first sample)
 *     "p50", "p90", "p99", "p999",      //   percentiles 50, 90, 99, 99.9
 *     "count"                           //   number of samples
 *   },
 *   "eventLoopUtilization": {           // performance.eventLoopUtilization() since node start:
 *     "utilization",                    //   active / (active + idle), 0..1
 *     "activeMs", "idleMs"              //   time the loop spent busy / waiting in the OS poll
 *   },
 *   "actors": {                         // per actor (systemId, else id): an event relayed to it -> processed,
 *     "<actor>": {                      //   i.e. mailbox wait + processing time
 *       "events",                       //   events measured since node start
 *       "meanMs", "maxMs",              //   over all of them
 *       "p50Ms", "p99Ms"                //   over the most recent 512
 *     }
 *   },
 *   "asks": {                           // per actor: `ask` sent -> reply or timeout (the JSON-RPC command path)
 *     "<actor>": { "calls", "meanMs", "maxMs", "p50Ms", "p99Ms" }
 *   }
 * }
 * ```
 *
 * At most 256 rows per table; further actors share the `(other)` row. All numbers are finite.
 */
import { writeFile } from 'node:fs/promises'
import { performance } from 'node:perf_hooks'
import type { EventLoopDelayReport, EventLoopMonitor, EventLoopUtilizationReport } from './event-loop.js'
import { DEFAULT_PROFILE_IO_TIMEOUT_MS, PROFILE_FILE_MODE, prepareProfileFile } from './files.js'
import type { MailboxStats } from './mailbox-stats.js'
import type { WaitSummary } from './wait-stats.js'

export const LOCK_PROFILE_FORMAT = 'firn-lock-profile/1'
export const DEFAULT_LOCK_PROFILE_NAME = 'lock.profile'

/** What a lock profile is made of: both are created when the node starts. */
export interface LockSources {
  eventLoop: EventLoopMonitor
  mailbox: MailboxStats
}

type Rows<K extends string> = Record<string, { [key in K]: number } & Omit<WaitSummary, 'count'>>

export interface LockProfile {
  format: typeof LOCK_PROFILE_FORMAT
  createdAt: string
  uptimeSeconds: number
  eventLoopDelayMs: EventLoopDelayReport
  eventLoopUtilization: EventLoopUtilizationReport
  actors: Rows<'events'>
  asks: Rows<'calls'>
}

const rows = <K extends string>(summaries: Record<string, WaitSummary>, countKey: K): Rows<K> =>
  Object.fromEntries(
    Object.entries(summaries).map(([name, { count, ...rest }]) => [name, { [countKey]: count, ...rest }]),
  ) as Rows<K>

/** The profile as a value (pure apart from reading the clock and the sources). */
export function lockProfile(sources: LockSources, now: Date = new Date()): LockProfile {
  const mailbox = sources.mailbox.snapshot()
  return {
    format: LOCK_PROFILE_FORMAT,
    createdAt: now.toISOString(),
    uptimeSeconds: Math.round(performance.now() - sources.eventLoop.startedAt) / 1000,
    eventLoopDelayMs: sources.eventLoop.delay(),
    eventLoopUtilization: sources.eventLoop.utilization(),
    actors: rows(mailbox.actors, 'events'),
    asks: rows(mailbox.asks, 'calls'),
  }
}

/** Writes `<dir>/<name>` (default `lock.profile`) and returns its path. */
export async function writeLockProfile(
  dir: string,
  name: string = DEFAULT_LOCK_PROFILE_NAME,
  sources: LockSources,
  timeoutMs = DEFAULT_PROFILE_IO_TIMEOUT_MS,
): Promise<string> {
  const path = await prepareProfileFile(dir, name)
  const body = `${JSON.stringify(lockProfile(sources), null, 2)}\n`
  await writeFile(path, body, { mode: PROFILE_FILE_MODE, signal: AbortSignal.timeout(timeoutMs) })
  return path
}
