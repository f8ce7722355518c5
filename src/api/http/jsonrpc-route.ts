/**
 * Serving a JSON-RPC route, in the reference's order: not ready (503) -> not POST (405) -> Content-Type
 * (415) -> body (capped: 413) -> the endpoint. Every JSON-RPC outcome is HTTP 200; an empty body answers
 * a notification. A handler that outlives the write deadline gets its connection closed, as Go's
 * WriteTimeout does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { readBody } from './body.js'
import { httpError, rpcError } from './plain.js'
import type { JsonRpcRoute } from './router.js'

export interface JsonRpcServeOptions {
  maxBodyBytes: number
  writeTimeoutMs: number
  log?: { debug(msg: string, fields?: object): void; warn(msg: string, fields?: object): void } | undefined
}

const JSON_TYPE = 'application/json; charset=utf-8'
const HEADERS_JSON = { 'Content-Type': JSON_TYPE }
const HEADERS_JSON_NOSNIFF = { 'Content-Type': JSON_TYPE, 'X-Content-Type-Options': 'nosniff' }
const HEADERS_EMPTY = { 'Content-Length': '0' }
const HEADERS_EMPTY_NOSNIFF = { 'X-Content-Type-Options': 'nosniff', 'Content-Length': '0' }

const NOT_BOOTSTRAPPED = 'API call rejected because chain is not done bootstrapping'

/** gorilla/rpc: drop everything from the first ';', lower-case, no trimming. */
function contentTypeOf(req: IncomingMessage): string {
  const raw = req.headers['content-type'] ?? ''
  const semi = raw.indexOf(';')
  return semi === -1 ? raw : raw.slice(0, semi)
}

export function serveJsonRpc(
  req: IncomingMessage,
  res: ServerResponse,
  route: JsonRpcRoute,
  opts: JsonRpcServeOptions,
) {
  if (route.ready !== undefined && !route.ready()) return httpError(res, 503, NOT_BOOTSTRAPPED)
  if (req.method !== 'POST') return rpcError(res, 405, `rpc: POST method required, received ${req.method}`)
  const contentType = contentTypeOf(req)
  if (contentType.toLowerCase() !== 'application/json') {
    return rpcError(res, 415, `rpc: unrecognized Content-Type: ${contentType}`)
  }
  readBody(req, route.maxBodyBytes ?? opts.maxBodyBytes, (outcome) => {
    if (!outcome.ok) {
      if (outcome.reason === 'aborted') return
      res.setHeader('Connection', 'close')
      return httpError(res, 413, 'http: request body too large')
    }
    const deadline = setTimeout(() => {
      opts.log?.warn('JSON-RPC call exceeded the write deadline; closing the connection', { url: req.url })
      res.destroy()
    }, opts.writeTimeoutMs)
    deadline.unref()
    route.endpoint.respond(outcome.body, { remoteAddress: req.socket.remoteAddress ?? '' }).then(
      (reply) => {
        clearTimeout(deadline)
        if (res.destroyed) return
        if (reply.body === undefined) {
          res.writeHead(200, reply.handlerRan ? HEADERS_EMPTY_NOSNIFF : HEADERS_EMPTY)
          res.end()
        } else {
          res.writeHead(200, reply.handlerRan ? HEADERS_JSON_NOSNIFF : HEADERS_JSON)
          res.end(reply.body)
        }
      },
      (err: unknown) => {
        clearTimeout(deadline)
        opts.log?.warn('JSON-RPC endpoint failed', { url: req.url, error: String(err) })
        if (!res.headersSent && !res.destroyed) httpError(res, 500, 'internal error')
      },
    )
  })
}
