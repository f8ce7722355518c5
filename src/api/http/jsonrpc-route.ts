/**
 * Serving a JSON-RPC route, in the reference's order: not ready (503) -> not POST (405) -> Content-Type
 * (415) -> body (capped: 413) -> the endpoint. Every JSON-RPC outcome is HTTP 200; an empty body answers
 * a notification. A handler that outlives the write deadline gets its connection closed, as Go's
 * WriteTimeout does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Deadlines } from '../../runtime/deadlines.js'
import { readBody } from './body.js'
import { httpError, rpcError } from './plain.js'
import type { JsonRpcRoute } from './router.js'
import { writeAtTurnEnd } from './turn-writes.js'

export interface JsonRpcServeOptions {
  maxBodyBytes: number
  /** the write deadline of each request (the server's, src/runtime/deadlines.ts) */
  deadlines: Deadlines<ServerResponse>
  log?: { debug(msg: string, fields?: object): void; warn(msg: string, fields?: object): void } | undefined
}

const JSON_TYPE = 'application/json; charset=utf-8'
export const NOT_BOOTSTRAPPED = 'API call rejected because chain is not done bootstrapping'

/** gorilla/rpc: drop everything from the first ';', lower-case, no trimming. */
function contentTypeOf(req: IncomingMessage): string {
  const raw = req.headers['content-type'] ?? ''
  const semi = raw.indexOf(';')
  return semi === -1 ? raw : raw.slice(0, semi)
}

/** Serves `req`; headers the server owes the answer (node-id, Vary) go out with its head (response.ts). */
export function serveJsonRpc(
  req: IncomingMessage,
  res: ServerResponse,
  route: JsonRpcRoute,
  opts: JsonRpcServeOptions,
) {
  if (route.ready !== undefined && !route.ready()) return httpError(res, 503, NOT_BOOTSTRAPPED)
  if (req.method === 'GET' && route.get !== undefined) return route.get(req, res)
  if (req.method !== 'POST') return rpcError(res, 405, `rpc: POST method required, received ${req.method}`)
  const contentType = contentTypeOf(req)
  if (contentType.toLowerCase() !== 'application/json')
    return rpcError(res, 415, `rpc: unrecognized Content-Type: ${contentType}`)
  readBody(req, route.maxBodyBytes ?? opts.maxBodyBytes, (outcome) => {
    if (!outcome.ok) {
      if (outcome.reason === 'aborted') return
      res.setHeader('Connection', 'close')
      return httpError(res, 413, 'http: request body too large')
    }
    const deadlines = opts.deadlines
    deadlines.add(res)
    route.endpoint.respondCb(
      outcome.body,
      { remoteAddress: req.socket.remoteAddress ?? '' },
      (reply) => {
        deadlines.delete(res)
        if (res.destroyed) return
        // one writeHead with the whole head; Content-Length framing as Go's net/http uses for a one-piece body
        const nosniff = reply.handlerRan ? { 'X-Content-Type-Options': 'nosniff' } : undefined
        if (reply.body === undefined) {
          writeAtTurnEnd(res, 200, { ...nosniff, 'Content-Length': 0 }, '')
        } else {
          const body = Buffer.from(reply.body, 'utf8')
          writeAtTurnEnd(res, 200, { ...nosniff, 'Content-Type': JSON_TYPE, 'Content-Length': body.length }, body)
        }
      },
      (err: unknown) => {
        deadlines.delete(res)
        opts.log?.warn('JSON-RPC endpoint failed', { url: req.url, error: String(err) })
        if (res.headersSent || res.destroyed) return
        httpError(res, 500, 'internal error')
      },
    )
  })
}
