/**
 * What one client (a remote IP address, src/rpc/client-quota.ts) may take of the HTTP server, Firn's limits
 * (the reference has none of them):
 * - TCP connections in all (`--http-max-connections`) and per client (`--http-max-connections-per-ip`): a
 *   connection over a cap is closed at once, before a byte is read (one log line per cap and minute);
 * - pipelined requests: Node parses every request a connection sends and queues their responses; a request is
 *   handled only when its response owns the socket, i.e. when every earlier reply on the connection has been
 *   handed to the kernel, so a client that sends requests and never reads holds at most one reply in memory.
 *   At most `--http-max-pipelined-requests` wait per connection; one more closes it;
 * - requests per second per client (`--api-rate-limit`, token bucket of one second's worth): an HTTP request
 *   over it is answered 429 with `Retry-After`, a WebSocket message waits (ws-connection.ts).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { ClientQuota, ClientRateLimiter, clientKey } from '../../rpc/client-quota.js'

export interface HttpClientLimits {
  /** TCP connections on the HTTP port in all, 0 = no cap */
  maxConnections: number
  /** TCP connections per client IP, 0 = no cap */
  maxConnectionsPerIp: number
  /** requests waiting behind an unsent reply on one connection */
  maxPipelinedRequests: number
  /** requests per second per client IP, 0 = no limit */
  rateLimit: number
}

export interface ClientLimitsLog {
  warn(msg: string, fields?: object): void
}

const LOG_EVERY_MS = 60_000

/** Counts every accepted socket against the caps; closes the ones over them. */
export function capConnections(
  server: Server,
  limits: HttpClientLimits,
  log: ClientLimitsLog | undefined,
): ClientQuota {
  const quota = new ClientQuota(limits.maxConnections, limits.maxConnectionsPerIp)
  let lastLog = Number.NEGATIVE_INFINITY
  server.on('connection', (socket: Socket) => {
    const client = clientKey(socket.remoteAddress)
    const refused = quota.take(client)
    if (refused !== undefined) {
      const now = performance.now()
      if (now - lastLog > LOG_EVERY_MS) {
        lastLog = now
        log?.warn('HTTP connection refused: too many connections', {
          remote: client,
          cap: refused === 'client' ? 'http-max-connections-per-ip' : 'http-max-connections',
          limit: refused === 'client' ? quota.perClient : quota.max,
        })
      }
      socket.destroy()
      return
    }
    socket.once('close', () => quota.release(client))
  })
  return quota
}

/**
 * `run(req, res)` now, or once the response owns the socket (the replies before it are sent); closes the
 * connection when more than `maxWaiting` requests wait on it.
 */
export function pipelineGate(
  maxWaiting: number,
  log: ClientLimitsLog | undefined,
): (req: IncomingMessage, res: ServerResponse, run: (req: IncomingMessage, res: ServerResponse) => void) => void {
  const waiting = new WeakMap<Socket, number>()
  return (req, res, run) => {
    if (res.socket !== null) {
      run(req, res)
      return
    }
    const socket = req.socket
    const n = (waiting.get(socket) ?? 0) + 1
    if (maxWaiting > 0 && n > maxWaiting) {
      log?.warn('HTTP connection closed: too many pipelined requests waiting', {
        remote: clientKey(socket.remoteAddress),
        limit: maxWaiting,
      })
      socket.destroy()
      return
    }
    waiting.set(socket, n)
    res.once('socket', () => {
      waiting.set(socket, (waiting.get(socket) ?? 1) - 1)
      run(req, res)
    })
  }
}

/** The per-client request limiter, or undefined when off. */
export const requestLimiter = (limits: HttpClientLimits): ClientRateLimiter | undefined =>
  limits.rateLimit > 0 ? new ClientRateLimiter(limits.rateLimit, limits.rateLimit) : undefined

/** Answers 429 and returns true when the request's client is over its rate. */
export function refuseOverRate(req: IncomingMessage, res: ServerResponse, limiter: ClientRateLimiter): boolean {
  const client = clientKey(req.socket.remoteAddress)
  const waitMs = limiter.take(client)
  if (waitMs === 0) return false
  const body = Buffer.from(
    `rate limit exceeded: ${limiter.rate} requests per second per IP address (--api-rate-limit); retry after ${waitMs} ms\n`,
  )
  res.writeHead(429, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Retry-After': String(Math.ceil(waitMs / 1000)),
    'Content-Length': body.length,
  })
  res.end(body)
  return true
}
