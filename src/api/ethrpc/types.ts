/** The public shapes of the geth-style JSON-RPC layer: method and subscription tables, call context, options. */

/** What a method (or a subscription start) learns about the call. */
export interface CallContext {
  /** aborted at the request deadline (`api-max-duration`, or the HTTP write timeout), or when the client goes */
  readonly signal: AbortSignal
  readonly transport: 'http' | 'ws'
  readonly remoteAddress: string | undefined
  /** the WebSocket connection; undefined over HTTP */
  readonly connection: ConnectionInfo | undefined
}

export interface ConnectionInfo {
  /** unique per route */
  readonly id: number
  /** aborted when the connection closes */
  readonly signal: AbortSignal
}

/** A method: positional params (absent or null params are []); throw `EthRpcError` for a specific code. */
export type EthMethod = (params: unknown[], ctx: CallContext) => unknown

/** `eth_chainId` -> handler. */
export type MethodTable = ReadonlyMap<string, EthMethod>

/**
 * A subscription kind (`newHeads`, `logs` ...): `params` are the arguments after the kind's name. It starts
 * pushing results and returns the function that stops it (called on `eth_unsubscribe` or when the
 * connection closes). Throwing fails the `eth_subscribe` call with that error.
 */
export type SubscriptionStart = (
  params: unknown[],
  push: (result: unknown) => void,
  ctx: CallContext,
) => (() => void) | Promise<() => void>

/** Kind -> start; all kinds live in the `eth` namespace. */
export type SubscriptionTable = Readonly<Record<string, SubscriptionStart>>

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

export interface EthRpcOptions extends EthRpcLimits {
  methods: MethodTable
  subscriptions?: SubscriptionTable
  log?: EthRpcLog
}

export interface EthWsOptions extends EthRpcOptions {
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
}

export const DEFAULT_BATCH_REQUEST_LIMIT = 1000
export const DEFAULT_BATCH_RESPONSE_MAX_SIZE = 25_000_000
export const DEFAULT_HTTP_BODY_LIMIT = 5 * 1024 * 1024
