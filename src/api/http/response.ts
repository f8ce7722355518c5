/**
 * The server's responses (`createServer`'s `ServerResponse` option): a response can owe headers that every answer
 * to its request carries (node-id and `Vary: Origin`, server.ts) and that go out with its head, whatever writes it.
 *
 * Setting them up front with `setHeader` cost about as much as the rest of a JSON-RPC call's own work: each call
 * validates the name and value and keeps them in the response's header map, and a head written after any
 * `setHeader` goes through that map header by header. A head given whole to `writeHead` as an object, with no
 * header set before, is written straight from that object: owed headers join it there (~1 us per request here,
 * docs/performance.md "Eighth round"). Otherwise (a header set before, a flat list, a handler's header of the same
 * name) they are set the way they were before, and the handler's own headers win.
 */
import { type IncomingMessage, type OutgoingHttpHeaders, ServerResponse } from 'node:http'

export class FirnResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  #owed: Readonly<Record<string, string>> | undefined

  /** `headers` (canonical names) go out with this response's head unless the handler sets its own of that name. */
  owe(headers: Readonly<Record<string, string>>): void {
    this.#owed = headers
  }

  override writeHead(statusCode: number, ...rest: unknown[]): this {
    const owed = this.#owed
    if (owed === undefined) return super.writeHead(statusCode, ...(rest as [OutgoingHttpHeaders]))
    const last = rest[rest.length - 1]
    const given = typeof last === 'object' && last !== null ? (last as OutgoingHttpHeaders | unknown[]) : undefined
    if (!Array.isArray(given) && this.getHeaderNames().length === 0 && !namesAny(given, owed)) {
      // Object.assign, not spreads: a spread after a spread is V8's slow path, property by property
      const head: OutgoingHttpHeaders = Object.assign({}, owed, given)
      const message = typeof rest[0] === 'string' ? rest[0] : undefined
      // a head Node refuses (a bad value) throws before anything is written: the headers stay owed to the next
      if (message === undefined) super.writeHead(statusCode, head)
      else super.writeHead(statusCode, message, head)
      this.#owed = undefined
      return this
    }
    this.#owed = undefined
    for (const name in owed) if (!this.hasHeader(name) && !names(given, name)) this.setHeader(name, owed[name]!)
    return super.writeHead(statusCode, ...(rest as [OutgoingHttpHeaders]))
  }
}

/** Whether `given` (a head object or flat list) names any of `owed`'s headers, in any case. */
function namesAny(given: OutgoingHttpHeaders | unknown[] | undefined, owed: Readonly<Record<string, string>>): boolean {
  for (const name in owed) if (names(given, name)) return true
  return false
}

/** Whether `given` (a head object or flat list) has a header of `name`, in any case. */
function names(given: OutgoingHttpHeaders | unknown[] | undefined, name: string): boolean {
  if (given === undefined) return false
  if (Array.isArray(given)) {
    for (let i = 0; i < given.length; i += 2)
      if (typeof given[i] === 'string' && same(given[i] as string, name)) return true
    return false
  }
  for (const key in given) if (same(key, name)) return true
  return false
}

const same = (a: string, b: string): boolean => a.length === b.length && a.toLowerCase() === b.toLowerCase()
