/**
 * `/ext/bc/C/ws`: the same methods over WebSocket (coreth `WebsocketHandlerWithDuration` with origins `*`).
 * The handshake is checked the way gorilla/websocket does, then `ws` (noServer) takes the socket: no
 * compression, no subprotocol, no UTF-8 check (gorilla has none), a 32 MiB read limit per message.
 * A plain request to the route is gorilla's 400.
 * Firn's caps (coreth has none): open connections in all (503) and per client IP (429), and subscriptions over
 * all of the route's connections in all and per client IP (the eth_subscribe error says which cap).
 */
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer } from 'ws'
import { ClientQuota, clientKey, type QuotaRefusal } from '../../rpc/client-quota.js'
import { httpError, socketError } from '../http/plain.js'
import type { RawRoute } from '../http/router.js'
import { createDispatcher } from './dispatch.js'
import { ResultCache } from './encode.js'
import type { EthWsOptions } from './types.js'
import { WsConnection } from './ws-connection.js'
import { WsCpuLimiter } from './ws-cpu-limiter.js'
import { checkHandshake } from './ws-handshake.js'

export interface EthWsRoute extends RawRoute {
  /** open connections */
  readonly connections: number
  /** Drops every connection (their subscriptions end). */
  close(): void
}

export const DEFAULT_WS_READ_LIMIT = 32 * 1024 * 1024
const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 405: 'Method Not Allowed' }

/** The subscription caps' texts (geth has none). */
export const subscriptionRefusal = (refusal: QuotaRefusal, quota: ClientQuota): string =>
  refusal === 'client'
    ? `too many subscriptions from this client: the limit is ${quota.perClient} per IP address (ws-max-subscriptions-per-ip)`
    : `too many subscriptions on this node: the limit is ${quota.max} (ws-max-subscriptions)`

export function createEthWsRoute(opts: EthWsOptions): EthWsRoute {
  const dispatcher = createDispatcher(opts)
  const wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    maxPayload: opts.readLimit ?? DEFAULT_WS_READ_LIMIT,
    perMessageDeflate: false,
    skipUTF8Validation: true,
    handleProtocols: () => false,
  })
  const open = new Set<WsConnection>()
  let nextId = 1
  const connections = new ClientQuota(opts.wsMaxConnections ?? 0, opts.wsMaxConnectionsPerIp ?? 0)
  const subscriptions = new ClientQuota(opts.wsMaxSubscriptions ?? 0, opts.wsMaxSubscriptionsPerIp ?? 0)
  const apiMs = opts.apiMaxDurationMs ?? 0
  const results = new ResultCache()
  const cpuSet = (opts.wsCpuRefillRateMs ?? 0) > 0 || (opts.wsCpuMaxStoredMs ?? 0) > 0
  if (cpuSet && WsCpuLimiter.create(opts.wsCpuRefillRateMs ?? 0, opts.wsCpuMaxStoredMs ?? 0, apiMs) === undefined) {
    opts.log?.warn(
      'ws-cpu-refill-rate and ws-cpu-max-stored have no effect: they need ws-cpu-refill-rate > 0, api-max-duration > 0 and ws-cpu-max-stored >= api-max-duration',
    )
  }

  const accept = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const client = clientKey(req.socket.remoteAddress)
    const refused = connections.take(client)
    if (refused !== undefined) {
      const [status, text] =
        refused === 'client'
          ? [
              429,
              `too many WebSocket connections from ${client}: the limit is ${connections.perClient} per IP address (ws-max-connections-per-ip)`,
            ]
          : [503, `too many WebSocket connections: the limit is ${connections.max} (ws-max-connections)`]
      opts.log?.debug('WebSocket connection refused', { remote: client, reason: text })
      socketError(socket, status, text, {})
      return
    }
    const rate = opts.rateLimiter
    const quota = {
      take: () => {
        const r = subscriptions.take(client)
        return r === undefined ? undefined : subscriptionRefusal(r, subscriptions)
      },
      release: () => subscriptions.release(client),
    }
    // a socket that fails before the upgrade completes gives its slot back
    let released = false
    const release = (): void => {
      if (released) return
      released = true
      connections.release(client)
    }
    socket.once('close', release)
    wss.handleUpgrade(req, socket, head, (ws) => {
      const conn = new WsConnection(ws, {
        id: nextId++,
        remoteAddress: req.socket.remoteAddress,
        dispatcher,
        timeoutMs: opts.apiMaxDurationMs ?? 0,
        pingIntervalMs: opts.pingIntervalMs ?? 30_000,
        pongTimeoutMs: opts.pongTimeoutMs ?? 30_000,
        maxSubscriptions: opts.maxSubscriptions ?? 1000,
        maxQueuedBytes: opts.maxQueuedBytes ?? 16 * 1024 * 1024,
        maxPendingCalls: opts.maxPendingCalls ?? 1000,
        rateLimit: rate === undefined || rate.rate <= 0 ? undefined : () => rate.take(client),
        cpu: WsCpuLimiter.create(opts.wsCpuRefillRateMs ?? 0, opts.wsCpuMaxStoredMs ?? 0, apiMs),
        subscriptionQuota: quota,
        results,
        socket: 'cork' in socket ? (socket as Duplex & { cork(): void; uncork(): void }) : undefined,
        log: opts.log,
        onClose: () => {
          open.delete(conn)
          release()
        },
      })
      open.add(conn)
    })
  }

  return {
    kind: 'raw',
    get connections() {
      return open.size
    },
    handle(req, res) {
      const rejection = checkHandshake(req) ?? { status: 400, reason: 'not an upgrade request' }
      opts.log?.debug('WebSocket upgrade failed', { error: rejection.reason })
      res.setHeader('Sec-Websocket-Version', '13')
      httpError(res, rejection.status, STATUS_TEXT[rejection.status] ?? 'Bad Request')
    },
    upgrade(req, socket, head) {
      const rejection = checkHandshake(req)
      if (rejection === undefined) return accept(req, socket, head)
      opts.log?.debug('WebSocket upgrade failed', { error: rejection.reason })
      socketError(socket, rejection.status, STATUS_TEXT[rejection.status] ?? 'Bad Request', {
        'Sec-Websocket-Version': '13',
      })
    },
    close() {
      for (const conn of open) conn.close()
    },
  }
}
