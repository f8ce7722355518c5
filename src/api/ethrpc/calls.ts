/**
 * One call or notification through the endpoint's jayson server (geth rpc/handler.go `handleCallMsg`). Around
 * `server.call` Firn keeps what jayson does differently from geth: the params jayson carries are the argument
 * array (other forms are judged by the method, after the name resolved, as geth does), the id jayson carries
 * is the raw id text and comes back in the answer as it was, and the answer is geth's text (encode.ts).
 * A method that answers synchronously is answered synchronously (no promise on the hot path).
 */
import type jayson from 'jayson'
import type { RpcCallObserver } from '../../rpc/call-observer.js'
import type { WireError } from '../jsonrpc/errors.js'
import type { EthCallContext } from './call-context.js'
import { type Answer, errorAnswer, resultAnswer } from './encode.js'
import type { RpcMessage } from './message.js'
import { arrayParams } from './params.js'
import type { CallProc, Session } from './session.js'

/** jayson's request: the method as asked, the argument array, the raw id text (undefined: a notification). */
interface JaysonRequest {
  jsonrpc: '2.0'
  method: string
  params: unknown[] | undefined
  id: string | undefined
}

type Response = jayson.JSONRPCResponseWithError | jayson.JSONRPCResponseWithResult

/** jayson's response -> geth's answer text; undefined (a notification) -> null. */
function answerOf(response: Response | undefined): Answer | null {
  if (response === undefined) return null
  const id = response.id as string
  if ('error' in response && response.error !== undefined) {
    const { code, message, data } = response.error as WireError
    return errorAnswer(id, code, message, data)
  }
  return resultAnswer(id, (response as jayson.JSONRPCResponseWithResult).result)
}

const PENDING: unique symbol = Symbol('pending')

/** What a call tells the observer: the observer, and the method's name when the endpoint serves it. */
export interface CallMeter {
  observer: RpcCallObserver
  /** `name` when the endpoint serves a method of that name, else undefined (callers choose names) */
  served(name: string): string | undefined
}

/** Runs a call (answer) or a notification (null once it has run) through `server`; `meter` hears of it. */
export function runCall(
  server: jayson.Server,
  msg: RpcMessage,
  proc: CallProc,
  session: Session,
  meter?: CallMeter,
): Answer | null | Promise<Answer | null> {
  const startMs = meter === undefined ? 0 : performance.now()
  const request: JaysonRequest = { jsonrpc: '2.0', method: msg.method, params: arrayParams(msg.params), id: msg.id }
  const ctx: EthCallContext = { msg, proc, session }
  let answered: Answer | null | typeof PENDING = PENDING
  let resolve: ((answer: Answer | null) => void) | undefined
  server.call(request as jayson.JSONRPCRequestLike, ctx, (err, response) => {
    const r = err ?? response
    const answer = answerOf(r)
    if (meter !== undefined) {
      const failed = err != null || (r !== undefined && 'error' in r && r.error !== undefined)
      meter.observer.called(meter.served(msg.method), !failed, startMs)
    }
    if (resolve === undefined) answered = answer
    else resolve(answer)
  })
  if (answered !== PENDING) return answered
  return new Promise((r) => {
    resolve = r
  })
}
