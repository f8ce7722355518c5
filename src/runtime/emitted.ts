/**
 * How actors speak to the world: what an actor `emit`s, as an RxJS Observable. An IO slot's implementation
 * subscribes to its actor's emitted events, carries them out and maps their results back to events.
 */
import { Observable } from 'rxjs'
import type { AnyActorRef } from 'xstate'

/** Every event `ref` emits (of type E, as its machine declares) from subscription on, in order. */
export function emitted$<E>(ref: AnyActorRef): Observable<E> {
  return new Observable<E>((subscriber) => {
    const sub = ref.on('*', (e: unknown) => subscriber.next(e as E))
    return () => sub.unsubscribe()
  })
}
