/** `/firn/<networkId>/handshake/1`: our Handshake -> the peer's PeerList (or a reset if it refuses us). */
import { type Handshake, HandshakeMessage, type PeerList } from '../messages/p2p.js'
import {
  type ExchangeComponents,
  type ExchangeInit,
  ExchangeService,
  type ExchangeSpec,
  protocolId,
} from '../service/exchange.js'

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

export interface HandshakeServiceInit extends ExchangeInit<Handshake, PeerList> {
  networkId: number
}

export function handshakeService(init: HandshakeServiceInit): (components: ExchangeComponents) => HandshakeService {
  return (components) => new ExchangeService(components, handshakeSpec, init.networkId, init)
}
