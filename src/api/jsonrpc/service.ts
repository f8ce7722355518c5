/**
 * A node-API JSON-RPC endpoint (/ext/info, /ext/admin, a chain's /admin): gorilla/rpc v2 json2 as avalanchego
 * wraps it (reference/node-api.md section 2). jayson dispatches every call (gorilla-server.ts: method lookup by
 * the reference's name rules, params parsing, the handler); around `server.call` Firn keeps what jayson answers
 * differently: Go-exact decoding and its error texts, the `jsonrpc` version check, params normalisation, and
 * the response text with the caller's raw `id` echoed (the id jayson carries is that raw text).
 */
import type jayson from 'jayson'
import type { RpcCallObserver } from '../../rpc/call-observer.js'
import { normaliseParams } from '../../rpc/params.js'
import type { CallInfo, RpcService } from '../../rpc/service.js'
import { ErrorCode } from '../../runtime/errors.js'
import { type DecodedRequest, decodeRequest, echoRequest } from './decode.js'
import { toWireError } from './errors.js'
import { createGorillaServer, type GorillaContext, type GorillaServerOptions } from './gorilla-server.js'
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

export interface JsonRpcEndpointOptions extends GorillaServerOptions {
  /** told of every call answered (the node's metrics); none when absent */
  observer?: RpcCallObserver | undefined
}

const INVALID_VERSION: JsonRpcErrorObject = {
  code: ErrorCode.invalidRequest,
  message: 'jsonrpc must be 2.0',
  data: null,
}

/** The request jayson sees: the method as requested, Firn's normalised params, the raw id text (undefined: a notification). */
interface JaysonRequest {
  jsonrpc: '2.0'
  method: string
  params: Record<string, unknown> | undefined
  id: string | undefined
}

export function createJsonRpcEndpoint(services: RpcService[], opts: JsonRpcEndpointOptions = {}): JsonRpcEndpoint {
  const server = createGorillaServer(services, opts)
  const observer = opts.observer

  /** `reply` answered, `ok` without an error object; the observer hears of it first */
  type Done = (reply: JsonRpcReply, ok: boolean, method: string | undefined) => void

  /** jayson's answer -> the reply text: its error object as is, or the result (an unencodable one is an error). */
  const answer =
    (request: DecodedRequest, ctx: GorillaContext, done: Done) =>
    (err?: jayson.JSONRPCResponseWithError | null, response?: jayson.JSONRPCResponseWithResult): void => {
      // a notification: jayson ran the method and answers nothing
      if (request.id === undefined) {
        done({ body: undefined, handlerRan: ctx.handlerRan }, !err, ctx.method)
        return
      }
      if (err) {
        const e = err.error as Partial<JsonRpcErrorObject>
        const error = { code: e.code ?? ErrorCode.internal, message: e.message ?? '', data: e.data ?? null }
        done({ body: errorBody(error, request.id), handlerRan: ctx.handlerRan }, false, ctx.method)
        return
      }
      let body: string
      let ok = true
      try {
        // the id jayson echoes is the raw id text it was given
        body = resultBody(response?.result, response?.id as string | undefined)
      } catch (encodeErr) {
        // a result JSON cannot express (BigInt, cycle): a programming error, reported, never thrown
        opts.onError?.(ctx.method ?? request.method, encodeErr)
        body = errorBody(toWireError(encodeErr, 'gorilla'), request.id)
        ok = false
      }
      done({ body, handlerRan: ctx.handlerRan }, ok, ctx.method)
    }

  const dispatch = (body: Buffer | string, call: CallInfo, answered: (reply: JsonRpcReply) => void): void => {
    const startMs = observer === undefined ? 0 : performance.now()
    const done: Done =
      observer === undefined
        ? answered
        : (reply, ok, method) => {
            observer.called(method, ok, startMs)
            answered(reply)
          }
    const decoded = decodeRequest(body)
    const request = decoded.request
    if (!decoded.ok) {
      // parse errors are answered even without an id
      const error = { code: ErrorCode.parse, message: decoded.message, data: null }
      done({ body: errorBody(error, request.id, echoRequest(request)), handlerRan: false }, false, undefined)
      return
    }
    if (request.jsonrpc !== '2.0') {
      const body = request.id === undefined ? undefined : errorBody(INVALID_VERSION, request.id, echoRequest(request))
      done({ body, handlerRan: false }, false, undefined)
      return
    }
    // params the reference cannot decode are its argument error, answered once the name has resolved
    let params: Record<string, unknown> | undefined
    let badParams = false
    try {
      params = normaliseParams(request.params === undefined ? undefined : JSON.parse(request.params))
    } catch {
      badParams = true
    }
    const ctx: GorillaContext = { call, badParams, handlerRan: false, method: undefined }
    const jaysonRequest: JaysonRequest = { jsonrpc: '2.0', method: request.method, params, id: request.id }
    server.call(jaysonRequest as jayson.JSONRPCRequestLike, ctx, answer(request, ctx, done))
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
