/**
 * Registering an actor under a systemId after it was spawned. XState 5 takes a systemId only at spawn time, but a
 * peer session exists from the moment its connection opens and learns its NodeID only when its handshake is
 * checked; the network actor then registers it as `peer:<NodeID>`. This uses the system's own registration (the
 * one `spawnChild({ systemId })` uses, `system._set`), so `system.get` finds the actor and stopping it unregisters
 * it as for any systemId. test/unit/actors/system-register.test.ts fails if an XState upgrade changes that.
 */
import type { AnyActorRef } from 'xstate'

interface RegisteringSystem {
  _set(systemId: string, ref: AnyActorRef): void
  get(systemId: string): AnyActorRef | undefined
}

/** Registers `ref` as `systemId`; throws if another actor holds it (the caller checks for duplicates first). */
export function registerSystemId(system: unknown, systemId: string, ref: AnyActorRef): void {
  const s = system as RegisteringSystem
  if (typeof s._set !== 'function') throw new Error('this XState version cannot register a systemId after spawn')
  s._set(systemId, ref)
  // the ref reports the id it is registered under, as a spawned one does
  ;(ref as { systemId?: string }).systemId = systemId
}
