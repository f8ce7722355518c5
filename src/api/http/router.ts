/**
 * The route table with the reference's API aliases (avalanchego `api/server/router.go`, node-api.md 1.3).
 * A route is `/ext/<base>` + endpoint suffix, matched exactly and case-sensitively. An alias `/ext/<a>`
 * serves every endpoint of its base, existing and added later (aliases of aliases too). Only names already
 * used as aliases are reserved. Errors are `FirnError`s with the reference's texts, so `admin.alias` can
 * return them as they are; like the reference, a failing call keeps the changes made before the failure.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { FirnError } from '../../runtime/errors.js'
import type { JsonRpcEndpoint } from '../jsonrpc/service.js'

/**
 * What a request from a web page of an untrusted origin gets (src/api/http/origin-policy.ts): `'refuse'` is a 403
 * (and CORS allows only the trusted origins), a route serves it instead; absent, the route serves every origin.
 */
export interface OriginGuard {
  untrustedOrigins?: 'refuse' | Route
}

/** A JSON-RPC endpoint: POST only, `application/json` only, answered with 503 while `ready()` is false. */
export interface JsonRpcRoute extends OriginGuard {
  kind: 'jsonrpc'
  endpoint: JsonRpcEndpoint
  ready?: () => boolean
  /** body cap for this route; the server's `maxBodyBytes` when absent */
  maxBodyBytes?: number
  /** answers GET instead of the 405 (`/ext/health` serves its report on GET, JSON-RPC on POST) */
  get?: (req: IncomingMessage, res: ServerResponse) => void
}

/** Anything else (health, metrics, WebSocket): the handler owns the request, `upgrade` the raw socket. */
export interface RawRoute extends OriginGuard {
  kind: 'raw'
  handle(req: IncomingMessage, res: ServerResponse): void
  upgrade?(req: IncomingMessage, socket: Duplex, head: Buffer): void
}

export type Route = JsonRpcRoute | RawRoute

const EXT = '/ext/'

/** Wraps each route as it is added (`addRoute`), by its base (`info`, `bc/<chainID>`): the API metrics. */
export type RouteWrapper = (base: string, route: Route) => Route

export class Router {
  readonly #wrap: RouteWrapper | undefined

  constructor(wrap?: RouteWrapper) {
    this.#wrap = wrap
  }

  /** alias urls that can no longer be used as aliases or real bases */
  readonly #reserved = new Set<string>()
  /** base url -> its alias urls */
  readonly #aliases = new Map<string, string[]>()
  /** base url -> endpoint suffix -> route */
  readonly #routes = new Map<string, Map<string, Route>>()
  /** full path -> route (first registration of a path wins, like gorilla/mux) */
  readonly #byPath = new Map<string, Route>()
  /** base url (and its aliases) -> the route of every path under it that has no route of its own */
  readonly #fallbacks = new Map<string, Route>()

  /** `addRoute('info', '', route)` serves `/ext/info`; `addRoute('bc/<id>', '/ws', route)` `/ext/bc/<id>/ws`. */
  addRoute(base: string, endpoint: string, route: Route): void {
    const url = EXT + base
    if (this.#reserved.has(url)) throw alreadyReserved(url)
    const err = this.#forceAdd(url, endpoint, this.#wrap === undefined ? route : this.#wrap(base, route))
    if (err) throw err
  }

  /** `addAliases('bc/<C id>', 'C', 'bc/C')`: `/ext/C...` and `/ext/bc/C...` serve what `/ext/bc/<C id>...` serves. */
  addAliases(base: string, ...aliases: string[]): void {
    const url = EXT + base
    const aliasUrls = aliases.map((alias) => EXT + alias)
    for (const alias of aliasUrls) if (this.#reserved.has(alias)) throw alreadyReserved(alias)
    for (const alias of aliasUrls) this.#reserved.add(alias)
    this.#aliases.set(url, [...(this.#aliases.get(url) ?? []), ...aliasUrls])
    const fallback = this.#fallbacks.get(url)
    if (fallback !== undefined) for (const alias of aliasUrls) this.#fallbacks.set(alias, fallback)
    let err: FirnError | undefined
    for (const [endpoint, route] of this.#routes.get(url) ?? []) {
      for (const alias of aliasUrls) {
        const e = this.#forceAdd(alias, endpoint, route)
        err ??= e
      }
    }
    if (err) throw err
  }

  /**
   * `setFallback('bc/<id>', route)`: every path under `/ext/bc/<id>/` (and under its aliases, existing and added
   * later) that has no route of its own goes to `route`: a chain that cannot serve yet answers why, whatever
   * endpoint its VM will serve. Replaces an earlier fallback of the base.
   */
  setFallback(base: string, route: Route): void {
    const url = EXT + base
    this.#fallbacks.set(url, route)
    for (const alias of this.#aliasesOf(url)) this.#fallbacks.set(alias, route)
  }

  /** The route serving an exact (already cleaned) path, else the fallback of the nearest base above it. */
  resolve(path: string): Route | undefined {
    const exact = this.#byPath.get(path)
    if (exact !== undefined || this.#fallbacks.size === 0) return exact
    for (let cut = path.length; cut > EXT.length; cut = path.lastIndexOf('/', cut - 1)) {
      const fallback = this.#fallbacks.get(path.slice(0, cut))
      if (fallback !== undefined) return fallback
    }
    return undefined
  }

  /** every alias url of a base url, aliases of aliases included */
  #aliasesOf(url: string): string[] {
    const out: string[] = []
    for (const alias of this.#aliases.get(url) ?? []) out.push(alias, ...this.#aliasesOf(alias))
    return out
  }

  #forceAdd(base: string, endpoint: string, route: Route): FirnError | undefined {
    const endpoints = this.#routes.get(base) ?? new Map<string, Route>()
    const path = base + endpoint
    if (endpoints.has(endpoint)) return new FirnError(`failed to create endpoint as ${path} already exists`)
    endpoints.set(endpoint, route)
    this.#routes.set(base, endpoints)
    if (!this.#byPath.has(path)) this.#byPath.set(path, route)
    let err: FirnError | undefined
    for (const alias of this.#aliases.get(base) ?? []) {
      const e = this.#forceAdd(alias, endpoint, route)
      err ??= e
    }
    return err
  }
}

const alreadyReserved = (url: string): FirnError =>
  new FirnError(`route is either already aliased or already maps to a handle: ${url}`)
