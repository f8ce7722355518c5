/** geth-style JSON-RPC for the C chain: `/rpc` (HTTP) and `/ws` (WebSocket) over one method table. */

export { checkArity, goJsonKind, invalidArgument, positionalParams } from './args.js'
export { ErrorCode, ErrorText, EthRpcError, invalidParams, methodNotFound } from './errors.js'
export { createEthRpcRoute } from './http-route.js'
export {
  type CallContext,
  type ConnectionInfo,
  DEFAULT_BATCH_REQUEST_LIMIT,
  DEFAULT_BATCH_RESPONSE_MAX_SIZE,
  DEFAULT_HTTP_BODY_LIMIT,
  type EthMethod,
  type EthRpcLimits,
  type EthRpcLog,
  type EthRpcOptions,
  type EthWsOptions,
  type MethodTable,
  type SubscriptionStart,
  type SubscriptionTable,
} from './types.js'
export { createEthWsRoute, DEFAULT_WS_READ_LIMIT, type EthWsRoute } from './ws-route.js'
