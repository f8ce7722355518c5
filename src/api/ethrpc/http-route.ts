/**
 * `/ext/bc/C/rpc`: geth's HTTP transport (rpc/http.go `ServeHTTP`). A GET with no body and no query is a
 * health check (200, empty). PUT and DELETE are 405 `method not allowed`; a declared body over
 * `http-body-limit` is 413 `content length too large (N>LIMIT)`; the Content-Type must be JSON (415),
 * except for OPTIONS. The body is read up to the limit (a longer streamed body is cut there, as Go's
 * LimitReader does) and its first JSON value served: nothing -> 200 with an empty body, bad JSON ->
 * -32700 `parse error`. Answers are 200 `application/json`; geth's Encoder adds a newline to normal
 * answers, its error path (parse error, batch errors, timeouts) does not.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ErrorCode } from '../../runtime/errors.js'
import { httpError } from '../http/plain.js'
import type { RawRoute } from '../http/router.js'
import { writeAtTurnEnd } from '../http/turn-writes.js'
import { createDispatcher } from './dispatch.js'
import { errorText } from './encode.js'
import { ErrorText } from './errors.js'
import { isAcceptedContentType } from './media-type.js'
import { readMessages } from './message.js'
import type { CallProc, Session } from './session.js'
import { DEFAULT_HTTP_BODY_LIMIT, type EthRpcOptions } from './types.js'

const DEFAULT_WRITE_TIMEOUT_MS = 30_000
const JSON_TYPE = 'application/json'

/** Go's `r.ContentLength`: the declared length, 0 without a body, -1 when streamed (chunked). */
function contentLength(req: IncomingMessage): number {
  const declared = req.headers['content-length']
  if (declared !== undefined) return Number(declared)
  return req.headers['transfer-encoding'] === undefined ? 0 : -1
}

const hasQuery = (url: string | undefined): boolean => {
  const q = url?.indexOf('?') ?? -1
  return q !== -1 && q < url!.length - 1
}

/** Reads at most `limit` bytes; `done(body, cut)` once, `cut` when bytes past the limit were left unread. */
function readLimited(req: IncomingMessage, limit: number, done: (body: Buffer, cut: boolean) => void): void {
  const chunks: Buffer[] = []
  let size = 0
  let settled = false
  const settle = (cut: boolean): void => {
    if (settled) return
    settled = true
    req.removeListener('data', onData)
    done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size), cut)
  }
  const onData = (chunk: Buffer): void => {
    if (size + chunk.length > limit) {
      chunks.push(chunk.subarray(0, limit - size))
      size = limit
      settle(true)
      return
    }
    chunks.push(chunk)
    size += chunk.length
  }
  req.on('data', onData)
  req.once('end', () => settle(false))
}

/** One request's session: its answer is written once (the first `reply`), as 200 `application/json`. */
class HttpExchange implements Session {
  readonly transport = 'http'
  readonly subscriptions = undefined
  readonly connection = undefined
  readonly procs = new Set<CallProc>()
  #responded = false

  constructor(
    readonly res: ServerResponse,
    readonly remoteAddress: string | undefined,
    readonly timeoutMs: number,
    /** the body was cut at the limit: the connection closes after the answer */
    readonly cut: boolean,
  ) {}

  write(json: string, isError: boolean): void {
    this.reply(isError ? json : `${json}\n`)
  }

  reply(text: string): void {
    const res = this.res
    if (this.#responded || res.destroyed) return
    this.#responded = true
    const length = Buffer.byteLength(text)
    const head = this.cut
      ? { 'Content-Type': JSON_TYPE, 'Content-Length': length, Connection: 'close' }
      : { 'Content-Type': JSON_TYPE, 'Content-Length': length }
    writeAtTurnEnd(res, 200, head, text)
  }

  cancel(): void {
    for (const p of this.procs) p.abort(new Error('client disconnected'))
  }
}

export function createEthRpcRoute(opts: EthRpcOptions): RawRoute {
  const dispatcher = createDispatcher(opts)
  const limit =
    opts.httpBodyLimit !== undefined && opts.httpBodyLimit > 0 ? opts.httpBodyLimit : DEFAULT_HTTP_BODY_LIMIT
  const writeTimeoutMs = opts.httpWriteTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS
  const apiMs = opts.apiMaxDurationMs ?? 0
  // geth answers 100 ms before the HTTP server's write timeout cuts the connection
  const writeDeadline = writeTimeoutMs > 100 ? writeTimeoutMs - 100 : 0
  const timeoutMs = apiMs > 0 && writeDeadline > 0 ? Math.min(apiMs, writeDeadline) : Math.max(apiMs, writeDeadline)

  const serve = (req: IncomingMessage, res: ServerResponse, body: Buffer, cut: boolean): void => {
    const exchange = new HttpExchange(res, req.socket.remoteAddress, timeoutMs, cut)
    const outcome = readMessages(body)
    if (outcome.kind !== 'messages') {
      exchange.reply(outcome.kind === 'eof' ? '' : errorText('null', ErrorCode.parse, ErrorText.parse))
      return
    }
    const failed = (err: unknown): void => {
      opts.log?.warn('eth JSON-RPC request failed', { error: String(err) })
      exchange.reply('')
    }
    let running: Promise<void> | undefined
    try {
      running = dispatcher.handle(outcome.batch, outcome.messages, exchange)
    } catch (err) {
      failed(err)
      return
    }
    // answered already (the call was synchronous): the answer is written; otherwise ...
    if (running === undefined) {
      exchange.reply('')
      return
    }
    // ... the client going away cancels the calls still running (Go cancels the request context)
    res.once('close', () => exchange.cancel())
    running.then(() => exchange.reply(''), failed)
  }

  return {
    kind: 'raw',
    handle(req, res) {
      const method = req.method
      const declared = contentLength(req)
      if (method === 'GET' && declared === 0 && !hasQuery(req.url)) {
        res.writeHead(200, { 'Content-Length': 0 })
        res.end()
        return
      }
      // answers sent before the body is read close the connection instead of reading a body nobody wants
      if (method === 'PUT' || method === 'DELETE') {
        if (declared !== 0) res.setHeader('Connection', 'close')
        return httpError(res, 405, 'method not allowed')
      }
      if (declared > limit) {
        res.setHeader('Connection', 'close')
        return httpError(res, 413, `content length too large (${declared}>${limit})`)
      }
      if (method !== 'OPTIONS' && !isAcceptedContentType(req.headers['content-type'])) {
        if (declared !== 0) res.setHeader('Connection', 'close')
        return httpError(res, 415, `invalid content type, only ${JSON_TYPE} is supported`)
      }
      readLimited(req, limit, (body, cut) => serve(req, res, body, cut))
    },
  }
}
