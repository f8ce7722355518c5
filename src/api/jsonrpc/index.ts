/** The JSON-RPC layer: services, typed params, reference errors. */

export { type DecodedRequest, type DecodeResult, decodeRequest, echoRequest } from './decode.js'
export { ApiError, ARGUMENT_ERROR, argumentError, ErrorCode, toJsonRpcError } from './errors.js'
export {
  array,
  bool,
  custom,
  type Decoder,
  fields,
  float,
  noParams,
  normaliseParams,
  object,
  optional,
  type ParamParser,
  str,
  uint32,
  uint64,
} from './params.js'
export {
  type CallInfo,
  createJsonRpcEndpoint,
  defineMethod,
  type JsonRpcEndpoint,
  type JsonRpcEndpointOptions,
  type JsonRpcReply,
  type RpcMethod,
  type RpcService,
} from './service.js'
