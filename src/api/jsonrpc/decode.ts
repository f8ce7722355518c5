/**
 * Decode a request body the way gorilla/rpc v2 json2 does: Go's `json.NewDecoder(body).Decode(&serverRequest)`.
 * One JSON value is read and anything after it ignored; the top-level keys match case-insensitively
 * (Go's folding), unknown keys are ignored and the last duplicate wins; `jsonrpc` and `method` are Go
 * strings (`null` leaves them as they were, another JSON type is an unmarshal error that does not stop
 * decoding), `params` and `id` are raw JSON (`null` = absent). A parse failure still yields the partly
 * decoded request, which the reply echoes as `data`.
 */
import { goFoldName } from '../../rpc/go-fold.js'
import { compactJson, goJson } from './go-text.js'
import { JsonSyntaxError, scanFirstValue } from './scan.js'

export interface DecodedRequest {
  /** '' when absent or null */
  jsonrpc: string
  /** '' when absent or null */
  method: string
  /** the raw `params` JSON text; undefined when absent or null */
  params: string | undefined
  /** the raw `id` as Go re-encodes a json.RawMessage (compacted, HTML-escaped); undefined = notification */
  id: string | undefined
}

export type DecodeResult =
  | { ok: true; request: DecodedRequest }
  /** a -32700 parse error: `message` is Go's decoder text, `request` what was decoded before/besides it */
  | { ok: false; message: string; request: DecodedRequest }

const GO_TYPE = 'json2.serverRequest'

type Field = 'jsonrpc' | 'method' | 'params' | 'id'
const FIELD_BY_FOLDED_NAME: ReadonlyMap<string, Field> = new Map([
  ['JSONRPC', 'jsonrpc'],
  ['METHOD', 'method'],
  ['PARAMS', 'params'],
  ['ID', 'id'],
])
const fieldOf = (key: string): Field | undefined =>
  key === 'jsonrpc' || key === 'method' || key === 'params' || key === 'id'
    ? key
    : FIELD_BY_FOLDED_NAME.get(goFoldName(key))

/** JSON type name as Go's UnmarshalTypeError spells it, from the value's first byte. */
function jsonKind(c: number | undefined): string {
  switch (c) {
    case 0x7b:
      return 'object'
    case 0x5b:
      return 'array'
    case 0x22:
      return 'string'
    case 0x74:
    case 0x66:
      return 'bool'
    default:
      return 'number'
  }
}

/** A scanned JSON string slice (with quotes) -> its value; the common escape-free case avoids JSON.parse. */
function stringAt(buf: Buffer, start: number, end: number): string {
  for (let i = start + 1; i < end - 1; i++) {
    if (buf[i] === 0x5c) return JSON.parse(buf.toString('utf8', start, end)) as string
  }
  return buf.toString('utf8', start + 1, end - 1)
}

export function decodeRequest(body: Buffer | string): DecodeResult {
  const buf = typeof body === 'string' ? Buffer.from(body, 'utf8') : body
  const request: DecodedRequest = { jsonrpc: '', method: '', params: undefined, id: undefined }
  let scanned: ReturnType<typeof scanFirstValue>
  try {
    scanned = scanFirstValue(buf)
  } catch (err) {
    if (err instanceof JsonSyntaxError) return { ok: false, message: err.message, request }
    throw err
  }
  const first = buf[scanned.start]
  if (first !== 0x7b) {
    // `null` decodes into nothing and is no error; any other non-object is a type error
    if (first === 0x6e) return { ok: true, request }
    return { ok: false, message: `json: cannot unmarshal ${jsonKind(first)} into Go value of type ${GO_TYPE}`, request }
  }
  let typeError: string | undefined
  const m = scanned.members
  for (let k = 0; k < m.length; k += 4) {
    const keyStart = m[k]!
    const keyEnd = m[k + 1]!
    const valueStart = m[k + 2]!
    const valueEnd = m[k + 3]!
    const key = stringAt(buf, keyStart, keyEnd)
    const field = fieldOf(key)
    if (field === undefined) continue
    const c = buf[valueStart]
    const isNull = c === 0x6e
    if (field === 'jsonrpc' || field === 'method') {
      if (c === 0x22) request[field] = stringAt(buf, valueStart, valueEnd)
      else if (!isNull && typeError === undefined) {
        typeError = `json: cannot unmarshal ${jsonKind(c)} into Go struct field serverRequest.${field} of type string`
      }
    } else if (field === 'params') {
      request.params = isNull ? undefined : buf.toString('utf8', valueStart, valueEnd)
    } else {
      request.id = isNull ? undefined : compactJson(buf.toString('utf8', valueStart, valueEnd))
    }
  }
  return typeError === undefined ? { ok: true, request } : { ok: false, message: typeError, request }
}

/** The request as Go marshals `serverRequest` (the `data` of -32700 and -32600 errors). */
export function echoRequest(request: DecodedRequest): string {
  const params = request.params === undefined ? 'null' : compactJson(request.params)
  return `{"jsonrpc":${goJson(request.jsonrpc)},"method":${goJson(request.method)},"params":${params},"id":${request.id ?? 'null'}}`
}
