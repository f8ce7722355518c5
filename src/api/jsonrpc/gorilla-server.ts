/**
 * The jayson server of a node-API endpoint (/ext/info, /ext/admin, a chain's /admin): its method table is per
 * namespace (service), and jayson's `router` resolves a requested name with the reference's rules (method-name.ts:
 * avalanchego's upper-casing, gorilla's service/method split and texts). A name that does not resolve routes to
 * a method answering the reference's -32000 text, so jayson's own "Method not found" never shows. Each method
 * parses its params (Firn's normalised params, or the argument error Firn found while normalising) and runs
 * the handler; every error leaves as a `toWireError(..., 'gorilla')` object.
 */
import jayson from 'jayson'
import { ARGUMENT_ERROR } from '../../rpc/params.js'
import type { CallInfo, RpcMethod, RpcService } from '../../rpc/service.js'
import { ErrorCode } from '../../runtime/errors.js'
import { toWireError, type WireError } from './errors.js'
import { resolveMethod } from './method-name.js'

/** The context jayson hands each method (`useContext`): the call, and what Firn learnt before the call. */
export interface GorillaContext {
  call: CallInfo
  /** the params did not normalise: the method answers the argument error (after the name resolved) */
  badParams: boolean
  /** set when the handler ran (the HTTP layer adds `X-Content-Type-Options` then) */
  handlerRan: boolean
  /** the Go-style name (`info.GetNodeID`) once the name resolved */
  method: string | undefined
}

export interface GorillaServerOptions {
  /** Called with the Go-style name (`info.GetNodeID`) for every error a handler throws or rejects with. */
  onError?: ((method: string, err: unknown) => void) | undefined
  /** Also resolve geth-style names: `admin_startCPUProfiler` as `admin.startCPUProfiler`. */
  underscoreNames?: boolean | undefined
}

type Callback = (err: WireError | null, result?: unknown) => void
type Handler = (params: Record<string, unknown> | undefined, ctx: GorillaContext, callback: Callback) => void

const isThenable = (x: unknown): x is PromiseLike<unknown> =>
  typeof x === 'object' && x !== null && typeof (x as PromiseLike<unknown>).then === 'function'

const serverError = (message: string): WireError => ({ code: ErrorCode.server, message, data: null })
const ARGUMENT_WIRE_ERROR = serverError(ARGUMENT_ERROR)

/** parse + handler, reported through jayson's callback. */
function handlerOf(name: string, method: RpcMethod<unknown>, onError: GorillaServerOptions['onError']): Handler {
  const fail = (callback: Callback, err: unknown): void => {
    onError?.(name, err)
    callback(toWireError(err, 'gorilla'))
  }
  return (raw, ctx, callback) => {
    ctx.method = name
    if (ctx.badParams) {
      callback(ARGUMENT_WIRE_ERROR)
      return
    }
    let params: unknown
    try {
      params = method.parse(raw)
    } catch (err) {
      callback(toWireError(err, 'gorilla'))
      return
    }
    ctx.handlerRan = true
    let out: unknown
    try {
      out = method.handle(params, ctx.call)
    } catch (err) {
      fail(callback, err)
      return
    }
    if (isThenable(out)) {
      out.then(
        (result) => callback(null, result),
        (err: unknown) => fail(callback, err),
      )
    } else {
      callback(null, out)
    }
  }
}

/** `admin_startCPUProfiler` -> `admin.startCPUProfiler`; names that already have a dot, or no '_', stay. */
const dotted = (name: string): string => {
  const u = name.indexOf('_')
  return u <= 0 || name.includes('.') ? name : `${name.slice(0, u)}.${name.slice(u + 1)}`
}

export function createGorillaServer(services: readonly RpcService[], opts: GorillaServerOptions = {}): jayson.Server {
  /** service name -> Go-style method name -> jayson method */
  const table = new Map<string, Map<string, jayson.Method>>()
  for (const service of services) {
    if (table.has(service.name)) throw new Error(`duplicate JSON-RPC service: ${service.name}`)
    const methods = new Map<string, jayson.Method>()
    for (const [methodName, method] of Object.entries(service.methods)) {
      const handler = handlerOf(`${service.name}.${methodName}`, method, opts.onError)
      methods.set(methodName, new jayson.Method(handler as jayson.MethodHandlerContext, { useContext: true }))
    }
    table.set(service.name, methods)
  }
  /** requested name -> method, for names that resolved (a caller cannot grow it with made-up names) */
  const resolved = new Map<string, jayson.Method>()
  const router = (requested: string): jayson.Method => {
    const known = resolved.get(requested)
    if (known !== undefined) return known
    const lookup = resolveMethod(opts.underscoreNames ? dotted(requested) : requested, table)
    if (!lookup.ok) {
      const error = serverError(lookup.message)
      const unknown: Handler = (_params, _ctx, callback) => callback(error)
      return new jayson.Method(unknown as jayson.MethodHandlerContext, { useContext: true })
    }
    resolved.set(requested, lookup.method)
    return lookup.method
  }
  return new jayson.Server({}, { useContext: true, router })
}
