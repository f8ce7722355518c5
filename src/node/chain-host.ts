/**
 * Opening one chain the node runs, whatever its VM: what the chain actor's `initializeChain` slot does once the
 * chain's VM is registered. The VM comes from its factory in the VM registry and is initialised with its context
 * (the chain's sublevel `chains/<chainID>`, its directory `<data-dir>/chainData/<alias>`, its declared genesis, its
 * config file's text, app messages through the network); consensus wraps it (SignedBlocks, SnowmanChain); its
 * handlers are mounted under `/ext/bc/<chainID>`; a lone validator's producer builds on it. Nothing here knows
 * which chain it opens: C is the declaration the network preset puts first.
 */
import { join } from 'node:path'
import { type Observable, Subject } from 'rxjs'
import type { ChainRoutes } from '../api/chain-routes.js'
import { readChainConfig } from '../chains/chain-config-file.js'
import type { DeclaredChain } from '../chains/genesis/load.js'
import { BlockProducer } from '../chains/producer.js'
import type { SharedMemory } from '../chains/shared-memory/shared-memory.js'
import { SnowmanChain } from '../chains/snowman/chain.js'
import { SignedBlocks } from '../chains/snowman/signed-blocks.js'
import { ChainStoreError } from '../chains/store-error.js'
import { type ChainDatabase, type ChainVm, type ChainVmContext, chainVmProblem, type VmBlock } from '../chains/vm.js'
import type { VmRegistry } from '../chains/vm-registry.js'
import type { NodeConfig } from '../config/node-config.js'
import { damagedStoreText } from '../db/check.js'
import type { Database } from '../db/open.js'
import { Sublevel } from '../db/sublevels.js'
import { idFromString } from '../identity/ids.js'
import type { StakingIdentity } from '../identity/staking.js'
import type { LogManager } from '../log/logger.js'
import type { NodeMetrics } from '../metrics/node-metrics.js'
import type { Network } from '../network/network.js'
import type { Validator, ValidatorSet } from '../network/validators.js'
import type { MailboxStats } from '../profiling/mailbox-stats.js'
import { profilerImplementation } from '../profiling/profiler.impl.js'
import { chainAppSender } from './chain-app-sender.js'
import type { AcceptedBlock, ChainRuntime } from './chain-runtimes.js'
import type { EvmHost } from './evm-host.js'

export interface OpenedChain extends ChainRuntime {
  vm: ChainVm
  close(): Promise<void>
}

export interface ChainHostDeps {
  nodeConfig: NodeConfig
  db: Database
  nodeId: string
  identity: StakingIdentity
  logs: LogManager
  vms: VmRegistry
  evm: EvmHost
  p2p: Network
  validators: ValidatorSet
  proposers: () => readonly Validator[]
  mailbox: MailboxStats
  /** the node's metrics (`--api-metrics-enabled`): the chain's blocks and pools are metered; none when absent */
  metrics?: NodeMetrics | undefined
  sharedMemory: SharedMemory
  /** the node's chain aliases: an alias or CB58 chain ID -> the chain ID */
  lookupChain: (alias: string) => string
  /** the network's AVAX asset ID and X-chain ID (CB58) */
  primary: { avaxAssetId: string; xChainId: string }
}

/**
 * The VM with every block it hands out reporting its acceptance: consensus and the producer accept through it,
 * so `accepted$` carries each accepted block whichever path accepted it.
 */
function watchAccepts(vm: ChainVm): { vm: ChainVm; accepted$: Observable<AcceptedBlock> } {
  const accepted = new Subject<AcceptedBlock>()
  const watched = (b: VmBlock): VmBlock => ({
    id: b.id,
    parentId: b.parentId,
    height: b.height,
    timestampMs: b.timestampMs,
    bytes: b.bytes,
    ...(b.txCount === undefined ? {} : { txCount: b.txCount }),
    verify: () => b.verify(),
    reject: () => b.reject(),
    async accept(extra) {
      await b.accept(extra)
      accepted.next({
        height: b.height,
        id: b.id,
        timestampMs: b.timestampMs,
        ...(b.txCount === undefined ? {} : { txCount: b.txCount }),
      })
    },
  })
  const maybe = (b: VmBlock | undefined) => (b === undefined ? undefined : watched(b))
  const view: ChainVm = {
    initialize: (ctx) => vm.initialize(ctx),
    buildBlock: async () => maybe(await vm.buildBlock()),
    parseBlock: async (bytes) => watched(await vm.parseBlock(bytes)),
    getBlock: async (id) => maybe(await vm.getBlock(id)),
    setPreference: (id) => vm.setPreference(id),
    lastAccepted: () => vm.lastAccepted(),
    acceptedIdAt: (height) => vm.acceptedIdAt(height),
    pending$: vm.pending$,
    hasPending: () => vm.hasPending(),
    health: () => vm.health(),
    createHandlers: () => vm.createHandlers(),
    shutdown: () => vm.shutdown(),
    ...(vm.setState === undefined ? {} : { setState: (s: 'bootstrapping' | 'normalOp') => vm.setState?.(s) }),
    ...(vm.appRequest === undefined
      ? {}
      : { appRequest: (from: string, bytes: Uint8Array) => vm.appRequest!(from, bytes) }),
    ...(vm.appGossip === undefined
      ? {}
      : { appGossip: (from: string, bytes: Uint8Array) => vm.appGossip!(from, bytes) }),
    ...(vm.nextBuildTimeMs === undefined ? {} : { nextBuildTimeMs: (parent: string) => vm.nextBuildTimeMs!(parent) }),
  }
  return { vm: view, accepted$: accepted.asObservable() }
}

/** Creates the chain's VM from its registered factory; throws with the reason when it cannot. */
async function createVm(vms: VmRegistry, chain: DeclaredChain): Promise<ChainVm> {
  const vmId = vms.resolveAlias(chain.vm)
  const entry = vmId === undefined ? undefined : vms.get(vmId)
  if (entry === undefined) throw new Error(`VM "${chain.vm}" is not installed`)
  const vm = await entry.factory.createVM()
  const problem = chainVmProblem(vm)
  if (problem !== null) throw new Error(`VM "${chain.vm}" cannot run chain ${chain.alias}: ${problem}`)
  return vm
}

export async function openChain(
  chain: DeclaredChain,
  aliases: readonly string[],
  routes: ChainRoutes,
  ready: () => boolean,
  deps: ChainHostDeps,
): Promise<OpenedChain> {
  const { nodeConfig, logs, alias } = { ...deps, alias: chain.alias }
  const log = logs.get(alias)
  const raw = await createVm(deps.vms, chain)
  const { vm, accepted$ } = watchAccepts(deps.metrics?.chains.meterVm(alias, raw, ready) ?? raw)
  deps.metrics?.scrape.chainOpened(alias, raw)
  const db = deps.db.sublevel<Uint8Array, Uint8Array>(Sublevel.chain(chain.chainId), {
    keyEncoding: 'view',
    valueEncoding: 'view',
  }) as unknown as ChainDatabase
  const ctx: ChainVmContext = {
    networkId: nodeConfig.networkId,
    chainId: chain.chainId,
    alias,
    nodeId: deps.nodeId,
    db,
    dataDir: join(nodeConfig.dataDir, 'chainData', alias),
    log,
    genesis: chain.genesis,
    config: await readChainConfig(nodeConfig.chainConfigDir, chain.chainId, aliases),
    dev: nodeConfig.dev || nodeConfig.devSpeed,
    app: chainAppSender(deps.p2p.chains, chain.chainId, () => deps.validators.list()),
    sharedMemory: deps.sharedMemory.forChain(chain.chainId),
    lookupChain: deps.lookupChain,
    avaxAssetId: deps.primary.avaxAssetId,
    xChainId: deps.primary.xChainId,
  }
  try {
    await vm.initialize(ctx)
  } catch (err) {
    // a VM knows its store, not where the node keeps it
    if (err instanceof ChainStoreError) throw new Error(damagedStoreText(err.message, nodeConfig.db))
    throw err
  }
  const closers: (() => Promise<void> | void)[] = [() => vm.shutdown()]
  const close = async () => {
    for (const fn of closers.splice(0).reverse()) await fn()
  }
  try {
    const blocks = new SignedBlocks({
      vm,
      db,
      chainId: idFromString(chain.chainId),
      identity: deps.identity,
      proposers: deps.proposers,
    })
    const snowman = new SnowmanChain({
      alias,
      chainId: chain.chainId,
      self: deps.nodeId,
      blocks,
      router: deps.p2p.chains,
      peerEvents$: deps.p2p.peerEvents$,
      isBenched: (peer) => deps.p2p.requests.isBenched(peer, chain.chainId),
      validators: () => deps.validators.list(),
      proposers: deps.proposers,
      params: nodeConfig.snow,
      log,
    })
    closers.push(() => snowman.close())
    routes.mount(await vm.createHandlers(), ready)
    closers.push(() => routes.close())
    const admin = deps.evm.adminApi(raw, alias)
    const profiler = admin && profilerImplementation({ dir: admin.profileDir, lockSources: { mailbox: deps.mailbox } })
    if (profiler !== undefined) closers.push(() => profiler.close())
    const producers = new Set<BlockProducer>()
    closers.push(() => Promise.all([...producers].map((p) => p.stop())).then(() => undefined))
    const admitTxs = deps.evm.admission(chain.chainId, raw)
    return {
      chainId: chain.chainId,
      alias,
      log,
      vm: raw,
      hasOtherValidators: () => deps.validators.hasOtherValidators(),
      startProducer() {
        const producer = new BlockProducer(vm, log)
        producers.add(producer)
        producer.start()
        log.info('producing blocks as the only validator')
        return () => {
          producers.delete(producer)
          void producer.stop()
        }
      },
      snowman,
      accepted$,
      ...(admitTxs === undefined ? {} : { admitTxs }),
      ...(profiler === undefined ? {} : { profiler: profiler.ops }),
      close,
    }
  } catch (err) {
    await close()
    throw err
  }
}
