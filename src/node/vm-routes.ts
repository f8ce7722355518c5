/**
 * A chain VM's handlers as HTTP routes under `/ext/bc/<chain>` (the VM hands them over, src/api only serves them):
 * an `eth` handler at `/ws` is geth's WebSocket server, at any other path geth's HTTP server, both with the VM's
 * server limits; a `jsonrpc` handler is a node-API (gorilla) endpoint. Every route answers 503 while the chain is
 * not in normal operation (`ready`). Returns what closes the routes' own connections (WebSockets).
 */
import { createEthRpcRoute, createEthWsRoute, type EthRpcLog } from '../api/ethrpc/index.js'
import { gateRoute } from '../api/http/gate.js'
import type { Router } from '../api/http/router.js'
import { createJsonRpcEndpoint } from '../api/jsonrpc/service.js'
import type { VmHandler } from '../chains/vm.js'

export interface VmRouteOptions {
  /** false while the chain is not in normal operation: every route answers 503 (the reference's text) */
  ready?: () => boolean
  onError?: (method: string, err: unknown) => void
  /** the chain's log (the eth servers' debug lines) */
  log?: EthRpcLog
}

export function registerVmRoutes(
  router: Router,
  chainId: string,
  handlers: Record<string, VmHandler>,
  opts: VmRouteOptions = {},
): () => void {
  const base = `bc/${chainId}`
  const ready = opts.ready ?? (() => true)
  const closers: (() => void)[] = []
  for (const [path, h] of Object.entries(handlers)) {
    if (h.kind === 'eth') {
      const options = { ...h.handlers, ...h.limits, ...(opts.log === undefined ? {} : { log: opts.log }) }
      if (path === '/ws') {
        const ws = createEthWsRoute(options)
        closers.push(() => ws.close())
        router.addRoute(base, path, gateRoute(ws, ready))
      } else {
        router.addRoute(base, path, gateRoute(createEthRpcRoute(options), ready))
      }
    } else {
      const endpoint = createJsonRpcEndpoint(h.services, {
        ...(h.underscoreNames === undefined ? {} : { underscoreNames: h.underscoreNames }),
        ...(opts.onError === undefined ? {} : { onError: opts.onError }),
      })
      router.addRoute(base, path, { kind: 'jsonrpc', endpoint, ready })
    }
  }
  return () => {
    for (const close of closers) close()
  }
}
