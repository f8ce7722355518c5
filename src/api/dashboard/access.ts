/**
 * Who may read the dashboard. The HTTP server's Host filter (src/api/http/host-filter.ts) runs first but can be
 * turned off (`--http-allowed-hosts=*`) and CORS may allow every origin (`--http-allowed-origins`, `*` by
 * default): the dashboard shows the node's internals, so it checks both itself.
 *
 * - Host: an IP literal, `localhost` (or a name under `.localhost`), or a name listed in `--http-allowed-hosts`
 *   (its `*` does not count). A DNS-rebinding page reaches the node under its own name and is refused.
 * - Origin: absent (a browser sends none on a same-origin GET, nor does curl), or the page's own origin
 *   (`http://<Host>` or `https://<Host>`). Any other site's page is refused, whatever CORS allows.
 */
import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'
import { splitHost } from '../http/host-filter.js'

/** The refusal's text, or undefined when the request may read the dashboard. */
export type DashboardAccess = (req: IncomingMessage) => string | undefined

export function dashboardAccess(allowedHosts: readonly string[]): DashboardAccess {
  const named = new Set(allowedHosts.filter((h) => h !== '*').map((h) => h.toLowerCase()))
  const hostAllowed = (hostHeader: string): boolean => {
    const host = (splitHost(hostHeader) ?? hostHeader).toLowerCase()
    const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
    if (isIP(bare) !== 0) return true
    if (bare === 'localhost' || bare.endsWith('.localhost')) return true
    return named.has(bare)
  }
  return (req) => {
    const host = req.headers.host
    if (host === undefined || host === '') return 'a Host header is required'
    if (!hostAllowed(host)) return `host ${JSON.stringify(host)} may not read the dashboard (see --http-allowed-hosts)`
    const origin = req.headers.origin
    if (origin === undefined) return undefined
    const own = origin.toLowerCase()
    if (own === `http://${host.toLowerCase()}` || own === `https://${host.toLowerCase()}`) return undefined
    return `origin ${JSON.stringify(origin)} may not read the dashboard: only the dashboard's own page may`
  }
}
