/** A flat, JSON-safe listing of the actor tree (id and state value), for admin.stacktrace and logs. */
import type { AnyActorRef } from 'xstate'

export interface ActorLine {
  id: string
  state: unknown
}

export function listActors(root: AnyActorRef, max = 10_000): ActorLine[] {
  const out: ActorLine[] = []
  const walk = (ref: AnyActorRef, path: string) => {
    if (out.length >= max) return
    const snap = ref.getSnapshot() as { value?: unknown; status?: string; children?: Record<string, AnyActorRef> }
    out.push({ id: path, state: snap.value ?? snap.status })
    for (const [id, child] of Object.entries(snap.children ?? {})) {
      if (child) walk(child, `${path}/${id}`)
    }
  }
  walk(root, root.id)
  return out
}
