/**
 * Node-API services in the reference's (gorilla rpc v2) style: a service is a name (`info`) and its methods by
 * Go-style name (`GetNodeID`); a method parses its normalised params into a typed value (params.ts), then
 * handles them. src/api/jsonrpc serves a list of services on one endpoint.
 */
import type { ParamParser } from './params.js'

export interface CallInfo {
  /** the HTTP client's address */
  remoteAddress: string
}

export interface RpcMethod<P = unknown> {
  parse: ParamParser<P>
  handle(params: P, call: CallInfo): unknown | Promise<unknown>
}

export function defineMethod<P>(parse: ParamParser<P>, handle: RpcMethod<P>['handle']): RpcMethod<P> {
  return { parse, handle }
}

/** `name` is the text before the dot ('info'); methods are keyed by Go-style name ('GetNodeID', 'DbGet'). */
export interface RpcService {
  name: string
  methods: Record<string, RpcMethod<unknown>>
}
