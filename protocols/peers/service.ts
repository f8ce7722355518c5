/** `/firn/<networkId>/peers/2`: GetPeerList{known_peers, all_subnets} -> PeerList (up to 15 unknown claims). */
import { type GetPeerList, type PeerList, PeersMessage } from '../messages/p2p.js'
import { type ExchangeService, type ExchangeSpec, exchangeService, protocolId } from '../service/exchange.js'

export const PEERS_PROTOCOL_NAME = 'peers'
export const peersProtocol = (networkId: number): string => protocolId(networkId, PEERS_PROTOCOL_NAME)

export const peersSpec: ExchangeSpec<PeersMessage, GetPeerList, PeerList> = {
  name: PEERS_PROTOCOL_NAME,
  codec: PeersMessage,
  requestOf: (m) => m.getPeerList,
  responseOf: (m) => m.peerList,
  wrapRequest: (getPeerList, requestId, deadlineMs) => ({ requestId, deadlineMs, getPeerList }),
  wrapResponse: (peerList, requestId) => ({ requestId, deadlineMs: 0n, peerList }),
}

export type PeersService = ExchangeService<PeersMessage, GetPeerList, PeerList>

export const peersService = exchangeService(peersSpec)
