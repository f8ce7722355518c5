/**
 * The node's HTTP server (reference/node-api.md 1.1), one `node:http` server (`node:https` with `tls`, TLS 1.2 at
 * least, as the reference's `--http-tls-enabled`):
 *   node-id header -> CORS (preflight answered here) -> Host filter (403) -> path: 400 undecodable,
 *   301 non-canonical, 404 unknown -> the origin guard -> the route (JSON-RPC or raw). 'upgrade' requests go the
 *   same way to a raw route's `upgrade`; a page of an untrusted origin never gets a WebSocket (403).
 * The origin guard (origin-policy.ts): a request with an `Origin` outside `trustedOrigins` to a route that refuses
 * them is a 403 (and CORS there allows only the trusted origins); a route with a twin for them is served by it.
 * Limits: body cap (default 10 MiB, 413), headers 30 s, whole request 30 s, handler/write 30 s,
 * keep-alive idle 120 s. `close()` stops accepting, lets in-flight requests finish (up to `shutdownTimeoutMs`,
 * default 5 s) and closes idle keep-alive connections; upgraded sockets are ended.
 * Per-client limits (client-limits.ts): connections in all and per IP, pipelined requests wait for the replies
 * before them, requests per second per IP (429).
 * Not implemented: the `Avalanche-Api-Route` header routing, h2c.
 */
import { createServer, type IncomingMessage, type ServerOptions, type ServerResponse } from 'node:http'
import { createServer as createTlsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { type ClientRateLimiter, clientKey } from '../../rpc/client-quota.js'
import { Deadlines } from '../../runtime/deadlines.js'
import { capConnections, type HttpClientLimits, pipelineGate, refuseOverRate, requestLimiter } from './client-limits.js'
import { createCors } from './cors.js'
import { createHostFilter } from './host-filter.js'
import { serveJsonRpc } from './jsonrpc-route.js'
import { originMatcher, originRefused, WS_ORIGIN_REFUSED } from './origin-policy.js'
import { cleanPath, escapePath, needsCleaning, parseRequestTarget } from './path.js'
import { httpError, socketError } from './plain.js'
import { FirnResponse } from './response.js'
import { type Route, Router, type RouteWrapper } from './router.js'

export interface HttpLog {
  debug(msg: string, fields?: object): void
  warn(msg: string, fields?: object): void
}

export interface HttpServerTimeouts {
  /** time to receive the request headers (Go ReadHeaderTimeout), default 30 s */
  headersMs?: number
  /** time to receive the whole request (Go ReadTimeout), default 30 s */
  requestMs?: number
  /** time a JSON-RPC handler may take before the connection is closed (Go WriteTimeout), default 30 s */
  writeMs?: number
  /** keep-alive idle time (Go IdleTimeout), default 120 s */
  idleMs?: number
}

export interface HttpServerOptions {
  host: string
  /** 0 picks a free port */
  port: number
  /** `--http-allowed-hosts`; `*` disables the Host check */
  allowedHosts: string[]
  /** `--http-allowed-origins`; `*` (or an empty list) allows every origin */
  allowedOrigins: string[]
  /** `--http-trusted-origins`: pages allowed on guarded routes and WebSockets (default: `allowedOrigins`) */
  trustedOrigins?: string[]
  /** serve HTTPS with this PEM certificate (chain) and key */
  tls?: { cert: string | Buffer; key: string | Buffer }
  /** `NodeID-...`, sent as the `node-id` header on every response */
  nodeId: string
  /** JSON-RPC body cap in bytes, default 10 MiB (routes may set their own) */
  maxBodyBytes?: number
  /** `--http-shutdown-timeout`: how long `close()` lets in-flight requests run, default 5 s */
  shutdownTimeoutMs?: number
  timeouts?: HttpServerTimeouts
  /** per-client limits; absent = the defaults of docs/operations.md without a rate limit */
  clients?: HttpClientLimits
  log?: HttpLog
  /** wraps every route added to the router (the node's API metrics) */
  wrapRoute?: RouteWrapper
}

export interface HttpApiServer {
  readonly router: Router
  /** Starts listening; resolves with the bound address (the real port when `port` was 0). */
  listen(): Promise<{ host: string; port: number }>
  /** `http(s)://host:port` of the bound address (the configured one before `listen`). */
  readonly url: string
  /** Graceful and idempotent. */
  close(): Promise<void>
  /** the per-client request rate (`--api-rate-limit`), shared with the WebSocket routes; undefined when off */
  readonly rateLimiter: ClientRateLimiter | undefined
}

export const DEFAULT_CLIENT_LIMITS: HttpClientLimits = {
  maxConnections: 4096,
  maxConnectionsPerIp: 256,
  maxPipelinedRequests: 32,
  rateLimit: 0,
}

export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024

interface PathError {
  status: number
  message: string
  location?: string
}

const FORBIDDEN: PathError = { status: 403, message: 'invalid host specified' }

export function createHttpServer(opts: HttpServerOptions): HttpApiServer {
  const t = opts.timeouts ?? {}
  const headersMs = t.headersMs ?? 30_000
  const requestMs = Math.max(t.requestMs ?? 30_000, headersMs)
  const closeMs = opts.shutdownTimeoutMs ?? 5_000
  const router = new Router(opts.wrapRoute)
  const cors = createCors(opts.allowedOrigins)
  const trustedCors = createCors(opts.trustedOrigins ?? opts.allowedOrigins)
  const trusted = originMatcher(opts.trustedOrigins ?? opts.allowedOrigins)
  const hostAllowed = createHostFilter(opts.allowedHosts)
  const deadlines = new Deadlines<ServerResponse>(t.writeMs ?? 30_000, (res) => {
    opts.log?.warn('JSON-RPC call exceeded the write deadline; closing the connection', { url: res.req?.url })
    res.destroy()
  })
  const rpcOptions = { maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, deadlines, log: opts.log }
  const nodeId = opts.nodeId
  const upgraded = new Set<Duplex>()
  const clients = opts.clients ?? DEFAULT_CLIENT_LIMITS
  const gate = pipelineGate(clients.maxPipelinedRequests, opts.log)
  const rateLimiter = requestLimiter(clients)

  /** Path checks shared by requests and upgrades: a route, or the error to answer with. */
  const route = (url: string | undefined): Route | PathError => {
    const target = parseRequestTarget(url ?? '/')
    if (target === undefined) return { status: 400, message: '400 Bad Request' }
    if (needsCleaning(target.path)) {
      const cleaned = cleanPath(target.path)
      if (cleaned !== target.path) {
        const location = escapePath(cleaned) + (target.query === '' ? '' : '?' + target.query)
        return { status: 301, message: '', location }
      }
    }
    return router.resolve(target.path) ?? { status: 404, message: '404 page not found' }
  }

  // A request without Origin owes node-id and `Vary: Origin` to its answer's head (response.ts): the hot path (a
  // JSON-RPC POST) writes them in its single writeHead instead of setting them up front
  const baseHeaders: Readonly<Record<string, string>> = { 'Node-Id': nodeId, Vary: 'Origin' }
  /** The route that serves a request from `origin` (a page's), or the refusal. */
  const guard = (target: Route, origin: string | undefined): Route | PathError => {
    const other = target.untrustedOrigins
    if (other === undefined || origin === undefined || trusted(origin)) return target
    return other === 'refuse' ? { status: 403, message: originRefused(origin) } : other
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    // a pipelined request waits until the replies before it are sent (client-limits.ts)
    if (res.socket === null) {
      gate(req, res, onRequest)
      return
    }
    if (rateLimiter !== undefined && refuseOverRate(req, res, rateLimiter)) return
    const headers = req.headers
    const plain = req.method === 'POST' && headers.origin === undefined
    let target = hostAllowed(headers.host) ? route(req.url) : FORBIDDEN
    if (!plain) {
      res.setHeader('Node-Id', nodeId)
      const guarded = !('status' in target) && target.untrustedOrigins === 'refuse'
      if ((guarded ? trustedCors : cors).apply(req, res)) return
      if (!('status' in target)) target = guard(target, headers.origin)
    }
    if (plain) (res as FirnResponse).owe(baseHeaders)
    if ('status' in target) {
      if (target.location === undefined) httpError(res, target.status, target.message)
      else {
        res.writeHead(301, { Location: target.location, 'Content-Length': '0' })
        res.end()
      }
    } else if (target.kind === 'jsonrpc') {
      serveJsonRpc(req, res, target, rpcOptions)
    } else {
      try {
        target.handle(req, res)
      } catch (err) {
        opts.log?.warn('HTTP handler failed', { url: req.url, error: String(err) })
        if (!res.headersSent && !res.destroyed) httpError(res, 500, 'internal error')
        else res.destroy()
      }
    }
  }

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy())
    const headers: Record<string, string> = { 'Node-Id': nodeId }
    if (rateLimiter !== undefined && rateLimiter.take(clientKey(req.socket.remoteAddress)) > 0) {
      socketError(socket, 429, `rate limit exceeded: ${rateLimiter.rate} requests per second per IP address`, headers)
      return
    }
    const target = hostAllowed(req.headers.host) ? route(req.url) : FORBIDDEN
    if ('status' in target) {
      if (target.location !== undefined) headers['Location'] = target.location
      socketError(socket, target.status, target.message, headers)
    } else if (target.kind === 'jsonrpc') {
      socketError(socket, 405, `rpc: POST method required, received ${req.method}`, headers)
    } else if (target.upgrade === undefined) {
      socketError(socket, 400, 'upgrade not supported', headers)
    } else if (req.headers.origin !== undefined && !trusted(req.headers.origin)) {
      opts.log?.debug('WebSocket upgrade refused', { url: req.url, origin: req.headers.origin })
      socketError(socket, 403, WS_ORIGIN_REFUSED, headers)
    } else {
      upgraded.add(socket)
      socket.once('close', () => upgraded.delete(socket))
      try {
        target.upgrade(req, socket, head)
      } catch (err) {
        opts.log?.warn('HTTP upgrade handler failed', { url: req.url, error: String(err) })
        socket.destroy()
      }
    }
  }

  const serverOptions: ServerOptions<typeof IncomingMessage, typeof FirnResponse> = {
    ServerResponse: FirnResponse,
    headersTimeout: headersMs,
    requestTimeout: requestMs,
    keepAliveTimeout: t.idleMs ?? 120_000,
    // how often Node enforces the two timeouts above
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersMs / 4))),
  }
  const server =
    opts.tls === undefined
      ? createServer(serverOptions, onRequest)
      : createTlsServer({ ...serverOptions, cert: opts.tls.cert, key: opts.tls.key, minVersion: 'TLSv1.2' }, onRequest)
  server.on('upgrade', onUpgrade)
  capConnections(server, clients, opts.log)
  // after listen, errors (EMFILE on accept ...) are logged, never thrown
  server.on('error', (err: Error) => {
    if (server.listening) opts.log?.warn('HTTP server error', { error: String(err) })
  })
  let bound: { host: string; port: number } | undefined
  let closing: Promise<void> | undefined

  const scheme = opts.tls === undefined ? 'http' : 'https'
  const formatUrl = (host: string, port: number): string =>
    `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`

  return {
    router,
    rateLimiter,
    get url() {
      return bound ? formatUrl(bound.host, bound.port) : formatUrl(opts.host, opts.port)
    },
    listen() {
      return new Promise((resolve, reject) => {
        const onError = (err: Error): void => reject(err)
        server.once('error', onError)
        server.listen({ host: opts.host, port: opts.port }, () => {
          server.removeListener('error', onError)
          const address = server.address() as AddressInfo
          bound = { host: address.address, port: address.port }
          resolve(bound)
        })
      })
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        if (!server.listening) return resolve()
        // requests in flight finish; their connections are closed as soon as they are idle
        const sweep = setInterval(() => server.closeIdleConnections(), 25)
        const deadline = setTimeout(() => {
          server.closeAllConnections()
          for (const socket of upgraded) socket.destroy()
        }, closeMs)
        server.close(() => {
          clearInterval(sweep)
          clearTimeout(deadline)
          deadlines.close()
          resolve()
        })
        for (const socket of upgraded) socket.end()
      })
      return closing
    },
  }
}
