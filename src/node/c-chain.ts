/**
 * The C chain's part of the composition root: its config file, its VM over the chain's sublevel, its JSON-RPC
 * routes (`/rpc`, `/ws`, and `/admin` when the config enables it) and the block producer the chain actor starts
 * in normalOp when this node is the only validator. A bad config file is a start-up error.
 */
import { join } from 'node:path'
import type { AnyActorRef } from 'xstate'
import { SystemId } from '../../actors/system-ids.js'
import { createEthRpcRoute, createEthWsRoute, type EthWsRoute } from '../api/ethrpc/index.js'
import { gateRoute } from '../api/http/gate.js'
import type { Router } from '../api/http/router.js'
import { createJsonRpcEndpoint } from '../api/jsonrpc/service.js'
import { parseEvmLogLevel } from '../chains/evm/api/admin.js'
import { checkServiceNames, DEV_EXTRA_SERVICES } from '../chains/evm/api/apis.js'
import type { SubmitTransaction } from '../chains/evm/api/backend.js'
import { createEvmHandlers, type EvmHandlers } from '../chains/evm/api/handlers.js'
import { DEFAULT_ETH_APIS } from '../chains/evm/config/keys.js'
import { type EvmConfig, evmConfigToVmConfig, loadEvmConfig, resolveEthApis } from '../chains/evm/config.js'
import { Keystore } from '../chains/evm/keystore/keystore.js'
import { BlockProducer } from '../chains/evm/producer.js'
import { evmPreset } from '../chains/evm/rules/presets.js'
import type { ChainDb } from '../chains/evm/store/chain-store.js'
import { EvmVm } from '../chains/evm/vm.js'
import type { NodeConfig } from '../config/node-config.js'
import { SEMVER } from '../config/version.js'
import type { Database } from '../db/open.js'
import { Sublevel } from '../db/sublevels.js'
import type { LogManager } from '../log/logger.js'
import type { AskStatsSink } from '../runtime/ask.js'

export interface CChain {
  readonly vm: EvmVm
  readonly config: EvmConfig
  /** where the chain's profiler writes (chain admin API) */
  readonly profileDir: string
  /** the chain actor's `produceBlocks` slot: starts a producer, returns its stop */
  startProducer(): () => void
  /** `/ext/bc/<chainID>/{rpc,ws,admin}` */
  registerRoutes(router: Router, deps: RouteDeps): void
  close(): Promise<void>
}

export interface RouteDeps {
  chainId: string
  system: { get(id: string): AnyActorRef | undefined }
  askStats?: AskStatsSink
  onError?: (method: string, err: unknown) => void
  /** false while the chain is not in normal operation: every route answers 503 (the reference's text) */
  ready?: () => boolean
  /** tx admission (a message to the chain actor); the VM's own when absent */
  submitTransaction?: SubmitTransaction
}

/** The chain admin API's profile directory: the reference's `<admin-api-dir>_coreth_performance_<alias>`, or
 * `<profile-dir>/C` when admin-api-dir is unset (the reference would write into the working directory). */
function chainProfileDir(nodeConfig: NodeConfig, config: EvmConfig): string {
  if (config.adminApiDir === '') return join(nodeConfig.profileDir, 'C')
  const expanded = config.adminApiDir.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, name) => process.env[name] ?? '')
  return `${expanded}_coreth_performance_C`
}

export async function openCChain(deps: {
  nodeConfig: NodeConfig
  db: Database
  chainId: string
  logs: LogManager
}): Promise<CChain> {
  const { nodeConfig, logs } = deps
  const log = logs.get('C')
  const config = await loadEvmConfig(nodeConfig.chainConfigDir, { networkId: nodeConfig.networkId })
  const level = parseEvmLogLevel(config.logLevel)
  logs.setLevels('C', { logLevel: level })
  const names = resolveEthApis(config.ethApis)
  const isDefaultList = config.ethApis.length === DEFAULT_ETH_APIS.length && DEFAULT_ETH_APIS.every((n) => names.has(n))
  if (nodeConfig.dev && isDefaultList) for (const n of DEV_EXTRA_SERVICES) names.add(n)
  const services = checkServiceNames(names)

  const db = deps.db.sublevel<Uint8Array, Uint8Array>(Sublevel.chain(deps.chainId), {
    keyEncoding: 'view',
    valueEncoding: 'view',
  }) as unknown as ChainDb
  const preset = evmPreset(nodeConfig.networkId, { dev: nodeConfig.dev || nodeConfig.devSpeed })
  const vm = await EvmVm.open({ db, preset, config, clientVersion: `v${SEMVER}` })
  const tip = vm.lastAccepted()
  log.info('C chain opened', {
    chainID: Number(preset.chainId),
    height: Number(tip.header.number),
    hash: Buffer.from(tip.hash).toString('hex'),
    pruning: config.pruningEnabled,
    services: [...services].join(','),
  })
  const keystore = new Keystore(
    config.keystoreDirectory === '' ? join(nodeConfig.dataDir, 'chainData', 'C', 'keystore') : config.keystoreDirectory,
  )
  let handlers: EvmHandlers | undefined
  const producers = new Set<BlockProducer>()
  let ws: EthWsRoute | undefined
  const evictTimer = setInterval(() => vm.pool.evictExpired(), 60_000)
  evictTimer.unref()

  return {
    vm,
    config,
    profileDir: chainProfileDir(nodeConfig, config),
    startProducer() {
      const producer = new BlockProducer(vm, log)
      producers.add(producer)
      producer.start()
      log.info('producing blocks as the only validator')
      return () => void producer.stop()
    },
    registerRoutes(router, r) {
      const base = `bc/${r.chainId}`
      const ready = r.ready ?? (() => true)
      const limits = {
        batchRequestLimit: config.batchRequestLimit,
        batchResponseMaxSize: config.batchResponseMaxSize,
        apiMaxDurationMs: config.apiMaxDurationMs,
        httpBodyLimit: config.httpBodyLimit,
        log,
      }
      // the chain hands its handlers over; the HTTP layer only routes to them
      const h = createEvmHandlers({
        backend: vm,
        keystore,
        services,
        submitTransaction: r.submitTransaction,
        admin: config.adminApiEnabled
          ? {
              profiler: () => r.system.get(SystemId.chainProfiler('C')),
              setLogLevel: (lvl) => logs.setLevels('C', { logLevel: lvl, displayLevel: lvl }),
              vmConfig: () => evmConfigToVmConfig(config),
              ...(r.askStats === undefined ? {} : { askStats: r.askStats }),
            }
          : undefined,
      })
      handlers = h
      router.addRoute(base, '/rpc', gateRoute(createEthRpcRoute({ ...h.rpc, ...limits }), ready))
      ws = createEthWsRoute({ ...h.rpc, ...limits })
      router.addRoute(base, '/ws', gateRoute(ws, ready))
      if (h.admin !== undefined) {
        const endpoint = createJsonRpcEndpoint(h.admin, {
          underscoreNames: true,
          ...(r.onError === undefined ? {} : { onError: r.onError }),
        })
        router.addRoute(base, '/admin', { kind: 'jsonrpc', endpoint, ready })
      }
    },
    async close() {
      clearInterval(evictTimer)
      ws?.close()
      await Promise.all([...producers].map((p) => p.stop()))
      handlers?.close()
      keystore.close()
      vm.close()
    },
  }
}
