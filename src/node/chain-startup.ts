/**
 * The start-up steps of the chains the node runs (the composition root calls them in its build order): the local
 * presets' shared-memory seed, each declared chain's routes (503 with why until its VM hands its handlers over),
 * and the wait for every chain whose VM is installed to open before the node serves.
 */
import { hexToBytes } from '@ethereumjs/util'
import { type AnyActorRef, waitFor } from 'xstate'
import { SystemId } from '../../actors/system-ids.js'
import { type ChainRoutes, chainRoutes } from '../api/chain-routes.js'
import type { Router } from '../api/http/router.js'
import { genesisUtxoElements } from '../chains/evm/atomic/genesis-utxos.js'
import { toHex } from '../chains/evm/atomic/hex.js'
import { presetXUtxos } from '../chains/evm/atomic/preset-utxos.js'
import { shortAddressOfKey } from '../chains/evm/atomic/sign.js'
import { EWOQ_PRIVATE_KEY } from '../chains/evm/rules/presets.js'
import type { DeclaredChain, GenesisAtomicUtxos } from '../chains/genesis/load.js'
import { type ChainEntry, ChainRegistry } from '../chains/registry.js'
import { seedOnce } from '../chains/shared-memory/seed.js'
import { SharedMemory } from '../chains/shared-memory/shared-memory.js'
import type { VmRegistry } from '../chains/vm-registry.js'
import { type ChainIds, chainIds } from '../config/chain-ids.js'
import { NetworkId } from '../config/networks.js'
import type { NodeConfig } from '../config/node-config.js'
import type { Database } from '../db/open.js'
import { idFromString } from '../identity/ids.js'
import type { Logger } from '../log/logger.js'
import type { RpcCallObserver } from '../rpc/call-observer.js'
import type { ClientRateLimiter } from '../rpc/client-quota.js'

export interface DeclaredEntry {
  declared: DeclaredChain
  entry: ChainEntry
}

/** The local presets start with X -> C UTXOs of the test key (src/chains/evm/atomic/preset-utxos.ts), once. */
export async function seedPresetSharedMemory(
  memory: SharedMemory,
  networkId: number,
  ids: ChainIds,
  log: Logger,
): Promise<void> {
  if (networkId === NetworkId.mainnet || networkId === NetworkId.fuji) return
  const owner = shortAddressOfKey(hexToBytes(`0x${EWOQ_PRIVATE_KEY}`))
  const elements = presetXUtxos(toHex(idFromString(ids.avaxAssetId)), owner)
  if (await seedOnce(memory, ids.X, ids.C, elements)) {
    log.info('shared memory seeded', { source: 'X', destination: 'C', utxos: elements.length })
  }
}

/** The marker of the genesis file's seeding (src/chains/shared-memory/seed.ts), apart from the presets' one. */
export const GENESIS_SEED_TAG = 'genesis-file'

/**
 * The genesis file's `atomicUtxos` (src/chains/genesis/atomic-utxos.ts): each chain pair seeded once in the life of
 * the data dir (a later change to the list does not seed again: the log says so).
 */
export async function seedGenesisSharedMemory(
  memory: SharedMemory,
  entries: readonly GenesisAtomicUtxos[] | undefined,
  ids: ChainIds,
  log: Logger,
): Promise<void> {
  if (entries === undefined || entries.length === 0) return
  const asset = toHex(idFromString(ids.avaxAssetId))
  for (const g of genesisUtxoElements(entries, asset)) {
    const pair = { source: g.sourceChain, destination: g.destinationChain, utxos: g.elements.length }
    if (await seedOnce(memory, g.sourceChain, g.destinationChain, g.elements, GENESIS_SEED_TAG)) {
      log.info('shared memory seeded from the genesis file', pair)
    } else {
      log.info('shared memory was seeded from the genesis file at an earlier start: not again', pair)
    }
  }
}

/** Each declared chain's base `/ext/bc/<chainID>` (and `/ext/bc/<name>`), answering 503 with why until mounted. */
export function declareChainRoutes(
  router: Router,
  entries: readonly DeclaredEntry[],
  deps: {
    ids: ChainIds
    chainState: (chainId: string) => { value: string; context: { error: string | null } } | undefined
    log: Logger
    onError: (method: string, err: unknown) => void
    /** the call observer of one endpoint (`C/rpc`; `evmChain`: the alias, for geth-style endpoints), with metrics */
    observer?: ((endpoint: string, evmChain: string | undefined) => RpcCallObserver) | undefined
    /** the HTTP server's per-client request rate, applied to WebSocket messages too */
    rateLimiter?: ClientRateLimiter | undefined
  },
): Map<string, ChainRoutes> {
  const routes = new Map<string, ChainRoutes>()
  const primary = [deps.ids.P, deps.ids.X, deps.ids.C]
  for (const { declared: d, entry } of entries) {
    if (!primary.includes(entry.chainId) && entry.alias !== entry.chainId) {
      router.addAliases(`bc/${entry.chainId}`, `bc/${entry.alias}`)
    }
    const unavailable = () => {
      const state = deps.chainState(entry.chainId)
      if (state?.value === 'waitingForVm') {
        return `chain ${entry.alias} is waiting for its VM "${d.vm}", which is not installed: add it to the plugin directory and call admin.loadVMs`
      }
      if (state?.value === 'failed') return `chain ${entry.alias} failed: ${state.context.error ?? 'unknown error'}`
      return null
    }
    const base = `bc/${entry.chainId}`
    const observe = deps.observer
    const observer =
      observe === undefined
        ? undefined
        : (path: string, dialect: 'eth' | 'jsonrpc') =>
            observe(entry.alias + path, dialect === 'eth' ? entry.alias : undefined)
    const { log, onError, rateLimiter } = deps
    routes.set(entry.chainId, chainRoutes(router, { base, unavailable, log, onError, observer, rateLimiter }))
  }
  return routes
}

/** Waits until every chain whose VM is installed has opened; one that failed is a start-up error. */
export async function awaitInstalledChains(
  entries: readonly DeclaredEntry[],
  vms: VmRegistry,
  system: { get(id: string): AnyActorRef | undefined },
  log: Logger,
): Promise<void> {
  for (const { declared: d, entry } of entries) {
    if (vms.resolveAlias(d.vm) === undefined) {
      log.warn('chain waits for its VM', { chain: entry.alias, vm: d.vm })
      continue
    }
    const ref = system.get(SystemId.chain(entry.alias))
    if (ref === undefined) continue
    const settled = await waitFor(ref, (snap) => !['waitingForVm', 'initializing'].includes(String(snap.value)), {
      timeout: Number.POSITIVE_INFINITY,
    })
    if (settled.value === 'failed') {
      throw new Error(`chain ${entry.alias}: ${(settled.context as { error: string | null }).error ?? 'failed'}`)
    }
  }
}

/**
 * Every chain the node runs, declared by the network genesis (the preset's, or --genesis-file's): C first, each
 * in the registry with its declared name as primary alias (before any alias of --chain-aliases-file); and the
 * shared memory between them, seeded with the presets' and the genesis file's UTXOs (once per database).
 */
export async function declareChains(
  config: NodeConfig,
  db: Database,
  log: Logger,
): Promise<{ chains: ChainRegistry; entries: DeclaredEntry[]; sharedMemory: SharedMemory }> {
  const declared = config.genesis.chains
  const chains = new ChainRegistry(chainIds(config.networkId))
  for (const d of declared)
    if (chains.aliaser.tryLookup(d.alias) === undefined) chains.aliaser.alias(d.chainId, d.alias)
  await chains.loadAliasesFile(config.chainAliasesFile, config.chainAliasesFileExplicit)
  const entries = declared.map((d) => ({ declared: d, entry: chains.create(d.chainId, d.vm) }))
  const sharedMemory = new SharedMemory(db)
  await seedPresetSharedMemory(sharedMemory, config.networkId, chains.ids, log)
  await seedGenesisSharedMemory(sharedMemory, config.genesis.atomicUtxos, chains.ids, log)
  return { chains, entries, sharedMemory }
}
