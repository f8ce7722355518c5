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

function setPending(res: ServerResponse, pending: readonly string[]): void {
  for (let i = 0; i < pending.length; i += 2) res.setHeader(pending[i]!, pending[i + 1]!)
}

/** gorilla/rpc: drop everything from the first ';', lower-case, no trimming. */
function contentTypeOf(req: IncomingMessage): string {
  const raw = req.headers['content-type'] ?? ''
  const semi = raw.indexOf(';')
  return semi === -1 ? raw : raw.slice(0, semi)
}

/**
 * `pending` are header name/value pairs the caller has not set yet (node-id, Vary): the success path writes
 * them with the rest in one `writeHead` call, the error paths set them first.
 */
export function serveJsonRpc(
  req: IncomingMessage,
  res: ServerResponse,
  route: JsonRpcRoute,
  opts: JsonRpcServeOptions,
  pending: readonly string[],
) {
  if (route.ready !== undefined && !route.ready()) {
    setPending(res, pending)
    return httpError(res, 503, NOT_BOOTSTRAPPED)
  }
  if (req.method === 'GET' && route.get !== undefined) return route.get(req, res)
  if (req.method !== 'POST') return rpcError(res, 405, `rpc: POST method required, received ${req.method}`)
  const contentType = contentTypeOf(req)
  if (contentType.toLowerCase() !== 'application/json') {
    setPending(res, pending)
    return rpcError(res, 415, `rpc: unrecognized Content-Type: ${contentType}`)
  }
  readBody(req, route.maxBodyBytes ?? opts.maxBodyBytes, (outcome) => {
    if (!outcome.ok) {
      if (outcome.reason === 'aborted') return
      res.setHeader('Connection', 'close')
      setPending(res, pending)
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
        // one writeHead with a flat list; Content-Length framing as Go's net/http uses for a one-piece body
        const head = pending.slice()
        if (reply.handlerRan) head.push('X-Content-Type-Options', 'nosniff')
        if (reply.body === undefined) {
          head.push('Content-Length', '0')
          writeAtTurnEnd(res, 200, head, '')
        } else {
          const body = Buffer.from(reply.body, 'utf8')
          head.push('Content-Type', JSON_TYPE, 'Content-Length', String(body.length))
          writeAtTurnEnd(res, 200, head, body)
        }
      },
      (err: unknown) => {
        deadlines.delete(res)
        opts.log?.warn('JSON-RPC endpoint failed', { url: req.url, error: String(err) })
        if (res.headersSent || res.destroyed) return
        setPending(res, pending)
        httpError(res, 500, 'internal error')
      },
    )
  })
}
