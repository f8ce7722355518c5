/**
 * The node's own HTTP routes: `/ext/info` and `/ext/admin` (each behind its flag), the X and P calls avalanchejs's
 * getContextFromURI makes (from the preset's constants, src/api/primary), and the default HTTP aliases the
 * reference sets from genesis: each well-known chain's base `/ext/bc/<id>` also answers at `/ext/<alias>` and
 * `/ext/bc/<alias>` for each of its genesis aliases (reference/node-api.md 1.3).
 */
import { adminService } from '../api/admin/service.js'
import type { Router } from '../api/http/router.js'
import { infoService } from '../api/info/service.js'
import { createJsonRpcEndpoint } from '../api/jsonrpc/service.js'
import { avmService, platformService } from '../api/primary/service.js'
import type { ChainRegistry } from '../chains/registry.js'
import { GENESIS_CHAIN_ALIASES } from '../config/chain-ids.js'
import type { NodeConfig } from '../config/node-config.js'
import type { RpcCallObserver } from '../rpc/call-observer.js'

export interface NodeApiDeps {
  info: Parameters<typeof infoService>[0]
  admin: Parameters<typeof adminService>[0]
  /** an endpoint's JSON-RPC call observer (`info`, `admin`, `X`, `P`), when metrics are on */
  observer?: (endpoint: string) => RpcCallObserver
}

/** `/ext/info`, `/ext/admin` (refused to web pages of untrusted origins) and the X and P context calls. */
export function mountNodeApis(
  router: Router,
  config: NodeConfig,
  chains: ChainRegistry,
  onError: (method: string, err: unknown) => void,
  deps: NodeApiDeps,
): void {
  if (config.api.infoEnabled) {
    router.addRoute('info', '', {
      kind: 'jsonrpc',
      endpoint: createJsonRpcEndpoint([infoService(deps.info)], { onError, observer: deps.observer?.('info') }),
    })
  }
  if (config.api.adminEnabled) {
    router.addRoute('admin', '', {
      kind: 'jsonrpc',
      endpoint: createJsonRpcEndpoint([adminService(deps.admin)], { onError, observer: deps.observer?.('admin') }),
      // web pages of untrusted origins get a 403 (src/api/http/origin-policy.ts)
      untrustedOrigins: 'refuse',
    })
  }
  const primary = { networkId: config.networkId, avaxAssetId: chains.ids.avaxAssetId, fees: config.fees }
  router.addRoute(`bc/${chains.ids.X}`, '', {
    kind: 'jsonrpc',
    endpoint: createJsonRpcEndpoint([avmService(primary)], { onError, observer: deps.observer?.('X') }),
  })
  router.addRoute(`bc/${chains.ids.P}`, '', {
    kind: 'jsonrpc',
    endpoint: createJsonRpcEndpoint([platformService()], { onError, observer: deps.observer?.('P') }),
  })
}

export function registerDefaultAliases(router: Pick<Router, 'addAliases'>, chains: ChainRegistry): void {
  for (const key of ['P', 'X', 'C'] as const) {
    const id = chains.ids[key]
    const aliases = GENESIS_CHAIN_ALIASES[key].flatMap((a) => [a, `bc/${a}`])
    router.addAliases(`bc/${id}`, ...aliases)
  }
}
