/**
 * The Host filter against DNS rebinding (avalanchego `api/server/allowed_hosts.go`): `*` disables it; an
 * empty Host or an IP literal is always accepted; otherwise the hostname (port dropped with Go's
 * `net.SplitHostPort` rules) is compared case-insensitively with the allowed list.
 */
import { isIP } from 'node:net'

/** Go's `net.SplitHostPort` host part, or undefined where Go returns an error. */
export function splitHost(hostport: string): string | undefined {
  const colon = hostport.lastIndexOf(':')
  if (colon < 0) return undefined
  let host: string
  let j = 0
  let k = 0
  if (hostport[0] === '[') {
    const end = hostport.indexOf(']')
    if (end < 0 || end + 1 !== colon) return undefined
    host = hostport.slice(1, end)
    j = 1
    k = end + 1
  } else {
    host = hostport.slice(0, colon)
    if (host.includes(':')) return undefined
  }
  if (hostport.indexOf('[', j) >= 0 || hostport.indexOf(']', k) >= 0) return undefined
  return host
}

/** Go's `net.ParseIP` != nil: dotted IPv4 or IPv6 without a zone. */
const isIpLiteral = (host: string): boolean => !host.includes('%') && isIP(host) !== 0

/** Returns a predicate over the Host header value. */
export function createHostFilter(allowedHosts: readonly string[]): (host: string | undefined) => boolean {
  if (allowedHosts.includes('*')) return () => true
  const allowed = new Set(allowedHosts.map((h) => h.toLowerCase()))
  return (hostHeader) => {
    if (!hostHeader) return true
    const host = splitHost(hostHeader) ?? hostHeader
    return isIpLiteral(host) || allowed.has(host.toLowerCase())
  }
}
