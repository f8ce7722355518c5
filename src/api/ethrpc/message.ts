/**
 * Reading JSON-RPC messages the way geth's codec does (rpc/json.go): one JSON value is read (bytes after it
 * are ignored), then each message is unmarshalled into geth's `jsonrpcMessage` ignoring errors: keys match
 * case-insensitively (Go's folding) and the last duplicate wins; `jsonrpc` and `method` count only when
 * they are strings; `id`, `params` and `result` are raw JSON (`null` counts as present); `error` is present
 * unless null. Anything that is not an object (`1`, `null`) is the zero message.
 */
import { goFoldName } from '../../rpc/go-fold.js'
import { compactJson } from '../jsonrpc/go-text.js'
import { JsonSyntaxError, type ScannedValue, scanFirstValue } from '../jsonrpc/scan.js'

export interface RpcMessage {
  /** '' unless a string */
  version: string
  /** raw `id` as Go re-encodes a json.RawMessage; undefined when absent */
  id: string | undefined
  /** '' unless a string */
  method: string
  /** raw `params`; undefined when absent */
  params: string | undefined
  hasResult: boolean
  hasError: boolean
}

export type ReadOutcome =
  | { kind: 'messages'; batch: boolean; messages: RpcMessage[] }
  /** no value at all (Go's io.EOF) */
  | { kind: 'eof' }
  /** the value ends early (io.ErrUnexpectedEOF): not a *json.SyntaxError */
  | { kind: 'truncated' }
  /** a *json.SyntaxError with Go's text */
  | { kind: 'syntax'; message: string }

const zeroMessage = (): RpcMessage => ({
  version: '',
  id: undefined,
  method: '',
  params: undefined,
  hasResult: false,
  hasError: false,
})

function stringAt(buf: Buffer, start: number, end: number): string {
  for (let i = start + 1; i < end - 1; i++) {
    if (buf[i] === 0x5c) return JSON.parse(buf.toString('utf8', start, end)) as string
  }
  return buf.toString('utf8', start + 1, end - 1)
}

const FIELDS: ReadonlyMap<string, keyof RpcMessage> = new Map([
  ['JSONRPC', 'version'],
  ['ID', 'id'],
  ['METHOD', 'method'],
  ['PARAMS', 'params'],
  ['RESULT', 'hasResult'],
  ['ERROR', 'hasError'],
])
/** the field names' bytes, upper-cased, by length */
const FIELD_BYTES = [...FIELDS].map(([name, field]) => ({ bytes: Buffer.from(name, 'latin1'), field }))

/**
 * The field a key (the quoted string at start..end) names, or undefined. A key of plain ASCII letters without
 * escapes (every key a client sends) is matched on its bytes, folded as Go does; any other key goes through the
 * decoded string and `goFoldName` (its escapes, and the two non-ASCII letters that fold onto ASCII ones).
 */
function fieldOf(buf: Buffer, start: number, end: number): keyof RpcMessage | undefined {
  const length = end - start - 2
  for (let i = start + 1; i < end - 1; i++) {
    const c = buf[i]!
    if (c === 0x5c || c >= 0x80) return FIELDS.get(goFoldName(stringAt(buf, start, end)))
  }
  next: for (const { bytes, field } of FIELD_BYTES) {
    if (bytes.length !== length) continue
    for (let i = 0; i < length; i++) {
      const c = buf[start + 1 + i]!
      if ((c >= 0x61 && c <= 0x7a ? c - 0x20 : c) !== bytes[i]) continue next
    }
    return field
  }
  return undefined
}

/** One scanned value -> geth's jsonrpcMessage. */
function toMessage(buf: Buffer, scanned: ScannedValue): RpcMessage {
  const msg = zeroMessage()
  if (buf[scanned.start] !== 0x7b) return msg
  const m = scanned.members
  for (let k = 0; k < m.length; k += 4) {
    const field = fieldOf(buf, m[k]!, m[k + 1]!)
    if (field === undefined) continue
    const start = m[k + 2]!
    const end = m[k + 3]!
    const first = buf[start]
    if (field === 'version' || field === 'method') {
      if (first === 0x22) msg[field] = stringAt(buf, start, end)
    } else if (field === 'id') msg.id = compactJson(buf.toString('utf8', start, end))
    else if (field === 'params') msg.params = buf.toString('utf8', start, end)
    else if (field === 'hasResult') msg.hasResult = true
    else msg.hasError = first !== 0x6e
  }
  return msg
}

const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09

function skipSpace(buf: Buffer, i: number): number {
  while (isSpace(buf[i])) i++
  return i
}

/** The elements of an already validated top-level array starting at `start`. */
function batchMessages(buf: Buffer, start: number): RpcMessage[] {
  const out: RpcMessage[] = []
  let i = skipSpace(buf, start + 1)
  if (buf[i] === 0x5d) return out
  for (;;) {
    const element = buf.subarray(i)
    const scanned = scanFirstValue(element)
    out.push(toMessage(element, scanned))
    i = skipSpace(buf, i + scanned.end)
    if (buf[i] !== 0x2c) return out
    i++
  }
}

/** Read the first JSON value of `buf` as a message or a batch. */
export function readMessages(buf: Buffer): ReadOutcome {
  let scanned: ScannedValue
  try {
    scanned = scanFirstValue(buf)
  } catch (err) {
    if (!(err instanceof JsonSyntaxError)) throw err
    if (err.message === 'EOF') return { kind: 'eof' }
    if (err.message === 'unexpected EOF') return { kind: 'truncated' }
    return { kind: 'syntax', message: err.message }
  }
  if (buf[scanned.start] === 0x5b) return { kind: 'messages', batch: true, messages: batchMessages(buf, scanned.start) }
  return { kind: 'messages', batch: false, messages: [toMessage(buf, scanned)] }
}

const hasValidVersion = (m: RpcMessage): boolean => m.version === '2.0'

export const hasValidId = (m: RpcMessage): boolean => m.id !== undefined && m.id[0] !== '{' && m.id[0] !== '['

export const isNotification = (m: RpcMessage): boolean => hasValidVersion(m) && m.id === undefined && m.method !== ''

export const isCall = (m: RpcMessage): boolean => hasValidVersion(m) && hasValidId(m) && m.method !== ''

export const isResponse = (m: RpcMessage): boolean =>
  hasValidVersion(m) && hasValidId(m) && m.method === '' && m.params === undefined && (m.hasResult || m.hasError)

/** Messages geth's handler drops without an answer: responses and client-side `*_subscription` notifications. */
export const isIgnored = (m: RpcMessage): boolean =>
  isResponse(m) || (isNotification(m) && m.method.endsWith('_subscription'))

export const isSubscribe = (method: string): boolean => method.endsWith('_subscribe')
export const isUnsubscribe = (method: string): boolean => method.endsWith('_unsubscribe')

/** The part before the first `_`. */
export function namespaceOf(method: string): string {
  const i = method.indexOf('_')
  return i === -1 ? method : method.slice(0, i)
}
