/** `/firn/<networkId>/handshake/2`: our Handshake -> the peer's PeerList (or the empty refusal). */
import { type Handshake, HandshakeMessage, type PeerList } from '../messages/p2p.js'
import { type ExchangeService, type ExchangeSpec, exchangeService, protocolId } from '../service/exchange.js'

export const HANDSHAKE_PROTOCOL_NAME = 'handshake'
export const handshakeProtocol = (networkId: number): string => protocolId(networkId, HANDSHAKE_PROTOCOL_NAME)

export const handshakeSpec: ExchangeSpec<HandshakeMessage, Handshake, PeerList> = {
  name: HANDSHAKE_PROTOCOL_NAME,
  codec: HandshakeMessage,
  requestOf: (m) => m.handshake,
  responseOf: (m) => m.peerList,
  wrapRequest: (handshake, requestId, deadlineMs) => ({ requestId, deadlineMs, handshake }),
  wrapResponse: (peerList, requestId) => ({ requestId, deadlineMs: 0n, peerList }),
}

export type HandshakeService = ExchangeService<HandshakeMessage, Handshake, PeerList>

export const handshakeService = exchangeService(handshakeSpec)
