/**
 * Running one call (geth rpc/handler.go `handleCall`): `*_subscribe` and `*_unsubscribe` are the layer's
 * own, in any namespace; everything else is looked up in the method table (`rpc_modules` is built in
 * unless the table has it). Subscription kinds live in the `eth` namespace.
 */

import { checkArity, goJsonKind, invalidArgument } from '../../rpc/eth-args.js'
import type { EthMethod, MethodTable, SubscriptionStart, SubscriptionTable } from '../../rpc/eth-types.js'
import { ErrorCode } from '../../runtime/errors.js'
import { goQuote } from '../jsonrpc/go-text.js'
import { type Answer, errorAnswer, resultAnswer, thrownAnswer } from './encode.js'
import { ErrorText, methodNotFound } from './errors.js'
import { isSubscribe, isUnsubscribe, namespaceOf, type RpcMessage } from './message.js'
import { positionalParams } from './params.js'
import { ABORTED, type CallProc, type Session, untilAborted } from './session.js'

export interface CallEnv {
  methods: MethodTable
  subscriptions: SubscriptionTable
  /** the built-in `rpc_modules` */
  modules: EthMethod
}

const SUBSCRIPTION_NAMESPACE = 'eth'

export function createCallEnv(methods: MethodTable, subscriptions: SubscriptionTable = {}): CallEnv {
  const names = new Set(['rpc'])
  for (const name of methods.keys()) if (name.includes('_')) names.add(namespaceOf(name))
  if (Object.keys(subscriptions).length > 0) names.add(SUBSCRIPTION_NAMESPACE)
  const list: Record<string, string> = {}
  for (const name of [...names].sort()) list[name] = '1.0'
  const modules: EthMethod = (params) => {
    checkArity(params, 0, 0)
    return list
  }
  return { methods, subscriptions, modules }
}

const timeoutAnswer = (id: string | undefined): Answer => errorAnswer(id, ErrorCode.timeout, ErrorText.timeout)

export function runCall(env: CallEnv, proc: CallProc, msg: RpcMessage, session: Session): Answer | Promise<Answer> {
  if (isSubscribe(msg.method)) return subscribe(env, proc, msg, session)
  if (isUnsubscribe(msg.method)) return unsubscribe(msg, session)
  const method = env.methods.get(msg.method) ?? (msg.method === 'rpc_modules' ? env.modules : undefined)
  if (method === undefined) return thrownAnswer(msg.id, methodNotFound(msg.method))
  try {
    const result = untilAborted(method(positionalParams(msg.params), proc.ctx), proc.signal)
    if (!(result instanceof Promise)) return resultAnswer(msg.id, result)
    return result.then(
      (value) => (value === ABORTED ? timeoutAnswer(msg.id) : resultAnswer(msg.id, value)),
      (err: unknown) => thrownAnswer(msg.id, err),
    )
  } catch (err) {
    return thrownAnswer(msg.id, err)
  }
}

/** geth's `parseSubscriptionName`: params must be an array starting with a string; else the -32602 text. */
function subscriptionArgs(raw: string | undefined): { name: string; args: unknown[] } | string {
  if (raw === undefined || raw.charCodeAt(0) !== 0x5b) return ErrorText.nonArrayArgs
  const params = JSON.parse(raw) as unknown[]
  const name = params[0]
  if (typeof name !== 'string') return ErrorText.expectedSubscriptionName
  return { name, args: params.slice(1) }
}

async function subscribe(env: CallEnv, proc: CallProc, msg: RpcMessage, session: Session): Promise<Answer> {
  const subs = session.subscriptions
  if (subs === undefined) return errorAnswer(msg.id, ErrorCode.methodNotFound, ErrorText.notificationsUnsupported)
  const parsed = subscriptionArgs(msg.params)
  if (typeof parsed === 'string') return errorAnswer(msg.id, ErrorCode.invalidParams, parsed)
  const namespace = namespaceOf(msg.method)
  const start: SubscriptionStart | undefined =
    namespace === SUBSCRIPTION_NAMESPACE && Object.hasOwn(env.subscriptions, parsed.name)
      ? env.subscriptions[parsed.name]
      : undefined
  if (start === undefined) {
    return errorAnswer(
      msg.id,
      ErrorCode.methodNotFound,
      `no ${goQuote(parsed.name)} subscription in ${namespace} namespace`,
    )
  }
  const sub = subs.create(namespace)
  if (sub === undefined) return errorAnswer(msg.id, ErrorCode.server, ErrorText.tooManySubscriptions)
  proc.created.push(sub)
  try {
    const started = start(parsed.args, (result) => subs.push(sub, result), proc.ctx)
    const stop = await untilAborted(started, proc.signal)
    if (stop === ABORTED) {
      subs.end(sub)
      // a start that finishes later is stopped at once
      Promise.resolve(started).then(
        (late) => subs.attach(sub, late),
        () => {},
      )
      return timeoutAnswer(msg.id)
    }
    subs.attach(sub, stop as () => void)
  } catch (err) {
    subs.end(sub)
    return thrownAnswer(msg.id, err)
  }
  return resultAnswer(msg.id, sub.id)
}

/** geth's `unsubscribe(ctx, id rpc.ID) (bool, error)`. */
function unsubscribe(msg: RpcMessage, session: Session): Answer {
  try {
    const params = positionalParams(msg.params)
    const id = params[0]
    if (params.length > 0 && id !== null && typeof id !== 'string') {
      throw invalidArgument(0, `json: cannot unmarshal ${goJsonKind(id)} into Go value of type rpc.ID`)
    }
    checkArity(params, 1, 1)
    const removed = session.subscriptions?.remove(typeof id === 'string' ? id : '') ?? false
    return removed ? resultAnswer(msg.id, true) : errorAnswer(msg.id, ErrorCode.server, ErrorText.subscriptionNotFound)
  } catch (err) {
    return thrownAnswer(msg.id, err)
  }
}
