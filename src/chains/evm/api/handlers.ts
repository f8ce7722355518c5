/**
 * Everything the EVM chain serves over JSON-RPC, handed to the node as plain handlers (as coreth's VM hands
 * avalanchego its API handlers): the geth-style method table and subscription kinds for `/rpc` and `/ws`, and
 * the chain's own admin service for `/admin` when the chain config enables it. The node's HTTP layer
 * (src/api) only routes to them.
 */
import type { EthHandlers } from '../../../rpc/eth-types.js'
import type { RpcService } from '../../../rpc/service.js'
import type { Keystore } from '../keystore/keystore.js'
import { type ChainAdminDeps, chainAdminService } from './admin.js'
import { createEthApi, type ServiceName } from './apis.js'
import type { EthBackend, SubmitTransaction } from './backend.js'

export interface EvmHandlerDeps {
  backend: EthBackend
  keystore: Keystore
  /** the `eth-apis` services enabled (apis.ts `checkServiceNames`) */
  services: Set<ServiceName>
  /** the admin service's deps; undefined when the admin API is off */
  admin?: ChainAdminDeps | undefined
  /** the tx admission behind eth_sendRawTransaction and the keystore's sends; the backend's own by default */
  submitTransaction?: SubmitTransaction | undefined
}

export interface EvmHandlers {
  /** `/ext/bc/<chain>/rpc` and `/ws` */
  rpc: EthHandlers
  /** `/ext/bc/<chain>/admin` (gorilla dialect); absent when the admin API is off */
  admin?: RpcService[]
  /** stops what the handlers run in the background (filter expiry) */
  close(): void
}

export function createEvmHandlers(d: EvmHandlerDeps): EvmHandlers {
  const api = createEthApi(d.backend, d.keystore, d.services, d.submitTransaction)
  return {
    rpc: { methods: api.methods, subscriptions: api.subscriptions },
    ...(d.admin === undefined ? {} : { admin: [chainAdminService(d.admin)] }),
    close: () => api.close(),
  }
}
