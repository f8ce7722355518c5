/**
 * The geth-style method tables a chain hands to the node (coreth registers its own API services the same way):
 * `eth_chainId` -> handler, subscription kinds, and what a handler learns about its call. src/api/ethrpc
 * serves them on `/rpc` and `/ws`.
 */

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

/** A method: positional params (absent or null params are []); throw a `FirnError` for a specific code. */
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

/** What a chain's geth-style API hands to the node for its `/rpc` and `/ws` endpoints. */
export interface EthHandlers {
  methods: MethodTable
  subscriptions?: SubscriptionTable
}
