/**
 * `/ext/health` as the reference serves it (api/health/handler.go + service.go): JSON-RPC `health.health`,
 * `health.readiness`, `health.liveness` (params `{tags?: string[]}`) on `/ext/health`, and GET on `/ext/health`
 * (health), `/ext/health/readiness`, `/ext/health/health` and `/ext/health/liveness` (`?tag=a&tag=b`) answering the
 * same JSON with 200 when healthy and 503 when not. Every answer reads the checker's cached results.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { array, fields, str } from '../../rpc/params.js'
import { defineMethod, type RpcService } from '../../rpc/service.js'
import type { Router } from '../http/router.js'
import { createJsonRpcEndpoint, type JsonRpcEndpointOptions } from '../jsonrpc/service.js'
import type { HealthChecker, HealthNamespace } from './checker.js'

/** most tags one query may name */
export const MAX_TAGS = 64

function checkTags(tags: readonly string[] | undefined): string[] {
  const list = tags ?? []
  if (list.length > MAX_TAGS) throw new Error(`too many tags: ${list.length} > ${MAX_TAGS}`)
  return [...list]
}

export function healthService(checker: HealthChecker): RpcService {
  const args = fields({ tags: array(str) })
  const method = (ns: HealthNamespace) => defineMethod(args, ({ tags }) => checker.results(ns, checkTags(tags)))
  return {
    name: 'health',
    methods: { Readiness: method('readiness'), Health: method('health'), Liveness: method('liveness') },
  }
}

/** The GET handler of one namespace: any method is answered, as the reference's NewGetHandler does. */
export function healthGetHandler(checker: HealthChecker, ns: HealthNamespace) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    let reply: ReturnType<HealthChecker['results']>
    try {
      const tags = new URL(req.url ?? '/', 'http://localhost').searchParams.getAll('tag')
      reply = checker.results(ns, checkTags(tags))
    } catch (err) {
      const body = Buffer.from(`${(err as Error).message}\n`)
      res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': body.length })
      res.end(body)
      return
    }
    // Go's json.Encoder ends the document with a newline
    const body = Buffer.from(`${JSON.stringify(reply)}\n`)
    res.writeHead(reply.healthy ? 200 : 503, { 'Content-Type': 'application/json', 'Content-Length': body.length })
    res.end(body)
  }
}

/** Mounts `/ext/health` (JSON-RPC, and GET for health) and its three GET paths. */
export function mountHealthRoutes(router: Router, checker: HealthChecker, opts: JsonRpcEndpointOptions = {}): void {
  router.addRoute('health', '', {
    kind: 'jsonrpc',
    endpoint: createJsonRpcEndpoint([healthService(checker)], opts),
    get: healthGetHandler(checker, 'health'),
  })
  for (const ns of ['readiness', 'health', 'liveness'] as const)
    router.addRoute('health', `/${ns}`, { kind: 'raw', handle: healthGetHandler(checker, ns) })
}
