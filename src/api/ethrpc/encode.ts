/**
 * geth's output messages (rpc/json.go `jsonrpcMessage`, field order jsonrpc, id, method, params, error,
 * result), with Go's encoder escaping. An `id` of undefined is omitted, as Go's `omitempty` does for a nil
 * json.RawMessage (geth writes that for a timed-out notification).
 */

import { ErrorCode } from '../../runtime/errors.js'
import { toWireError } from '../jsonrpc/errors.js'
import { goJson } from '../jsonrpc/go-text.js'

/** A response text plus the byte size of its `result` (what the batch response limit adds up). */
export interface Answer {
  text: string
  resultBytes: number
}

const idPart = (id: string | undefined): string => (id === undefined ? '' : `"id":${id},`)

export function errorText(id: string | undefined, code: number, message: string, data?: unknown): string {
  let error = `{"code":${code},"message":${goJson(message)}`
  if (data !== undefined && data !== null) {
    let dataJson: string | undefined
    try {
      dataJson = goJson(data)
    } catch {
      dataJson = undefined
    }
    if (dataJson !== undefined && dataJson !== 'null') error += `,"data":${dataJson}`
  }
  return `{"jsonrpc":"2.0",${idPart(id)}"error":${error}}}`
}

export const errorAnswer = (id: string | undefined, code: number, message: string, data?: unknown): Answer => ({
  text: errorText(id, code, message, data),
  resultBytes: 0,
})

/** The answer a thrown value becomes. */
export function thrownAnswer(id: string | undefined, err: unknown): Answer {
  const e = toWireError(err, 'geth')
  return errorAnswer(id, e.code, e.message, e.data)
}

/** A result; a value JSON cannot encode (a bigint, a cycle) is geth's marshal error, -32603. */
export function resultAnswer(id: string | undefined, result: unknown): Answer {
  let json: string
  try {
    json = goJson(result)
  } catch (err) {
    return errorAnswer(id, ErrorCode.internal, err instanceof Error ? err.message : String(err))
  }
  return { text: `{"jsonrpc":"2.0",${idPart(id)}"result":${json}}`, resultBytes: Buffer.byteLength(json) }
}

/**
 * `{"jsonrpc":"2.0","method":"<ns>_subscription","params":{"subscription":id,"result":...}}`; throws if
 * unencodable. `resultJson` is the result's JSON when the caller has it already (one result shared by many
 * subscriptions is encoded once: `ResultCache`).
 */
export function notificationText(
  namespace: string,
  subscription: string,
  result: unknown,
  resultJson?: string,
): string {
  return `{"jsonrpc":"2.0","method":${goJson(namespace + '_subscription')},"params":{"subscription":"${subscription}","result":${resultJson ?? goJson(result)}}}`
}

/** The JSON of results pushed as objects to many subscriptions (a block's header to every newHeads), once each. */
export class ResultCache {
  readonly #json = new WeakMap<object, string>()

  json(result: unknown): string {
    if (typeof result !== 'object' || result === null) return goJson(result)
    let text = this.#json.get(result)
    if (text === undefined) {
      text = goJson(result)
      this.#json.set(result, text)
    }
    return text
  }
}
