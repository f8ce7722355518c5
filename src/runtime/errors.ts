/**
 * The one error base type. Every error Firn throws on purpose is a `FirnError` (or a subclass): it carries the
 * JSON-RPC `code` a caller sees and optional `data`. src/api/jsonrpc/errors.ts maps any thrown value to the
 * wire in one place, per dialect (the node APIs' gorilla dialect writes `data: null` when there is none, geth's
 * leaves `data` out). Messages the reference defines are copied to the letter where the error is made.
 */

/** The codes on the wire, shared by both dialects (gorilla json2 and geth rpc/errors.go). */
export const ErrorCode = {
  /** the generic server error: every reference error without a code of its own */
  server: -32000,
  /** geth: a call passed `api-max-duration` */
  timeout: -32002,
  /** geth: a batch's answers passed `batch-response-max-size` */
  responseTooLarge: -32003,
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  /** geth: `execution reverted`, with the revert data */
  revert: 3,
} as const

export class FirnError extends Error {
  readonly code: number
  readonly data: unknown
  /** `code` defaults to -32000; `data` to none (the dialects write it as `null` or leave it out) */
  constructor(message: string, code: number = ErrorCode.server, data?: unknown) {
    super(message)
    this.name = new.target.name
    this.code = code
    this.data = data
  }
}
