/**
 * Mailbox wait statistics: how long events sit in an actor's mailbox plus how long the actor takes to process
 * them, per actor, and how long `ask` round trips take, per actor. Node has no mutexes; a busy actor's mailbox
 * is what blocks callers, so this is half of the lock profile (src/profiling/lock.ts).
 *
 * `observe` plugs into the root actor's `inspect` option. XState 5 (system `_relay`, `Actor.update`) sends:
 * - `@xstate.event` when an event is relayed to its target, just before it is put in the target's mailbox
 *   (`actorRef` = target);
 * - `@xstate.snapshot` once the target has processed that event (`actorRef` = target, `event` = the same object).
 * The time between the two is the wait + processing time. Pending events are kept in WeakMaps (actor -> event ->
 * time), so events an actor never processes (it stopped) are simply garbage collected. `xstate.init` is not a
 * mailbox message and is not counted. An event object relayed twice to the same actor before it is processed
 * counts once.
 *
 * Actors are named by systemId when they have one, else by id (`profiler`, `chain:C`, `startCpuProfile`); actors
 * sharing a name share a row. Memory is bounded: a fixed ring of recent samples per row, at most `maxActors`
 * rows per table (further names share the `(other)` row).
 */
import type { AnyEventObject, InspectionEvent } from 'xstate'
import { actorName } from '../runtime/actor-name.js'
import { createKeyedWaitStats, DEFAULT_MAX_KEYS, DEFAULT_WAIT_WINDOW, type WaitSummary } from './wait-stats.js'

export interface MailboxReport {
  /** per actor: relayed event -> processed */
  actors: Record<string, WaitSummary>
  /** per actor: `ask` sent -> reply (or timeout) */
  asks: Record<string, WaitSummary>
}

export interface MailboxStats {
  /** pass as `createActor(root, { inspect: stats.observe })` */
  observe(ev: InspectionEvent): void
  recordAsk(actorId: string, ms: number): void
  snapshot(): MailboxReport
}

export interface MailboxStatsOptions {
  /** rows per table before names share `(other)` (default 256) */
  maxActors?: number
  /** recent samples per row used for p50/p99 (default 512) */
  windowSize?: number
  /** monotonic clock in ms (default `performance.now`) */
  now?: () => number
}

export function createMailboxStats(options: MailboxStatsOptions = {}): MailboxStats {
  const maxActors = options.maxActors ?? DEFAULT_MAX_KEYS
  const windowSize = options.windowSize ?? DEFAULT_WAIT_WINDOW
  const now = options.now ?? (() => performance.now())
  const actors = createKeyedWaitStats(maxActors, windowSize)
  const asks = createKeyedWaitStats(maxActors, windowSize)
  const pending = new WeakMap<object, WeakMap<AnyEventObject, number>>()

  const observe = (ev: InspectionEvent): void => {
    if (ev.type === '@xstate.event') {
      if (ev.event.type === 'xstate.init') return
      let events = pending.get(ev.actorRef)
      if (!events) {
        events = new WeakMap()
        pending.set(ev.actorRef, events)
      }
      events.set(ev.event, now())
      return
    }
    if (ev.type === '@xstate.snapshot') {
      const events = pending.get(ev.actorRef)
      const relayedAt = events?.get(ev.event)
      if (events === undefined || relayedAt === undefined) return
      events.delete(ev.event)
      actors.record(actorName(ev.actorRef), now() - relayedAt)
    }
  }

  return {
    observe,
    recordAsk(actorId, ms) {
      asks.record(actorId, ms)
    },
    snapshot() {
      return { actors: actors.summaries(), asks: asks.summaries() }
    },
  }
}
