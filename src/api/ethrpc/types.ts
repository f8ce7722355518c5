/** The options of the geth-style JSON-RPC server: the chain's handlers, the limits, the log. */

import type { EthLimits } from '../../chains/vm.js'
import type { RpcCallObserver } from '../../rpc/call-observer.js'
import type { ClientRateLimiter } from '../../rpc/client-quota.js'
import type { EthHandlers } from '../../rpc/eth-types.js'

export interface EthRpcLog {
  debug(msg: string, fields?: object): void
  warn(msg: string, fields?: object): void
}

/** The C-chain config keys of the server (reference cchain.md 3.5). */
export interface EthRpcLimits {
  /** `batch-request-limit`, default 1000 */
  batchRequestLimit?: number
  /** `batch-response-max-size`, default 25,000,000 bytes; both batch limits apply only when both are > 0 */
  batchResponseMaxSize?: number
  /** `api-max-duration` in ms, default 0 = no deadline */
  apiMaxDurationMs?: number
  /** `http-body-limit`, default 0 = 5 MiB */
  httpBodyLimit?: number
  /** the HTTP server's write timeout (default 30 s): HTTP calls time out 100 ms before it, as in geth */
  httpWriteTimeoutMs?: number
}

export interface EthRpcOptions extends EthRpcLimits, EthHandlers {
  log?: EthRpcLog
  /** told of every call answered (the node's metrics); none when absent */
  observer?: RpcCallObserver | undefined
}

/** the WebSocket limits a chain hands over with its handlers (src/chains/vm.ts; ws-cpu-limiter.ts for the CPU budget) */
type WsLimits = Pick<
  EthLimits,
  | 'wsCpuRefillRateMs'
  | 'wsCpuMaxStoredMs'
  | 'wsMaxConnections'
  | 'wsMaxConnectionsPerIp'
  | 'wsMaxSubscriptions'
  | 'wsMaxSubscriptionsPerIp'
>

export interface EthWsOptions extends EthRpcOptions, WsLimits {
  /** largest message read, default 32 MiB */
  readLimit?: number
  /** idle time before a ping, default 30 s */
  pingIntervalMs?: number
  /** time to wait for the pong, default 30 s */
  pongTimeoutMs?: number
  /** subscriptions per connection, default 1000 */
  maxSubscriptions?: number
  /** bytes waiting to be sent, default 16 MiB; beyond it the connection is dropped */
  maxQueuedBytes?: number
  /** calls running per connection before reading pauses, default 1000 */
  maxPendingCalls?: number
  /** the node's per-client request rate (`--api-rate-limit`): one token per message */
  rateLimiter?: ClientRateLimiter | undefined
}

export const DEFAULT_BATCH_REQUEST_LIMIT = 1000
export const DEFAULT_BATCH_RESPONSE_MAX_SIZE = 25_000_000
export const DEFAULT_HTTP_BODY_LIMIT = 5 * 1024 * 1024
