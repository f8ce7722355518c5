/**
 * Which web pages may drive the node's sensitive APIs. A browser names the page that makes a request in its
 * `Origin` header (always on POST and on WebSocket upgrades); tools such as curl or ethers in Node send none and
 * are not concerned. The trusted origins (`--http-trusted-origins`; under `--dev` the loopback origins by default)
 * are the only pages served by:
 *
 * - routes marked `untrustedOrigins: 'refuse'` (`/ext/admin`, a chain's `/admin`): 403, and CORS allows only them;
 * - every WebSocket upgrade (a page can open a socket to any origin: CORS does not apply);
 * - the account and debug methods of a chain's HTTP `/rpc` (`personal_*`, `debug_*`, `eth_accounts`,
 *   `eth_sendTransaction`, `eth_sign`, `eth_signTransaction`): a page of another origin reaches the route marked
 *   `untrustedOrigins: <route>`, a twin whose sensitive methods answer an error (`restrictEthMethods`);
 * - the actor inspector (src/node/inspector.ts).
 *
 * Patterns follow rs/cors as `--http-allowed-origins` does: exact origins, one `*` wildcard each
 * (`http://localhost:*`), `*` alone for every origin; compared case-insensitively.
 */
import type { MethodTable } from '../../rpc/eth-types.js'
import { FirnError } from '../../runtime/errors.js'

/** `--dev`'s default trusted origins: pages served from this machine's loopback names, on any port. */
export const LOOPBACK_ORIGINS: readonly string[] = [
  'http://localhost',
  'http://localhost:*',
  'http://127.0.0.1',
  'http://127.0.0.1:*',
  'http://[::1]',
  'http://[::1]:*',
]

/** gorilla/websocket's answer to an upgrade whose origin its CheckOrigin refuses (geth's `--ws.origins`). */
export const WS_ORIGIN_REFUSED = 'websocket: request origin not allowed by Upgrader.CheckOrigin'

export const originRefused = (origin: string): string =>
  `origin ${origin} is not allowed to use this API (see --http-trusted-origins)`

/** True when `patterns` let every origin through (`*`, or an empty list as rs/cors reads it). */
export const allowsEveryOrigin = (patterns: readonly string[]): boolean =>
  patterns.length === 0 || patterns.includes('*')

/** rs/cors' origin check over `patterns`. */
export function originMatcher(patterns: readonly string[]): (origin: string) => boolean {
  if (allowsEveryOrigin(patterns)) return () => true
  const lowered = patterns.map((o) => o.toLowerCase())
  const exact = new Set(lowered.filter((o) => !o.includes('*')))
  const wildcards = lowered
    .filter((o) => o.includes('*'))
    .map((o) => {
      const star = o.indexOf('*')
      return { prefix: o.slice(0, star), suffix: o.slice(star + 1) }
    })
  return (origin) => {
    const o = origin.toLowerCase()
    if (exact.has(o)) return true
    return wildcards.some(
      (w) => o.length >= w.prefix.length + w.suffix.length && o.startsWith(w.prefix) && o.endsWith(w.suffix),
    )
  }
}

const ACCOUNT_METHODS = new Set(['eth_accounts', 'eth_sendTransaction', 'eth_sign', 'eth_signTransaction'])
const SENSITIVE_NAMESPACES = ['personal_', 'debug_', 'admin_']

/** The methods a page of an untrusted origin may not call: unlocked keys, tracing, administration. */
export const isSensitiveEthMethod = (name: string): boolean =>
  ACCOUNT_METHODS.has(name) || SENSITIVE_NAMESPACES.some((ns) => name.startsWith(ns))

/** `methods` with every sensitive method answering an error instead (the table pages of other origins get). */
export function restrictEthMethods(methods: MethodTable): MethodTable {
  const out = new Map(methods)
  for (const name of methods.keys()) {
    if (!isSensitiveEthMethod(name)) continue
    out.set(name, () => {
      throw new FirnError(
        `${name} is not available to web pages of other origins: this request's Origin is not in --http-trusted-origins`,
      )
    })
  }
  return out
}
