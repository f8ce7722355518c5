/**
 * The house rule that actor context is JSON-safe, checked at run time: with FIRN_CHECK_ACTOR_SNAPSHOTS=1 (tests
 * set it; docs/operations.md) every machine snapshot the actor system reports is walked, and a context that a JSON
 * round trip would not give back (a Map, a class instance, a function, a buffer, a bigint, undefined, NaN ...) is
 * logged once per actor as an error naming the actor and the path. The integration tests fail on that line.
 */
import type { InspectionEvent } from 'xstate'

const MAX_DEPTH = 64

/** Whether a JSON round trip gives `value` back: the fast check, without paths (it runs on every snapshot). */
export function isJsonSafe(value: unknown, depth = 0): boolean {
  if (value === null) return true
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true
    case 'number':
      return Number.isFinite(value)
    case 'object':
      break
    default:
      return false
  }
  if (depth > MAX_DEPTH) return false
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isJsonSafe(value[i], depth + 1)) return false
    return true
  }
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return false
  for (const key in value) {
    if (!isJsonSafe((value as Record<string, unknown>)[key], depth + 1)) return false
  }
  return true
}

/** The first path in `value` that JSON.parse(JSON.stringify(value)) would not give back equal, or null. */
export function jsonUnsafePath(value: unknown, path = 'context', depth = 0): string | null {
  if (depth > MAX_DEPTH) return `${path} (deeper than ${MAX_DEPTH})`
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return null
  if (typeof value === 'number') return Number.isFinite(value) ? null : path
  if (typeof value !== 'object') return `${path} (${typeof value})`
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = jsonUnsafePath(value[i], `${path}[${i}]`, depth + 1)
      if (bad !== null) return bad
    }
    return null
  }
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) {
    return `${path} (${(value as { constructor?: { name?: string } }).constructor?.name ?? 'object'})`
  }
  for (const key of Object.keys(value)) {
    const bad = jsonUnsafePath((value as Record<string, unknown>)[key], `${path}.${key}`, depth + 1)
    if (bad !== null) return bad
  }
  return null
}

/** An inspection observer that reports each actor whose context is not JSON-safe, once. */
export function snapshotChecker(report: (actor: string, path: string) => void): (ev: InspectionEvent) => void {
  const reported = new Set<string>()
  return (ev) => {
    if (ev.type !== '@xstate.snapshot') return
    const snapshot = ev.snapshot as { machine?: unknown; context?: unknown }
    if (snapshot.machine === undefined) return
    const ref = ev.actorRef as { id?: string; systemId?: string }
    const name = ref.systemId ?? ref.id ?? ev.actorRef.sessionId
    if (reported.has(name)) return
    if (isJsonSafe(snapshot.context)) return
    const bad = jsonUnsafePath(snapshot.context)
    if (bad === null) return
    reported.add(name)
    report(name, bad)
  }
}
