/**
 * CORS as rs/cors v1.7.0 with the reference's options (AllowedOrigins from `--http-allowed-origins`,
 * AllowCredentials on, default methods GET/POST/HEAD, default headers Origin, Accept, Content-Type,
 * X-Requested-With). A preflight (OPTIONS + Access-Control-Request-Method) is answered here with 200.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { allowsEveryOrigin, originMatcher } from './origin-policy.js'

const ALLOWED_METHODS = new Set(['GET', 'POST', 'HEAD', 'OPTIONS'])
const ALLOWED_HEADERS = new Set(['Origin', 'Accept', 'Content-Type', 'X-Requested-With'])
const PREFLIGHT_VARY = ['Origin', 'Access-Control-Request-Method', 'Access-Control-Request-Headers']

/** rs/cors `parseHeaderList`: split at ' ' and ',', keep [A-Za-z0-9_-], canonicalise the case. */
function parseHeaderList(list: string): string[] {
  const headers: string[] = []
  let h = ''
  let upper = true
  for (let i = 0; i < list.length; i++) {
    const b = list[i]!
    if (/[a-zA-Z]/.test(b)) h += upper ? b.toUpperCase() : b.toLowerCase()
    else if (/[-_0-9]/.test(b)) h += b
    if (b === ' ' || b === ',' || i === list.length - 1) {
      if (h.length > 0) headers.push(h)
      h = ''
      upper = true
    } else {
      upper = b === '-' || b === '_'
    }
  }
  return headers
}

export interface Cors {
  /** Adds the CORS headers; returns true when the request was a preflight and has been answered. */
  apply(req: IncomingMessage, res: ServerResponse): boolean
}

export function createCors(allowedOrigins: readonly string[]): Cors {
  const allowAll = allowsEveryOrigin(allowedOrigins)
  const originAllowed = originMatcher(allowedOrigins)
  const allowOrigin = (res: ServerResponse, origin: string): void => {
    res.setHeader('Access-Control-Allow-Origin', allowAll ? '*' : origin)
  }

  const preflight = (req: IncomingMessage, res: ServerResponse, requestMethod: string): void => {
    res.setHeader('Vary', PREFLIGHT_VARY)
    const origin = req.headers.origin
    const method = requestMethod.toUpperCase()
    if (origin && originAllowed(origin) && ALLOWED_METHODS.has(method)) {
      const requested = parseHeaderList(req.headers['access-control-request-headers'] ?? '')
      if (requested.every((h) => ALLOWED_HEADERS.has(h))) {
        allowOrigin(res, origin)
        res.setHeader('Access-Control-Allow-Methods', method)
        if (requested.length > 0) res.setHeader('Access-Control-Allow-Headers', requested.join(', '))
        res.setHeader('Access-Control-Allow-Credentials', 'true')
      }
    }
    res.writeHead(200, { 'Content-Length': '0' })
    res.end()
  }

  return {
    apply(req, res) {
      const requestMethod = req.headers['access-control-request-method']
      if (req.method === 'OPTIONS' && requestMethod) {
        preflight(req, res, requestMethod)
        return true
      }
      res.setHeader('Vary', 'Origin')
      const origin = req.headers.origin
      if (origin && originAllowed(origin) && ALLOWED_METHODS.has(req.method ?? '')) {
        allowOrigin(res, origin)
        res.setHeader('Access-Control-Allow-Credentials', 'true')
      }
      return false
    },
  }
}
