/**
 * Thrown values -> JSON-RPC error objects, in one place for every endpoint. Inside, code throws `FirnError`
 * (src/runtime/errors.ts) or rejects with an actor's plain `ReplyError` (actors/reply.ts); anything else
 * becomes -32000 with its text, as a plain Go error does in both references. The two dialects differ only in
 * `data`: the node APIs' (gorilla json2) always write it, `null` when there is none; geth's leaves it out.
 */
import type { ReplyError } from '../../../actors/reply.js'
import { ErrorCode, FirnError } from '../../runtime/errors.js'

/** `gorilla`: /ext/info, /ext/admin, the chain admin API. `geth`: a chain's /rpc and /ws. */
export type Dialect = 'gorilla' | 'geth'

export interface WireError {
  code: number
  message: string
  /** gorilla: never undefined (null when none); geth: undefined when none */
  data: unknown
}

/** An actor's reply error: a plain object (never an Error) with an integer code and a message. */
export function isReplyError(x: unknown): x is ReplyError {
  return (
    typeof x === 'object' &&
    x !== null &&
    !(x instanceof Error) &&
    Number.isInteger((x as ReplyError).code) &&
    typeof (x as ReplyError).message === 'string'
  )
}

export function toWireError(err: unknown, dialect: Dialect): WireError {
  let code: number = ErrorCode.server
  let message: string
  let data: unknown
  if (err instanceof FirnError) {
    code = err.code
    message = err.message
    data = err.data
  } else if (isReplyError(err)) {
    code = err.code
    message = err.message
    data = err.data
  } else {
    message = err instanceof Error ? err.message : String(err)
  }
  return { code, message, data: dialect === 'gorilla' ? (data ?? null) : (data ?? undefined) }
}
