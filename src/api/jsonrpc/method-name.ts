/**
 * Method names as the reference resolves them: avalanchego's codec upper-cases the first character after
 * the first '.' (and rejects an upper-case one), then gorilla's service map splits the result at every
 * '.' and looks up service and method. Error texts are copied from both.
 */
import { goQuote } from './go-text.js'

export const UPPERCASE_METHOD_ERROR = 'method must start with a non-uppercase letter'

const UPPER = /^\p{Lu}$/u

export type GoMethodName = { ok: true; name: string } | { ok: false; message: string }

/** `info.getNodeID` -> `info.GetNodeID`; names without a dot, or with nothing after it, pass unchanged. */
export function goMethodName(requested: string): GoMethodName {
  const dot = requested.indexOf('.')
  if (dot === -1) return { ok: true, name: requested }
  const cp = requested.codePointAt(dot + 1)
  // an empty function part, or U+FFFD (how an invalid UTF-8 byte decodes), is left alone, as Go does
  if (cp === undefined || cp === 0xfffd) return { ok: true, name: requested }
  const ch = String.fromCodePoint(cp)
  if (UPPER.test(ch)) return { ok: false, message: UPPERCASE_METHOD_ERROR }
  const upper = ch.toUpperCase()
  // Go's unicode.ToUpper maps one rune to one rune; a multi-character upper case (ß -> SS) stays as is
  const first = [...upper].length === 1 ? upper : ch
  return { ok: true, name: requested.slice(0, dot + 1) + first + requested.slice(dot + 1 + ch.length) }
}

export type MethodLookup<M> = { ok: true; name: string; method: M } | { ok: false; message: string }

/** Full resolution: name rules, then service and method lookup (service names are case-sensitive). */
export function resolveMethod<M>(
  requested: string,
  services: ReadonlyMap<string, ReadonlyMap<string, M>>,
): MethodLookup<M> {
  const goName = goMethodName(requested)
  if (!goName.ok) return goName
  const name = goName.name
  const dot = name.indexOf('.')
  if (dot === -1 || name.indexOf('.', dot + 1) !== -1) {
    return { ok: false, message: `rpc: service/method request ill-formed: ${goQuote(name)}` }
  }
  const service = services.get(name.slice(0, dot))
  if (service === undefined) return { ok: false, message: `rpc: can't find service ${goQuote(name)}` }
  const method = service.get(name.slice(dot + 1))
  if (method === undefined) return { ok: false, message: `rpc: can't find method ${goQuote(name)}` }
  return { ok: true, name, method }
}
