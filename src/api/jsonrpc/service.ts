/**
 * Services and the JSON-RPC endpoint. The endpoint reproduces gorilla/rpc v2 json2 as wrapped by
 * avalanchego (reference/node-api.md section 2): decode -> `jsonrpc` must be "2.0" -> method name rules
 * and lookup -> params normalisation -> the method's own param parser -> handler, which runs through a
 * jayson `Server` (built once per endpoint). The caller's raw `id` is echoed; jayson sees a synthetic one.
 */
import jayson from 'jayson'
import { ARGUMENT_ERROR, normaliseParams } from '../../rpc/params.js'
import type { CallInfo, RpcMethod, RpcService } from '../../rpc/service.js'
import { ErrorCode } from '../../runtime/errors.js'
import { type DecodedRequest, decodeRequest, echoRequest } from './decode.js'
import { toWireError } from './errors.js'
import { type MethodLookup, resolveMethod } from './method-name.js'
import { errorBody, type JsonRpcErrorObject, resultBody } from './response.js'

/** One reply: `body` undefined means an empty HTTP body (a notification); `handlerRan` drives `nosniff`. */
export interface JsonRpcReply {
  body: string | undefined
  handlerRan: boolean
}

export interface JsonRpcEndpoint {
  /** The response body, or undefined for an empty body (notification). */
  handle(body: Buffer | string, call: CallInfo): Promise<string | undefined>
  /** The same, plus whether the method's handler ran (the HTTP layer adds `X-Content-Type-Options` then). */
  respond(body: Buffer | string, call: CallInfo): Promise<JsonRpcReply>
  /**
   * `respond` without promises, for the HTTP hot path: `done` runs exactly once, synchronously when the method's
   * handler is synchronous. `fail` gets an unexpected internal error (the HTTP layer answers 500).
   */
  respondCb(
    body: Buffer | string,
    call: CallInfo,
    done: (reply: JsonRpcReply) => void,
    fail: (err: unknown) => void,
  ): void
}

export interface JsonRpcEndpointOptions {
  /** Called with the Go-style name (`info.GetNodeID`) for every error a handler throws or rejects with. */
  onError?: (method: string, err: unknown) => void
  /**
   * Also answer geth-style names: `admin_startCPUProfiler` is resolved as `admin.startCPUProfiler` (the chain
   * admin API answers both spellings: the reference routes the dotted one, the spec writes the other).
   */
  underscoreNames?: boolean
}

type JaysonCallback = (err: JsonRpcErrorObject | null, result?: unknown) => void

/** Per-call context handed through jayson to the method wrapper. */
interface Dispatch {
  call: CallInfo
  handlerRan: boolean
}

interface Entry {
  /** the name registered with jayson */
  key: string
}

const isThenable = (x: unknown): x is PromiseLike<unknown> =>
  typeof x === 'object' && x !== null && typeof (x as PromiseLike<unknown>).then === 'function'

/** Runs parse + handler and reports through jayson's callback with plain `{code, message, data}` errors. */
function jaysonMethod(name: string, method: RpcMethod<unknown>, opts: JsonRpcEndpointOptions) {
  const fail = (callback: JaysonCallback, err: unknown): void => {
    opts.onError?.(name, err)
    callback(toWireError(err, 'gorilla'))
  }
  return (raw: Record<string, unknown> | undefined, ctx: Dispatch, callback: JaysonCallback): void => {
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

export function createJsonRpcEndpoint(services: RpcService[], opts: JsonRpcEndpointOptions = {}): JsonRpcEndpoint {
  const table = new Map<string, Map<string, Entry>>()
  const jaysonMethods: Record<string, unknown> = {}
  for (const service of services) {
    if (table.has(service.name)) throw new Error(`duplicate JSON-RPC service: ${service.name}`)
    const methods = new Map<string, Entry>()
    for (const [methodName, method] of Object.entries(service.methods)) {
      const key = `${service.name}.${methodName}`
      methods.set(methodName, { key })
      jaysonMethods[key] = jaysonMethod(key, method as RpcMethod<unknown>, opts)
    }
    table.set(service.name, methods)
  }
  const lookups = new Map<string, MethodLookup<Entry>>()
  const server = new jayson.Server(jaysonMethods as Record<string, jayson.MethodLike>, { useContext: true })

  const reply = (request: DecodedRequest, error: JsonRpcErrorObject, handlerRan = false): JsonRpcReply => ({
    body: request.id === undefined ? undefined : errorBody(error, request.id),
    handlerRan,
  })

  const run = (
    request: DecodedRequest,
    entry: Entry,
    raw: Record<string, unknown> | undefined,
    call: CallInfo,
    resolve: (reply: JsonRpcReply) => void,
  ): void => {
    const ctx: Dispatch = { call, handlerRan: false }
    const jaysonRequest = { jsonrpc: '2.0', method: entry.key, params: raw, id: 1 }
    server.call(jaysonRequest, ctx, (err, response) => {
      if (err) {
        const e = err.error as Partial<JsonRpcErrorObject>
        resolve(
          reply(
            request,
            { code: e.code ?? ErrorCode.internal, message: e.message ?? '', data: e.data ?? null },
            ctx.handlerRan,
          ),
        )
        return
      }
      if (request.id === undefined) {
        resolve({ body: undefined, handlerRan: ctx.handlerRan })
        return
      }
      let body: string
      try {
        body = resultBody(response?.result, request.id)
      } catch (encodeErr) {
        // a result JSON cannot express (BigInt, cycle): a programming error, reported, never thrown
        opts.onError?.(entry.key, encodeErr)
        resolve(reply(request, toWireError(encodeErr, 'gorilla'), ctx.handlerRan))
        return
      }
      resolve({ body, handlerRan: ctx.handlerRan })
    })
  }

  const dispatch = (body: Buffer | string, call: CallInfo, done: (reply: JsonRpcReply) => void): void => {
    const decoded = decodeRequest(body)
    const request = decoded.request
    if (!decoded.ok) {
      // parse errors are answered even without an id
      const error = { code: ErrorCode.parse, message: decoded.message, data: null }
      done({ body: errorBody(error, request.id, echoRequest(request)), handlerRan: false })
      return
    }
    if (request.jsonrpc !== '2.0') {
      const body = request.id === undefined ? undefined : errorBody(INVALID_VERSION, request.id, echoRequest(request))
      done({ body, handlerRan: false })
      return
    }
    let lookup = lookups.get(request.method)
    if (lookup === undefined) {
      lookup = resolveMethod(opts.underscoreNames ? dotted(request.method) : request.method, table)
      // successful lookups only: a caller cannot grow the cache with made-up names
      if (lookup.ok) lookups.set(request.method, lookup)
    }
    if (!lookup.ok) {
      done(reply(request, serverError(lookup.message)))
      return
    }
    let raw: Record<string, unknown> | undefined
    try {
      raw = normaliseParams(request.params === undefined ? undefined : JSON.parse(request.params))
    } catch {
      done(reply(request, serverError(ARGUMENT_ERROR)))
      return
    }
    run(request, lookup.method, raw, call, done)
  }

  /** Never throws: an unexpected failure goes to `fail` (the HTTP layer answers 500). */
  const respondCb = (
    body: Buffer | string,
    call: CallInfo,
    done: (reply: JsonRpcReply) => void,
    fail: (err: unknown) => void,
  ): void => {
    let settled = false
    try {
      dispatch(body, call, (r) => {
        settled = true
        done(r)
      })
    } catch (err) {
      if (settled) throw err // thrown by `done` itself: the caller's error, not the endpoint's
      fail(err)
    }
  }
  const respond = (body: Buffer | string, call: CallInfo): Promise<JsonRpcReply> =>
    new Promise((resolve, reject) => respondCb(body, call, resolve, reject))

  return {
    respond,
    respondCb,
    handle: (body, call) => respond(body, call).then((r) => r.body),
  }
}

const INVALID_VERSION: JsonRpcErrorObject = {
  code: ErrorCode.invalidRequest,
  message: 'jsonrpc must be 2.0',
  data: null,
}
/** `admin_startCPUProfiler` -> `admin.startCPUProfiler`; names that already have a dot, or no '_', stay. */
const dotted = (name: string): string => {
  const u = name.indexOf('_')
  return u <= 0 || name.includes('.') ? name : `${name.slice(0, u)}.${name.slice(u + 1)}`
}

const serverError = (message: string): JsonRpcErrorObject => ({ code: ErrorCode.server, message, data: null })
