/**
 * Errors at the JSON-RPC boundary. Inside, code throws `ApiError` (or rejects with a `ReplyError` from an
 * actor); `toJsonRpcError` turns anything into the plain `{code, message, data}` jayson passes through.
 * Texts the reference defines are copied to the letter (reference/node-api.md section 2.3).
 */
import type { ReplyError } from '../../../actors/reply.js'

export const ErrorCode = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  server: -32000,
} as const

export const ARGUMENT_ERROR =
  "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls"

export class ApiError extends Error {
  readonly code: number
  readonly data: unknown
  constructor(message: string, code: number = ErrorCode.server, data: unknown = null) {
    super(message)
    this.name = 'ApiError'
    this.code = code
    this.data = data
  }
}

/** The generic argument error: params that do not decode. */
export const argumentError = (): ApiError => new ApiError(ARGUMENT_ERROR)

export function isReplyError(x: unknown): x is ReplyError {
  return (
    typeof x === 'object' &&
    x !== null &&
    Number.isInteger((x as ReplyError).code) &&
    typeof (x as ReplyError).message === 'string'
  )
}

/** Anything thrown by a handler -> the plain object jayson accepts. Unknown errors keep their text. */
export function toJsonRpcError(err: unknown): { code: number; message: string; data: unknown } {
  if (err instanceof ApiError) return { code: err.code, message: err.message, data: err.data }
  if (isReplyError(err)) return { code: err.code, message: err.message, data: err.data ?? null }
  if (err instanceof Error) return { code: ErrorCode.server, message: err.message, data: null }
  return { code: ErrorCode.server, message: String(err), data: null }
}
