/**
 * geth's JSON-RPC errors (coreth `graft/evm/rpc/errors.go`), copied to the letter. Handlers throw
 * `EthRpcError` for a specific code (and `data`, e.g. revert data with code 3); any other thrown value
 * becomes code -32000 with its message, as a plain Go error does.
 */

export const ErrorCode = {
  default: -32000,
  timeout: -32002,
  responseTooLarge: -32003,
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
} as const

export const ErrorText = {
  timeout: 'request timed out',
  responseTooLarge: 'response too large',
  batchTooLarge: 'batch too large',
  emptyBatch: 'empty batch',
  invalidRequest: 'invalid request',
  parse: 'parse error',
  notificationsUnsupported: 'notifications not supported',
  subscriptionNotFound: 'subscription not found',
  nonArrayArgs: 'non-array args',
  expectedSubscriptionName: 'expected subscription name as first argument',
} as const

/** A JSON-RPC error with geth's code, message and optional `data` (omitted when null or undefined). */
export class EthRpcError extends Error {
  readonly code: number
  readonly data: unknown
  constructor(code: number, message: string, data?: unknown) {
    super(message)
    this.name = 'EthRpcError'
    this.code = code
    this.data = data
  }
}

export const methodNotFound = (method: string): EthRpcError =>
  new EthRpcError(ErrorCode.methodNotFound, `the method ${method} does not exist/is not available`)

export const invalidParams = (message: string): EthRpcError => new EthRpcError(ErrorCode.invalidParams, message)

/** The error object a thrown value becomes: `EthRpcError` keeps its code and data, anything else is -32000. */
export function toRpcError(err: unknown): { code: number; message: string; data: unknown } {
  if (err instanceof EthRpcError) return { code: err.code, message: err.message, data: err.data }
  if (err instanceof Error) return { code: ErrorCode.default, message: err.message, data: undefined }
  return { code: ErrorCode.default, message: String(err), data: undefined }
}
