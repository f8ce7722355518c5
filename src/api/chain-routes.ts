/**
 * A chain's routes under `/ext/bc/<chainID>` (and the aliases the router gives that base). The HTTP layer only
 * routes to what the chain's VM hands over (`ChainVm.createHandlers`, src/chains/vm.ts), as the reference's chain
 * manager mounts a VM's `CreateHandlers`:
 *
 * - `kind: 'eth'`: geth's dialect; an endpoint named `/ws` is the WebSocket server, any other the HTTP one;
 * - `kind: 'jsonrpc'`: the node APIs' (gorilla) dialect, `underscoreNames` for `admin_startCPUProfiler` style names.
 *
 * Pages of untrusted origins (src/api/http/origin-policy.ts) get a twin of the HTTP eth endpoint whose account and
 * debug methods answer an error, and a 403 from an endpoint named `/admin`.
 *
 * Every endpoint answers 503 `API call rejected because chain is not done bootstrapping` until the chain is in
 * normal operation. Before the VM has handed anything over (its VM is not installed, or the chain is still
 * opening or failed), the base's fallback answers every path with 503 and the reason; once mounted, a path the VM
 * does not serve is a 404 as anywhere else.
 */
import type { VmHandler } from '../chains/vm.js'
import type { RpcCallObserver } from '../rpc/call-observer.js'
import type { ClientRateLimiter } from '../rpc/client-quota.js'
import { createEthRpcRoute, createEthWsRoute, type EthRpcLog, type EthWsRoute } from './ethrpc/index.js'
import { gateRoute } from './http/gate.js'
import { NOT_BOOTSTRAPPED } from './http/jsonrpc-route.js'
import { restrictEthMethods } from './http/origin-policy.js'
import { httpError, socketError } from './http/plain.js'
import type { RawRoute, Router } from './http/router.js'
import { createJsonRpcEndpoint } from './jsonrpc/service.js'

const NOT_FOUND = '404 page not found'

export interface ChainRoutes {
  /** mounts the VM's handlers (once); false while the chain is not in normal operation answers 503 */
  mount(handlers: Record<string, VmHandler>, ready: () => boolean): void
  /** closes the WebSocket connections it serves */
  close(): void
}

export interface ChainRoutesOptions {
  /** `bc/<chainID>` */
  base: string
  /** why the chain serves nothing yet (the 503's text); null: the reference's "not done bootstrapping" */
  unavailable: () => string | null
  log: EthRpcLog
  onError?: (method: string, err: unknown) => void
  /** the call observer of the endpoint at `path` (`/rpc`) in its dialect, when the node keeps metrics */
  observer?: ((path: string, dialect: 'eth' | 'jsonrpc') => RpcCallObserver) | undefined
  /** the node's per-client request rate, for WebSocket messages */
  rateLimiter?: ClientRateLimiter | undefined
}

export function chainRoutes(router: Router, opts: ChainRoutesOptions): ChainRoutes {
  const sockets: EthWsRoute[] = []
  let mounted = false
  // before the VM's handlers are mounted every path answers 503 with the reason; after, an unknown path is a 404
  const answer = (): [number, string] => (mounted ? [404, NOT_FOUND] : [503, opts.unavailable() ?? NOT_BOOTSTRAPPED])
  const fallback: RawRoute = {
    kind: 'raw',
    handle(_req, res) {
      httpError(res, ...answer())
    },
    upgrade(_req, socket) {
      const [status, text] = answer()
      socketError(socket, status, text, {})
    },
  }
  router.setFallback(opts.base, fallback)
  return {
    mount(handlers, ready) {
      if (mounted) throw new Error(`${opts.base} is mounted already`)
      mounted = true
      for (const [path, handler] of Object.entries(handlers)) {
        if (!path.startsWith('/') || path.length < 2) throw new Error(`a VM endpoint must be named /<name>: ${path}`)
        if (handler.kind === 'eth') {
          const options = {
            ...handler.handlers,
            ...handler.limits,
            log: opts.log,
            observer: opts.observer?.(path, 'eth'),
            rateLimiter: opts.rateLimiter,
          }
          if (path === '/ws') {
            const ws = createEthWsRoute(options)
            sockets.push(ws)
            router.addRoute(opts.base, path, gateRoute(ws, ready))
          } else {
            const restricted = { ...options, methods: restrictEthMethods(options.methods) }
            const untrustedOrigins = gateRoute(createEthRpcRoute(restricted), ready)
            router.addRoute(opts.base, path, { ...gateRoute(createEthRpcRoute(options), ready), untrustedOrigins })
          }
        } else {
          const endpoint = createJsonRpcEndpoint(handler.services, {
            underscoreNames: handler.underscoreNames === true,
            observer: opts.observer?.(path, 'jsonrpc'),
            ...(opts.onError === undefined ? {} : { onError: opts.onError }),
          })
          const guard = path === '/admin' ? { untrustedOrigins: 'refuse' as const } : {}
          router.addRoute(opts.base, path, { kind: 'jsonrpc', endpoint, ready, ...guard })
        }
      }
    },
    close() {
      for (const ws of sockets.splice(0)) ws.close()
    },
  }
}
