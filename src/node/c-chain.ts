/**
 * The C chain's part of the composition root: the EVM chain VM (src/chains/evm/chain-vm.ts) opened for chain C
 * with its context (the network preset's C genesis, `<chain-config-dir>/C/config.json`, the chain's sublevel and
 * directory, app messages through the network), tx admission through the chain actor, its routes, and a lone
 * validator's producer. Nothing here is C-specific but the preset genesis and the alias: the lead generalises it to
 * every declared EVM chain. A bad config file is a start-up error.
 */
import { join } from 'node:path'
import type { TypedTransaction } from '@ethereumjs/tx'
import { map, type Observable } from 'rxjs'
import type { AnyActorRef } from 'xstate'
import type { ChainEmitted, TxsAdmitted } from '../../actors/chains/chain.machine.js'
import { SystemId } from '../../actors/system-ids.js'
import type { Router } from '../api/http/router.js'
import { type EvmPresetFromGenesis, presetGenesis } from '../chains/evm/chain-genesis.js'
import { EvmChainVm } from '../chains/evm/chain-vm.js'
import { type EvmConfig, readChainConfigText } from '../chains/evm/config.js'
import { evmPreset } from '../chains/evm/rules/presets.js'
import { BlockProducer } from '../chains/producer.js'
import type { AppSender, ChainDatabase, ChainVmContext } from '../chains/vm.js'
import type { NodeConfig } from '../config/node-config.js'
import type { Database } from '../db/open.js'
import { Sublevel } from '../db/sublevels.js'
import type { LogManager } from '../log/logger.js'
import type { AskStatsSink } from '../runtime/ask.js'
import { admitTickets, submitThroughChain, TxTickets } from './tx-admission.js'
import { registerVmRoutes } from './vm-routes.js'

export interface CChain {
  readonly vm: EvmChainVm
  /** the chain's own store (the VM's `ctx.db`; consensus keeps the proposer signatures in it) */
  readonly db: ChainDatabase
  readonly config: EvmConfig
  /** where the chain's profiler writes (chain admin API) */
  readonly profileDir: string
  /** the chain actor's `produceBlocks` slot: starts a producer, returns its stop */
  startProducer(): () => void
  /** the chain actor's `chainIo`: admits the parked transactions it said yes to */
  admitTxs(e: Extract<ChainEmitted, { type: 'chain.admitTxs' }>): Promise<TxsAdmitted>
  /** the blocks the chain accepts, in order */
  readonly accepted$: Observable<{ height: number; id: string }>
  /** `/ext/bc/<chainID>/{rpc,ws,admin}` */
  registerRoutes(router: Router, deps: RouteDeps): Promise<void>
  close(): Promise<void>
}

export interface RouteDeps {
  onError?: (method: string, err: unknown) => void
  /** false while the chain is not in normal operation: every route answers 503 (the reference's text) */
  ready?: () => boolean
}

/** The chain admin API's profile directory: the reference's `<admin-api-dir>_coreth_performance_<alias>`, or
 * `<profile-dir>/<alias>` when admin-api-dir is unset (the reference would write into the working directory). */
function chainProfileDir(nodeConfig: NodeConfig, config: EvmConfig, alias: string): string {
  if (config.adminApiDir === '') return join(nodeConfig.profileDir, alias)
  const expanded = config.adminApiDir.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, name) => process.env[name] ?? '')
  return `${expanded}_coreth_performance_${alias}`
}

export async function openCChain(deps: {
  nodeConfig: NodeConfig
  db: Database
  chainId: string
  alias: string
  nodeId: string
  logs: LogManager
  app: AppSender
  /** the actor system, once it runs (tx admission asks `chain:<alias>`, the admin API `profiler:<alias>`) */
  system: () => { get(id: string): AnyActorRef | undefined } | undefined
  askStats?: AskStatsSink
  /** the chain's genesis as declared (default: the network preset's C chain) */
  genesis?: unknown
  /** the EVM genesis JSON -> preset parser, for a declared JSON genesis */
  presetFromGenesis?: EvmPresetFromGenesis
}): Promise<CChain> {
  const { nodeConfig, logs, alias } = deps
  const log = logs.get(alias)
  const db = deps.db.sublevel<Uint8Array, Uint8Array>(Sublevel.chain(deps.chainId), {
    keyEncoding: 'view',
    valueEncoding: 'view',
  }) as unknown as ChainDatabase
  const dev = nodeConfig.dev || nodeConfig.devSpeed
  const tickets = new TxTickets<TypedTransaction>()
  const vm = new EvmChainVm({
    submitTransaction: submitThroughChain(tickets, () => deps.system()?.get(SystemId.chain(alias)), deps.askStats),
    profiler: () => deps.system()?.get(SystemId.chainProfiler(alias)),
    ...(deps.askStats === undefined ? {} : { askStats: deps.askStats }),
    setLogLevels: (levels) => logs.setLevels(alias, levels),
    devServices: nodeConfig.dev,
    ...(deps.presetFromGenesis === undefined ? {} : { presetFromGenesis: deps.presetFromGenesis }),
  })
  const ctx: ChainVmContext = {
    networkId: nodeConfig.networkId,
    chainId: deps.chainId,
    alias,
    nodeId: deps.nodeId,
    db,
    dataDir: join(nodeConfig.dataDir, 'chainData', alias),
    log,
    genesis: deps.genesis ?? presetGenesis(evmPreset(nodeConfig.networkId, { dev })),
    config: await readChainConfigText(nodeConfig.chainConfigDir, alias),
    dev,
    app: deps.app,
  }
  await vm.initialize(ctx)
  const producers = new Set<BlockProducer>()
  let closeRoutes: (() => void) | undefined

  return {
    vm,
    db,
    config: vm.config,
    profileDir: chainProfileDir(nodeConfig, vm.config, alias),
    startProducer() {
      const producer = new BlockProducer(vm, log)
      producers.add(producer)
      producer.start()
      log.info('producing blocks as the only validator')
      return () => void producer.stop()
    },
    admitTxs: (e) => admitTickets(e, tickets, vm.admitTransaction),
    accepted$: vm.evm.accepted$.pipe(
      map((b) => ({ height: Number(b.header.number), id: `0x${Buffer.from(b.hash).toString('hex')}` })),
    ),
    async registerRoutes(router, r) {
      closeRoutes = registerVmRoutes(router, deps.chainId, await vm.createHandlers(), {
        log,
        ...(r.ready === undefined ? {} : { ready: r.ready }),
        ...(r.onError === undefined ? {} : { onError: r.onError }),
      })
    },
    async close() {
      closeRoutes?.()
      await Promise.all([...producers].map((p) => p.stop()))
      await vm.shutdown()
    },
  }
}
