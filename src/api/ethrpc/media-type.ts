/**
 * geth's Content-Type rule (rpc/http.go `validateRequest`): Go's `mime.ParseMediaType` must succeed and
 * the lower-cased media type must be one of `application/json`, `application/json-rpc`,
 * `application/jsonrequest`. Parameters are only checked for syntax and duplicates, as Go does.
 */

const ACCEPTED: ReadonlySet<string> = new Set(['application/json', 'application/json-rpc', 'application/jsonrequest'])
const TSPECIALS = '()<>@,;:\\"/[]?='

const isTokenChar = (ch: string): boolean => {
  const c = ch.charCodeAt(0)
  return c > 0x20 && c < 0x7f && !TSPECIALS.includes(ch)
}

/** Index of the first non-token character at or after `i` (Go's `consumeToken`). */
function tokenEnd(v: string, i: number): number {
  while (i < v.length && isTokenChar(v[i]!)) i++
  return i
}

const SPACE = /^\s*/
const skipSpace = (v: string, i: number): number => i + (SPACE.exec(v.slice(i))?.[0].length ?? 0)

/** Go's `consumeValue` from `i`: the index after a token or quoted string, or -1 when there is none. */
function valueEnd(v: string, i: number): number {
  if (v[i] !== '"') {
    const end = tokenEnd(v, i)
    return end === i ? -1 : end
  }
  for (let j = i + 1; j < v.length; j++) {
    const ch = v[j]!
    if (ch === '"') return j + 1
    if (ch === '\\' && j + 1 < v.length && TSPECIALS.includes(v[j + 1]!)) j++
    else if (ch === '\r' || ch === '\n') return -1
  }
  return -1
}

/** The media type (lower case) when Go's `mime.ParseMediaType` accepts `header`, else undefined. */
export function parseMediaType(header: string): string | undefined {
  const semi = header.indexOf(';')
  const base = semi === -1 ? header : header.slice(0, semi)
  const mediaType = base.toLowerCase().trim()
  const typeEnd = tokenEnd(mediaType, 0)
  if (typeEnd === 0) return undefined
  if (typeEnd < mediaType.length) {
    if (mediaType[typeEnd] !== '/') return undefined
    const subEnd = tokenEnd(mediaType, typeEnd + 1)
    if (subEnd === typeEnd + 1 || subEnd !== mediaType.length) return undefined
  }
  const seen = new Set<string>()
  let i = base.length
  for (;;) {
    i = skipSpace(header, i)
    if (i >= header.length) return mediaType
    // `;` name `=` value
    const start = i
    let ok = header[i] === ';'
    let name = ''
    if (ok) {
      const nameStart = skipSpace(header, i + 1)
      const nameEnd = tokenEnd(header, nameStart)
      name = header.slice(nameStart, nameEnd).toLowerCase()
      i = skipSpace(header, nameEnd)
      ok = name !== '' && header[i] === '='
      if (ok) {
        const end = valueEnd(header, skipSpace(header, i + 1))
        ok = end !== -1
        i = end
      }
    }
    if (!ok) return header.slice(start).trim() === ';' ? mediaType : undefined
    if (seen.has(name)) return undefined
    seen.add(name)
  }
}

export const isAcceptedContentType = (header: string | undefined): boolean => {
  const mediaType = parseMediaType(header ?? '')
  return mediaType !== undefined && ACCEPTED.has(mediaType)
}
