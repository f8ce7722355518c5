/**
 * The jayson server of a chain's `/rpc` or `/ws` endpoint (geth rpc/handler.go `handleCall` and service.go's
 * registry): method tables per namespace (`eth`, `net`, `web3`, `txpool`, `personal`, `debug`, ..., and `rpc`
 * with the built-in `rpc_modules` unless the chain has its own), and jayson's `router` resolving a name the way
 * geth does: `<ns>_subscribe` and `<ns>_unsubscribe` in any namespace are the server's own (subscribe.ts); any
 * other name is `<namespace>_<method>`; a name that does not resolve routes to a method answering geth's
 * `the method X does not exist/is not available`. Methods get the call's context through jayson's `useContext`.
 */
import jayson from 'jayson'
import { checkArity } from '../../rpc/eth-args.js'
import type { EthHandlers, EthMethod, MethodTable, SubscriptionTable } from '../../rpc/eth-types.js'
import { ErrorCode } from '../../runtime/errors.js'
import { toWireError, type WireError } from '../jsonrpc/errors.js'
import type { EthHandler } from './call-context.js'
import { ErrorText, methodNotFound } from './errors.js'
import { isSubscribe, isUnsubscribe, namespaceOf } from './message.js'
import { argsOf } from './params.js'
import { SUBSCRIPTION_NAMESPACE, subscribeHandler, unsubscribeHandler } from './subscribe.js'
import type { EthRpcLog } from './types.js'

const TIMEOUT: WireError = { code: ErrorCode.timeout, message: ErrorText.timeout, data: undefined }

/**
 * A chain's method as a jayson handler: answers once, with its result, its error, or -32002 at the deadline.
 * A call that goes on after its caller left (or its deadline) is logged at debug when it ends at last.
 */
function handlerOf(name: string, method: EthMethod, log: EthRpcLog | undefined): EthHandler {
  return (args, ctx, callback) => {
    const proc = ctx.proc
    let raw: unknown
    try {
      raw = method(argsOf(args, ctx.msg.params), proc.ctx)
    } catch (err) {
      callback(toWireError(err, 'geth'))
      return
    }
    if (!(raw instanceof Promise)) {
      callback(null, raw)
      return
    }
    // answered once: by the result, or by -32002 when the proc is cancelled first
    let answered = false
    const answer = (err: WireError | null, value?: unknown): void => {
      if (answered) return
      answered = true
      callback(err, value)
    }
    if (!proc.onAbort(() => answer(TIMEOUT))) return answer(TIMEOUT)
    raw.then(
      (value) => answer(null, value),
      (err: unknown) => answer(toWireError(err, 'geth')),
    )
    if (log !== undefined) {
      const ended = (error?: unknown): void => {
        if (proc.aborted) log.debug('call ended after it was cancelled', { method: name, error: String(error) })
      }
      raw.then(() => ended(), ended)
    }
  }
}

/** geth's `rpc_modules`: every namespace with a method, `rpc`, and `eth` when there are subscription kinds. */
function modulesMethod(methods: MethodTable, subscriptions: SubscriptionTable): EthMethod {
  const names = new Set(['rpc'])
  for (const name of methods.keys()) if (name.includes('_')) names.add(namespaceOf(name))
  if (Object.keys(subscriptions).length > 0) names.add(SUBSCRIPTION_NAMESPACE)
  const list: Record<string, string> = {}
  for (const name of [...names].sort()) list[name] = '1.0'
  return (params) => {
    checkArity(params, 0, 0)
    return list
  }
}

const methodOf = (handler: EthHandler): jayson.Method =>
  new jayson.Method(handler as unknown as jayson.MethodHandlerContext, { useContext: true })

export function createEthServer(handlers: EthHandlers, log?: EthRpcLog): jayson.Server {
  const subscriptions = handlers.subscriptions ?? {}
  /** namespace -> full method name -> jayson method */
  const tables = new Map<string, Map<string, jayson.Method>>()
  const add = (name: string, method: EthMethod): void => {
    const namespace = namespaceOf(name)
    const table = tables.get(namespace) ?? new Map<string, jayson.Method>()
    tables.set(namespace, table)
    table.set(name, methodOf(handlerOf(name, method, log)))
  }
  for (const [name, method] of handlers.methods) add(name, method)
  if (!handlers.methods.has('rpc_modules')) add('rpc_modules', modulesMethod(handlers.methods, subscriptions))
  const subscribe = methodOf(subscribeHandler(subscriptions))
  const unsubscribe = methodOf(unsubscribeHandler)
  const notFound = methodOf((_args, ctx, callback) => callback(toWireError(methodNotFound(ctx.msg.method), 'geth')))
  const router = (name: string): jayson.Method => {
    if (isSubscribe(name)) return subscribe
    if (isUnsubscribe(name)) return unsubscribe
    return tables.get(namespaceOf(name))?.get(name) ?? notFound
  }
  return new jayson.Server({}, { useContext: true, router })
}
