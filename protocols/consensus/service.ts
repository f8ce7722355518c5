/**
 * `/firn/<networkId>/consensus/2`: PushQuery | PullQuery -> Chits, Get -> Put (reference consensus.md 3.8, 7.1).
 * One exchange per query; the request and response bodies are one-of wrappers so one protocol carries all three
 * pairs. The chain router (src/network/chain-router.ts) checks that a response matches its request.
 */
import {
  type ExchangeService,
  type ExchangeSpec,
  exchangeService,
  protocolId,
  requestResponseSpec,
} from '../service/exchange.js'
import { ConsensusMessage, type ConsensusRequest, type ConsensusResponse } from './consensus.js'

export type { Chits, ConsensusRequest, ConsensusResponse, Get, PullQuery, PushQuery, Put } from './consensus.js'
export { ConsensusMessage } from './consensus.js'

export const CONSENSUS_PROTOCOL_NAME = 'consensus'
export const consensusProtocol = (networkId: number): string => protocolId(networkId, CONSENSUS_PROTOCOL_NAME)

/** Chain requests arrive often and may each be answered late: more of a peer's requests in flight than the default. */
export const CHAIN_MAX_INFLIGHT = 1024

export const consensusSpec: ExchangeSpec<ConsensusMessage, ConsensusRequest, ConsensusResponse> = requestResponseSpec(
  CONSENSUS_PROTOCOL_NAME,
  ConsensusMessage,
)

export type ConsensusService = ExchangeService<ConsensusMessage, ConsensusRequest, ConsensusResponse>

export const consensusService = exchangeService(consensusSpec)
