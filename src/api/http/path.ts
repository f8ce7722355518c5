/**
 * Request paths as Go's net/http and gorilla/mux see them: the path is percent-decoded before routing,
 * and a non-canonical path (`//`, `/./`, `..`) is answered with a 301 to the cleaned path (a trailing
 * slash is kept, so `/ext/info/` stays and is a 404).
 */

export interface RequestTarget {
  /** the decoded path */
  path: string
  /** the raw query without '?', '' when none */
  query: string
}

const HEX_DIGIT = /^[0-9a-fA-F]{2}$/

/** Go's `unescape(s, encodePath)`: `%XX` must be two hex digits; '+' stays '+'. */
function unescapePath(raw: string): string | undefined {
  const bytes: number[] = []
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i)
    if (c === 0x25) {
      const hex = raw.slice(i + 1, i + 3)
      if (!HEX_DIGIT.test(hex)) return undefined
      bytes.push(Number.parseInt(hex, 16))
      i += 2
    } else if (c < 0x80) {
      bytes.push(c)
    } else {
      for (const b of Buffer.from(raw[i]!, 'utf8')) bytes.push(b)
    }
  }
  return Buffer.from(bytes).toString('utf8')
}

/** Split `req.url` (origin-form or absolute-form) into decoded path and raw query; undefined = 400. */
export function parseRequestTarget(url: string): RequestTarget | undefined {
  let rest = url
  if (rest.charCodeAt(0) !== 0x2f) {
    const scheme = /^https?:\/\/[^/?#]*/i.exec(rest)
    if (scheme === null) return undefined
    rest = rest.slice(scheme[0].length)
    if (rest === '' || rest.charCodeAt(0) === 0x3f) rest = '/' + rest
  }
  const q = rest.indexOf('?')
  const rawPath = q === -1 ? rest : rest.slice(0, q)
  const query = q === -1 ? '' : rest.slice(q + 1)
  if (!rawPath.includes('%')) return { path: rawPath, query }
  const path = unescapePath(rawPath)
  return path === undefined ? undefined : { path, query }
}

/** True when `cleanPath` would change the path (the common case is a single cheap scan). */
export function needsCleaning(path: string): boolean {
  if (path.charCodeAt(0) !== 0x2f) return true
  return (
    path.includes('//') || path.includes('/./') || path.includes('/../') || path.endsWith('/.') || path.endsWith('/..')
  )
}

/** gorilla/mux `cleanPath`: Go's `path.Clean` on a rooted path, keeping a trailing slash. */
export function cleanPath(p: string): string {
  if (p === '') return '/'
  const rooted = p.charCodeAt(0) === 0x2f ? p : '/' + p
  const out: string[] = []
  for (const segment of rooted.split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') out.pop()
    else out.push(segment)
  }
  const cleaned = '/' + out.join('/')
  return rooted.endsWith('/') && cleaned !== '/' ? cleaned + '/' : cleaned
}

const PATH_SAFE = /[A-Za-z0-9\-_.~$&+,/:;=@]/

/** Go's `escape(path, encodePath)`: what `url.String()` writes for the Location of the redirect. */
export function escapePath(path: string): string {
  let out = ''
  for (const ch of path) {
    if (ch.length === 1 && PATH_SAFE.test(ch)) {
      out += ch
      continue
    }
    for (const b of Buffer.from(ch, 'utf8')) out += '%' + b.toString(16).toUpperCase().padStart(2, '0')
  }
  return out
}
