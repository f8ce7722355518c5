/**
 * The dashboard's view of the actor system, fed by the root actor's inspection events (src/node/create-node.ts
 * `inspect`): every actor that exists (registered on `@xstate.actor`, dropped once it has stopped) and its last
 * few events (`@xstate.event`, the type and time only, so no event payload is retained). `rows()` reads each live
 * actor's snapshot when a page asks: its systemId, parent, state value, status and context as bounded JSON text.
 * Recording costs a map lookup and an array push per event, whether or not a page is open.
 */
import type { AnyActorRef, InspectionEvent } from 'xstate'
import { boundedJson } from './bounded-json.js'

export interface RecentEvent {
  type: string
  /** unix ms */
  at: number
  /** the sender's systemId or id, when another actor sent it */
  from?: string
}

export interface ActorRow {
  sessionId: string
  /** the id its parent gave it (the invoke's id for an IO slot) */
  id: string
  systemId?: string
  /** the parent's sessionId; absent for the root */
  parent?: string
  /** a machine (has a state value) or another kind of actor (an IO slot: observable, promise, callback) */
  kind: 'machine' | 'slot'
  /** the state value of a machine; the status of anything else */
  state: unknown
  status: string
  /** the context as JSON text, cut at the context budget; left out of a shared frame when unchanged */
  context?: string
  /** the latest events it received, oldest first */
  events: RecentEvent[]
}

export interface ActorRegistryOptions {
  /** events kept per actor (default 8) */
  eventsPerActor?: number
  /** characters of context text per actor (default 4000) */
  contextChars?: number
  /** actors listed at most (default 2000) */
  maxRows?: number
  /** called on every new actor and every snapshot (the route throttles what it does with it) */
  onChange?: () => void
  now?: () => number
}

interface Entry {
  ref: AnyActorRef
  /** the last events, a ring: `next` is the oldest once `count` reached its length */
  types: string[]
  ats: number[]
  froms: (string | undefined)[]
  next: number
  count: number
  /** the context whose text is `contextText` (snapshots are immutable: the same object is the same context) */
  context: unknown
  contextText: string | undefined
  /** the context last sent in a shared frame */
  sent: unknown
}

/** how many registrations between sweeps of stopped actors */
const SWEEP_EVERY = 256

export class ActorRegistry {
  readonly #live = new Map<string, Entry>()
  readonly #eventsPerActor: number
  readonly #contextChars: number
  readonly #maxRows: number
  readonly #onChange: () => void
  readonly #now: () => number
  #added = 0

  constructor(opts: ActorRegistryOptions = {}) {
    this.#eventsPerActor = opts.eventsPerActor ?? 8
    this.#contextChars = opts.contextChars ?? 4000
    this.#maxRows = opts.maxRows ?? 2000
    this.#onChange = opts.onChange ?? (() => undefined)
    this.#now = opts.now ?? Date.now
  }

  /** one inspection event of the actor system */
  inspect(ev: InspectionEvent): void {
    if (ev.type === '@xstate.event') {
      const entry = this.#live.get(ev.actorRef.sessionId)
      if (entry === undefined) return
      const source = ev.sourceRef as { systemId?: string; id: string; sessionId: string } | undefined
      const i = entry.next
      entry.types[i] = ev.event.type
      entry.ats[i] = this.#now()
      entry.froms[i] =
        source !== undefined && source.sessionId !== ev.actorRef.sessionId ? (source.systemId ?? source.id) : undefined
      entry.next = (i + 1) % this.#eventsPerActor
      if (entry.count < this.#eventsPerActor) entry.count++
    } else if (ev.type === '@xstate.snapshot') {
      this.#onChange()
    } else if (ev.type === '@xstate.actor') {
      this.#live.set(ev.actorRef.sessionId, {
        ref: ev.actorRef as AnyActorRef,
        types: [],
        ats: [],
        froms: [],
        next: 0,
        count: 0,
        context: undefined,
        contextText: undefined,
        sent: undefined,
      })
      if (++this.#added % SWEEP_EVERY === 0) this.#sweep()
      this.#onChange()
    }
  }

  /** actors registered and not yet swept (stopped ones included until the next read or sweep) */
  get size(): number {
    return this.#live.size
  }

  /**
   * Every live actor, parents before children (registration order); stopped actors are forgotten here. With
   * `changedOnly` (the frames every page shares), a row carries its context only when it changed since the last
   * such call; otherwise (a page's first frame) every row carries it. Context texts are kept until they change.
   */
  rows(changedOnly = false): ActorRow[] {
    const out: ActorRow[] = []
    for (const [sessionId, entry] of this.#live) {
      const ref = entry.ref
      const snap = ref.getSnapshot() as { status?: string; value?: unknown; context?: unknown } | undefined
      const status = snap?.status ?? 'unknown'
      if (status !== 'active') {
        this.#live.delete(sessionId)
        continue
      }
      if (out.length >= this.#maxRows) continue
      const machine = snap !== undefined && 'value' in snap
      const parent = (ref as { _parent?: { sessionId: string } })._parent?.sessionId
      const systemId = (ref as { systemId?: string }).systemId
      const row: ActorRow = {
        sessionId,
        id: ref.id,
        kind: machine ? 'machine' : 'slot',
        state: machine ? snap.value : status,
        status,
        events: this.#events(entry),
      }
      if (systemId !== undefined) row.systemId = systemId
      if (parent !== undefined) row.parent = parent
      if (machine && snap.context !== undefined) {
        if (entry.context !== snap.context || entry.contextText === undefined) {
          entry.context = snap.context
          entry.contextText = boundedJson(snap.context, this.#contextChars)
        }
        if (!changedOnly || entry.sent !== snap.context) row.context = entry.contextText
        if (changedOnly) entry.sent = snap.context
      }
      out.push(row)
    }
    return out
  }

  /** the ring's events, oldest first */
  #events(e: Entry): RecentEvent[] {
    const out: RecentEvent[] = []
    const start = e.count < this.#eventsPerActor ? 0 : e.next
    for (let k = 0; k < e.count; k++) {
      const i = (start + k) % this.#eventsPerActor
      const from = e.froms[i]
      out.push(from === undefined ? { type: e.types[i]!, at: e.ats[i]! } : { type: e.types[i]!, at: e.ats[i]!, from })
    }
    return out
  }

  #sweep(): void {
    for (const [id, { ref }] of this.#live) {
      if ((ref.getSnapshot() as { status?: string } | undefined)?.status !== 'active') this.#live.delete(id)
    }
  }
}
