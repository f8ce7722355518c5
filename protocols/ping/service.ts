/**
 * `/firn/<networkId>/ping/2`: Ping{uptime} -> Pong{}. `uptime` is the sender's measurement of the receiver's
 * primary-network uptime in whole percent; over 100 the receiver drops the peer (its handler decides).
 */
import { type Ping, PingMessage, type Pong } from '../messages/p2p.js'
import { type ExchangeService, type ExchangeSpec, exchangeService, protocolId } from '../service/exchange.js'

export const PING_PROTOCOL_NAME = 'ping'
export const MAX_UPTIME_PERCENT = 100
export const pingProtocol = (networkId: number): string => protocolId(networkId, PING_PROTOCOL_NAME)

export const pingSpec: ExchangeSpec<PingMessage, Ping, Pong> = {
  name: PING_PROTOCOL_NAME,
  codec: PingMessage,
  requestOf: (m) => m.ping,
  responseOf: (m) => m.pong,
  wrapRequest: (ping, requestId, deadlineMs) => ({ requestId, deadlineMs, ping }),
  wrapResponse: (pong, requestId) => ({ requestId, deadlineMs: 0n, pong }),
}

export type PingService = ExchangeService<PingMessage, Ping, Pong>

export const pingService = exchangeService(pingSpec)
