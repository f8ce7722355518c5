/**
 * `ask`: send a command to an actor and await its `reply` (actors/reply.ts), with a deadline.
 *
 * - A fresh `requestId` per call (`crypto.randomUUID()`), no shared counter: two nodes in one process never mix
 *   replies.
 * - Replies reach the waiting call through one `ref.on('reply')` listener per actor, keyed by requestId (a
 *   listener per call made every reply visit every call in flight: with 32 transactions in flight, 32 checks a
 *   reply). The call is registered BEFORE the command is sent, so a reply emitted synchronously while the actor
 *   handles the command is not missed; the listener goes once no call waits.
 * - ok -> resolves with `result`; error -> rejects with the plain `ReplyError` `{code, message, data}` the actor
 *   sent (jayson passes it through as is); no reply within `timeoutMs` -> rejects with
 *   `FirnError('<type> timed out after <n> ms')`; an aborted `signal` -> `FirnError('<type> aborted')`; an actor
 *   that is not running -> `FirnError('<type>: actor is not running')` at once instead of waiting for a deadline.
 * - The deadline defaults to {@link DEFAULT_ASK_TIMEOUT_MS} (30 s): long enough for a heap snapshot of a busy
 *   node, short enough that a stuck actor never keeps an HTTP request open for minutes. Callers pass a shorter
 *   one for cheap commands.
 * - Whatever the outcome, the listener is removed and the timer cleared.
 * - The round trip (send -> reply, or send -> timeout) is recorded per actor into `opts.stats` when given
 *   (src/profiling/mailbox-stats.ts feeds it into the lock profile).
 */
import { randomUUID } from 'node:crypto'
import type { AnyActorRef } from 'xstate'
import type { Reply, ReplyError } from '../../actors/reply.js'
import { actorName } from './actor-name.js'
import { FirnError } from './errors.js'

export const DEFAULT_ASK_TIMEOUT_MS = 30_000

/** Where ask round-trip times go (a `MailboxStats` fits). */
export interface AskStatsSink {
  recordAsk(actorId: string, ms: number): void
}

export interface AskOptions {
  /** deadline in ms (default 30 000) */
  timeoutMs?: number
  /** aborts the wait (the command may still be handled; its reply is then ignored) */
  signal?: AbortSignal
  /** receives the round-trip time per actor */
  stats?: AskStatsSink
}

export type AskCommand = { type: string; [key: string]: unknown }

const isReply = (x: unknown): x is Reply =>
  typeof x === 'object' &&
  x !== null &&
  (x as Reply).type === 'reply' &&
  typeof (x as Reply).requestId === 'string' &&
  typeof (x as Reply).ok === 'boolean'

/** The calls waiting on one actor's replies, and the one listener that hands them out. */
interface Waiting {
  calls: Map<string, (reply: Reply) => void>
  subscription: { unsubscribe(): void }
}

/** Keyed by the actor itself (weakly): the state of that actor's asks, shared by nothing else, gone with it. */
const waitingByActor = new WeakMap<AnyActorRef, Waiting>()

function waitFor(ref: AnyActorRef, requestId: string, onReply: (reply: Reply) => void): () => void {
  let waiting = waitingByActor.get(ref)
  if (waiting === undefined) {
    const calls = new Map<string, (reply: Reply) => void>()
    const subscription = ref.on('reply', (emitted: unknown) => {
      if (isReply(emitted)) calls.get(emitted.requestId)?.(emitted)
    })
    waiting = { calls, subscription }
    waitingByActor.set(ref, waiting)
  }
  const w = waiting
  w.calls.set(requestId, onReply)
  return () => {
    w.calls.delete(requestId)
    if (w.calls.size === 0 && waitingByActor.get(ref) === w) {
      w.subscription.unsubscribe()
      waitingByActor.delete(ref)
    }
  }
}

const toReplyError = (error: ReplyError): ReplyError => ({
  code: error.code,
  message: error.message,
  data: error.data ?? null,
})

export function ask<R>(ref: AnyActorRef, command: AskCommand, opts: AskOptions = {}): Promise<R> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_ASK_TIMEOUT_MS
  const { signal, stats } = opts
  const requestId = randomUUID()
  const name = actorName(ref)

  return new Promise<R>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new FirnError(`${command.type} aborted`))
      return
    }
    if (ref.getSnapshot().status !== 'active') {
      reject(new FirnError(`${command.type}: actor is not running`))
      return
    }
    const sentAt = performance.now()
    let settled = false
    const finish = (outcome: () => void): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      stopWaiting()
      signal?.removeEventListener('abort', onAbort)
      outcome()
    }
    const onAbort = (): void => finish(() => reject(new FirnError(`${command.type} aborted`)))
    const timer = setTimeout(() => {
      finish(() => {
        stats?.recordAsk(name, performance.now() - sentAt)
        reject(new FirnError(`${command.type} timed out after ${timeoutMs} ms`))
      })
    }, timeoutMs)
    const stopWaiting = waitFor(ref, requestId, (reply) => {
      finish(() => {
        stats?.recordAsk(name, performance.now() - sentAt)
        if (reply.ok) resolve(reply.result as R)
        else reject(toReplyError(reply.error))
      })
    })
    signal?.addEventListener('abort', onAbort, { once: true })
    ref.send({ ...command, requestId })
  })
}
