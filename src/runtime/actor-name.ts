/**
 * A readable, stable name for an actor, used as the row key of the lock profile and the ask statistics: its
 * systemId when it has one (`profiler`, `chain:C`), else its id (`startCpuProfile`), else its sessionId.
 * `systemId` lives on `Actor` but not on the `ActorRef` types, hence the structural read.
 */
export interface NamedActorRef {
  id?: unknown
  systemId?: unknown
  sessionId: string
}

export const actorName = (ref: NamedActorRef): string => {
  if (typeof ref.systemId === 'string' && ref.systemId !== '') return ref.systemId
  if (typeof ref.id === 'string' && ref.id !== '') return ref.id
  return ref.sessionId
}
