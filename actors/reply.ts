/**
 * Replies: how an actor answers a command. A command event carries a `requestId`; the actor emits
 * exactly one `reply` with the same id, in every state (if only to say it is busy). `src/runtime/ask.ts`
 * turns that into a promise with a deadline.
 */
/** JSON-safe error: what crosses the jayson boundary as `{code, message, data}`. */
export interface ReplyError {
  code: number
  message: string
  data?: unknown
}

export type Reply =
  | { type: 'reply'; requestId: string; ok: true; result: unknown }
  | { type: 'reply'; requestId: string; ok: false; error: ReplyError }

/** The generic server error code every reference error uses. */
export const SERVER_ERROR_CODE = -32000

export const replyOk = (requestId: string, result: unknown = {}): Reply => ({
  type: 'reply',
  requestId,
  ok: true,
  result,
})

export const replyError = (requestId: string, message: string, code = SERVER_ERROR_CODE): Reply => ({
  type: 'reply',
  requestId,
  ok: false,
  error: { code, message, data: null },
})
