/**
 * `/firn/<networkId>/bootstrap/2`: GetAcceptedFrontier -> AcceptedFrontier, GetAccepted -> Accepted,
 * GetAncestors -> Ancestors (reference consensus.md 3.8, 7.1). One exchange per request; the bodies are one-of
 * wrappers. Decoding refuses more than MAX_CONTAINER_IDS container IDs or MAX_ANCESTORS containers (bootstrap.proto
 * limits), on top of the 2 MiB frame cap.
 */
import {
  type ExchangeService,
  type ExchangeSpec,
  exchangeService,
  protocolId,
  requestResponseSpec,
} from '../service/exchange.js'
import { BootstrapMessage, type BootstrapRequest, type BootstrapResponse } from './bootstrap.js'

export type {
  Accepted,
  AcceptedFrontier,
  Ancestors,
  BootstrapRequest,
  BootstrapResponse,
  GetAccepted,
  GetAcceptedFrontier,
  GetAncestors,
} from './bootstrap.js'
export { BootstrapMessage } from './bootstrap.js'

export const BOOTSTRAP_PROTOCOL_NAME = 'bootstrap'
export const bootstrapProtocol = (networkId: number): string => protocolId(networkId, BOOTSTRAP_PROTOCOL_NAME)

/** the decode limits bootstrap.proto sets on `container_ids` and `containers` */
export const MAX_CONTAINER_IDS = 10_000
export const MAX_ANCESTORS = 2_000

/** GetAncestors.engine_type: 0 unspecified, 1 DAG, 2 CHAIN */
export const EngineType = { Unspecified: 0, Dag: 1, Chain: 2 } as const

export const bootstrapSpec: ExchangeSpec<BootstrapMessage, BootstrapRequest, BootstrapResponse> = requestResponseSpec(
  BOOTSTRAP_PROTOCOL_NAME,
  BootstrapMessage,
)

export type BootstrapService = ExchangeService<BootstrapMessage, BootstrapRequest, BootstrapResponse>

export const bootstrapService = exchangeService(bootstrapSpec)
