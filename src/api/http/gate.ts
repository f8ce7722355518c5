/**
 * A chain's routes answer 503 `API call rejected because chain is not done bootstrapping` until the chain is in
 * normal operation (reference node-api.md 1.2): `gateRoute(route, ready)` wraps any route with that check, for
 * plain requests and WebSocket upgrades alike.
 */
import { NOT_BOOTSTRAPPED } from './jsonrpc-route.js'
import { httpError, socketError } from './plain.js'
import type { Route } from './router.js'

export function gateRoute(route: Route, ready: () => boolean): Route {
  if (route.kind === 'jsonrpc') {
    const inner = route.ready
    return { ...route, ready: () => ready() && (inner === undefined || inner()) }
  }
  const upgrade = route.upgrade
  return {
    kind: 'raw',
    handle(req, res) {
      if (!ready()) return httpError(res, 503, NOT_BOOTSTRAPPED)
      route.handle(req, res)
    },
    ...(upgrade === undefined
      ? {}
      : {
          upgrade(req, socket, head) {
            if (!ready()) return socketError(socket, 503, NOT_BOOTSTRAPPED, {})
            upgrade.call(route, req, socket, head)
          },
        }),
  }
}
