/**
 * Response bodies as gorilla json2 writes them through Go's json.Encoder: one object, keys in the order
 * `jsonrpc`, `result` | `error`, `id`, a trailing newline; error objects always carry `data`.
 */
import { goJson } from './go-text.js'

export interface JsonRpcErrorObject {
  code: number
  message: string
  data: unknown
}

/** `id` is the raw id text (already Go-encoded); undefined writes `null`. */
export function resultBody(result: unknown, id: string | undefined): string {
  return `{"jsonrpc":"2.0","result":${goJson(result)},"id":${id ?? 'null'}}\n`
}

/** `dataJson` lets callers pass data that is already JSON text (the request echo). */
export function errorBody(error: JsonRpcErrorObject, id: string | undefined, dataJson?: string): string {
  const data = dataJson ?? goJson(error.data ?? null)
  return `{"jsonrpc":"2.0","error":{"code":${error.code},"message":${goJson(error.message)},"data":${data}},"id":${id ?? 'null'}}\n`
}
