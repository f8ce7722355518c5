/**
 * The default HTTP aliases the reference sets from genesis: each well-known chain's base `/ext/bc/<id>` also
 * answers at `/ext/<alias>` and `/ext/bc/<alias>` for each of its genesis aliases (reference/node-api.md 1.3).
 */
import type { Router } from '../api/http/router.js'
import type { ChainRegistry } from '../chains/registry.js'
import { GENESIS_CHAIN_ALIASES } from '../config/chain-ids.js'

export function registerDefaultAliases(router: Pick<Router, 'addAliases'>, chains: ChainRegistry): void {
  for (const key of ['P', 'X', 'C'] as const) {
    const id = chains.ids[key]
    const aliases = GENESIS_CHAIN_ALIASES[key].flatMap((a) => [a, `bc/${a}`])
    router.addAliases(`bc/${id}`, ...aliases)
  }
}
