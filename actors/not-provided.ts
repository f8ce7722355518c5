/**
 * Placeholders for IO slots. A pure machine declares each IO actor by name with one of these; the composition
 * root replaces it with `machine.provide({ actors: { name: realLogic } })`. If it forgets, the placeholder fails
 * loudly with `<name> was not provided` instead of doing nothing.
 */
import { throwError } from 'rxjs'
import { type EventObject, fromCallback, fromEventObservable, fromObservable, fromPromise } from 'xstate'

/** The text every placeholder fails with. */
export const notProvidedMessage = (name: string): string => `${name} was not provided`

/** A promise slot: the invoked actor errors at once (the invoker's `onError` runs). */
export const notProvidedPromise = <TOutput, TInput = void>(name: string) =>
  fromPromise<TOutput, TInput>(async () => {
    throw new Error(notProvidedMessage(name))
  })

/** An event-stream slot (`fromEventObservable`): the stream errors at once. */
export const notProvidedEventObservable = <TEvent extends EventObject, TInput = void>(name: string) =>
  fromEventObservable<TEvent, TInput>(() => throwError(() => new Error(notProvidedMessage(name))))

/** A value-stream slot (`fromObservable`): the stream errors at once. */
export const notProvidedObservable = <TValue, TInput = void>(name: string) =>
  fromObservable<TValue, TInput>(() => throwError(() => new Error(notProvidedMessage(name))))

/** A callback slot (`fromCallback`): starting it throws. */
export const notProvidedCallback = <TEvent extends EventObject, TInput = void>(name: string) =>
  fromCallback<TEvent, TInput>(() => {
    throw new Error(notProvidedMessage(name))
  })
