/**
 * `/ext/bc/C/ws`: the same methods over WebSocket (coreth `WebsocketHandlerWithDuration` with origins `*`).
 * The handshake is checked the way gorilla/websocket does, then `ws` (noServer) takes the socket: no
 * compression, no subprotocol, no UTF-8 check (gorilla has none), a 32 MiB read limit per message.
 * A plain request to the route is gorilla's 400.
 */
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer } from 'ws'
import { httpError, socketError } from '../http/plain.js'
import type { RawRoute } from '../http/router.js'
import { createDispatcher } from './dispatch.js'
import type { EthWsOptions } from './types.js'
import { WsConnection } from './ws-connection.js'
import { checkHandshake } from './ws-handshake.js'

export interface EthWsRoute extends RawRoute {
  /** open connections */
  readonly connections: number
  /** Drops every connection (their subscriptions end). */
  close(): void
}

export const DEFAULT_WS_READ_LIMIT = 32 * 1024 * 1024
const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 405: 'Method Not Allowed' }

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

  const accept = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
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
        log: opts.log,
        onClose: () => open.delete(conn),
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
