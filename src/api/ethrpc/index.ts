/** geth-style JSON-RPC serving for a chain: `/rpc` (HTTP) and `/ws` (WebSocket) over the chain's method table. */

export { ErrorText, methodNotFound } from './errors.js'
export { createEthRpcRoute } from './http-route.js'
export {
  DEFAULT_BATCH_REQUEST_LIMIT,
  DEFAULT_BATCH_RESPONSE_MAX_SIZE,
  DEFAULT_HTTP_BODY_LIMIT,
  type EthRpcLimits,
  type EthRpcLog,
  type EthRpcOptions,
  type EthWsOptions,
} from './types.js'
export { createEthWsRoute, DEFAULT_WS_READ_LIMIT, type EthWsRoute } from './ws-route.js'
