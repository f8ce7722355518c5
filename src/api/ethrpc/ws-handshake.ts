/**
 * gorilla/websocket's `Upgrader.Upgrade` checks, in its order, with its answers: the status text as the
 * body (Go's http.Error) and `Sec-Websocket-Version: 13`. The reason is only logged, as gorilla returns it
 * to the caller. Any Origin is accepted (coreth passes `*`).
 */
import type { IncomingMessage } from 'node:http'

export interface HandshakeRejection {
  status: number
  reason: string
}

const BAD = 'websocket: the client is not using the websocket protocol: '

/** gorilla's `tokenListContainsValue`: a comma-separated header holds `value` (case-insensitive). */
function hasToken(header: string | string[] | undefined, value: string): boolean {
  if (header === undefined) return false
  const values = Array.isArray(header) ? header : [header]
  return values.some((v) => v.split(',').some((t) => t.trim().toLowerCase() === value))
}

const CHALLENGE_KEY = /^[A-Za-z0-9+/]{22}==$/

/** undefined when the request is a WebSocket handshake gorilla accepts. */
export function checkHandshake(req: IncomingMessage): HandshakeRejection | undefined {
  const h = req.headers
  if (!hasToken(h.connection, 'upgrade')) {
    return { status: 400, reason: BAD + "'upgrade' token not found in 'Connection' header" }
  }
  if (!hasToken(h.upgrade, 'websocket'))
    return { status: 400, reason: BAD + "'websocket' token not found in 'Upgrade' header" }
  if (req.method !== 'GET') return { status: 405, reason: BAD + 'request method is not GET' }
  if (!hasToken(h['sec-websocket-version'], '13')) {
    return { status: 400, reason: "websocket: unsupported version: 13 not found in 'Sec-Websocket-Version' header" }
  }
  if (!CHALLENGE_KEY.test(h['sec-websocket-key'] ?? '')) {
    return {
      status: 400,
      reason:
        "websocket: not a websocket handshake: 'Sec-WebSocket-Key' header must be Base64 encoded value of 16-byte in length",
    }
  }
  return undefined
}
