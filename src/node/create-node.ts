/**
 * The composition root. Build order: data dir -> identity -> logs -> database -> chains and VMs -> peers and
 * validators -> actor system -> p2p network (binds the staking port) -> HTTP API -> process context file.
 * `close()` runs it backwards, is idempotent, and closes the database and the logs last.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { firstValueFrom } from 'rxjs'
import { type Actor, type AnyActorRef, createActor, fromPromise, type InspectionEvent } from 'xstate'
import { type LoadVmsResult, nodeMachine } from '../../actors/node.machine.js'
import { profilerMachine } from '../../actors/profiler/profiler.machine.js'
import { SystemId } from '../../actors/system-ids.js'
import { adminService } from '../api/admin/service.js'
import type { ChainRoutes } from '../api/chain-routes.js'
import { createHttpServer, type HttpApiServer } from '../api/http/server.js'
import { infoService } from '../api/info/service.js'
import { createJsonRpcEndpoint } from '../api/jsonrpc/service.js'
import { avmService, platformService } from '../api/primary/service.js'
import { registerBuiltinVms } from '../chains/builtin-vms.js'
import { loadVmPlugins } from '../chains/plugins.js'
import { ChainRegistry } from '../chains/registry.js'
import { SharedMemory } from '../chains/shared-memory/shared-memory.js'
import { VmRegistry } from '../chains/vm-registry.js'
import { chainIds } from '../config/chain-ids.js'
import type { NodeConfig } from '../config/node-config.js'
import { DATABASE_VERSION, SEMVER } from '../config/version.js'
import { checkDatabaseVersion, type Database, openDatabase } from '../db/open.js'
import { loadOrCreateSigner } from '../identity/bls.js'
import { loadOrCreateStakingIdentity } from '../identity/staking.js'
import { LogManager } from '../log/logger.js'
import { benchlistSettings } from '../network/benching.js'
import { Network } from '../network/network.js'
import { genesisValidators, ValidatorSet } from '../network/validators.js'
import { createMailboxStats } from '../profiling/mailbox-stats.js'
import { profilerImplementation } from '../profiling/profiler.impl.js'
import { listActors } from './actor-tree.js'
import { openChain } from './chain-host.js'
import { ChainRuntimes } from './chain-runtimes.js'
import { chainLogic } from './chain-slots.js'
import {
  awaitInstalledChains,
  declareChainRoutes,
  seedGenesisSharedMemory,
  seedPresetSharedMemory,
} from './chain-startup.js'
import { createDashboard } from './dashboard.js'
import { evmHost } from './evm-host.js'
import { startInspector } from './inspector.js'
import { registerDefaultAliases } from './routes.js'
import { snapshotChecker } from './snapshot-check.js'

export interface FirnNode {
  readonly config: NodeConfig
  readonly nodeId: string
  /** `http://host:port` of the API server */
  readonly url: string
  readonly actor: Actor<typeof nodeMachine>
  readonly logs: LogManager
  close(): Promise<void>
}

export interface CreateNodeOptions {
  /** where displayed log lines go (default stdout) */
  display?: (line: string) => void
}

export async function createNode(config: NodeConfig, opts: CreateNodeOptions = {}): Promise<FirnNode> {
  const cleanups: (() => Promise<void> | void)[] = []
  const runCleanups = async () => {
    for (const fn of cleanups.splice(0).reverse()) {
      try {
        await fn()
      } catch {
        // keep closing the rest: one failing part must not leave the database open
      }
    }
  }
  try {
    return await build(config, opts, cleanups, runCleanups)
  } catch (err) {
    await runCleanups()
    throw err
  }
}

async function build(
  config: NodeConfig,
  opts: CreateNodeOptions,
  cleanups: (() => Promise<void> | void)[],
  runCleanups: () => Promise<void>,
): Promise<FirnNode> {
  await mkdir(config.dataDir, { recursive: true, mode: 0o750 })

  const identity = await loadOrCreateStakingIdentity({
    keyPath: config.staking.keyPath,
    certPath: config.staking.certPath,
    keyExplicit: config.staking.keyExplicit,
    certExplicit: config.staking.certExplicit,
  })
  const signer = await loadOrCreateSigner({
    path: config.staking.signerKeyPath,
    explicit: config.staking.signerExplicit,
  })
  const nodeId = identity.nodeId
  const nodePOP = signer.proofOfPossession()

  const logs = new LogManager({
    dir: config.log.dir,
    level: config.log.level,
    displayLevel: config.log.displayLevel,
    display: opts.display,
  })
  cleanups.push(() => logs.close())
  const log = logs.get('main')
  logs.get('http')
  logs.get('network')
  log.info('starting firn', { version: SEMVER, nodeID: nodeId, networkID: config.networkId, dataDir: config.dataDir })
  log.info('node proof of possession', nodePOP)

  const db: Database = await openDatabase({ type: config.db.type, path: config.db.path })
  cleanups.push(() => db.close())
  await checkDatabaseVersion(db, DATABASE_VERSION, config.db.type === 'memdb' ? 'memdb' : config.db.path)
  log.info('database opened', { type: config.db.type, path: config.db.type === 'memdb' ? undefined : config.db.path })

  // every chain the node runs, declared by the network genesis (the preset's, or --genesis-file's): C first
  const declared = config.genesis.chains
  const chains = new ChainRegistry(chainIds(config.networkId))
  // a declared name is its chain's primary alias, before any alias of --chain-aliases-file
  for (const d of declared)
    if (chains.aliaser.tryLookup(d.alias) === undefined) chains.aliaser.alias(d.chainId, d.alias)
  await chains.loadAliasesFile(config.chainAliasesFile, config.chainAliasesFileExplicit)
  const entries = declared.map((d) => ({ declared: d, entry: chains.create(d.chainId, d.vm) }))
  // atomic UTXOs between chains
  const sharedMemory = new SharedMemory(db)
  await seedPresetSharedMemory(sharedMemory, config.networkId, chains.ids, log)
  await seedGenesisSharedMemory(sharedMemory, config.genesis.atomicUtxos, chains.ids, log)
  for (const { entry } of entries) logs.get(entry.alias)

  // the actor system, once it runs: the chains' tx admission and admin API reach their actors through it
  let system: { get(id: string): AnyActorRef | undefined } | undefined
  const mailbox = createMailboxStats()
  const evm = evmHost({
    logs,
    system: () => system,
    askStats: mailbox,
    devServices: config.dev,
    profileDir: config.profileDir,
  })
  const vms = new VmRegistry()
  registerBuiltinVms(vms, { evm: evm.factory })
  // plugins in --plugin-dir load at start-up, as in the reference; one that fails is logged, not fatal
  const plugins = await loadVmPlugins(config.pluginDir, vms)
  if (Object.keys(plugins.newVMs).length > 0) log.info('VM plugins loaded', { newVMs: plugins.newVMs })
  for (const [vmID, error] of Object.entries(plugins.failedVMs ?? {}))
    log.error('failed to register VM', { vmID, error })

  let network: Network | undefined
  const fileValidators = config.genesis.validators
  const validators = new ValidatorSet({
    selfNodeId: nodeId,
    sybilProtectionEnabled: config.sybilProtection.enabled,
    disabledWeight: config.sybilProtection.disabledWeight,
    genesis: genesisValidators(config.networkId, fileValidators),
    connectedPeers: () => network?.connections.connectedNodeIds() ?? [],
  })
  const chainList = chains.list().map(({ chainId, alias }) => ({ chainId, alias }))
  const p2p = new Network({
    config,
    identity,
    signer,
    db,
    validators,
    log: logs.get('network'),
    chains: chainList,
    // test-only (docs/operations.md, "Peers"): the echo protocol, and an echo handler that never answers
    testProtocols: process.env.FIRN_TEST_PROTOCOLS === '1',
    echoSilent: () => process.env.FIRN_TEST_ECHO_SILENT === '1',
  })
  network = p2p
  const uptimeRecords = await p2p.loadUptime()

  const profiler = profilerImplementation({ dir: config.profileDir, lockSources: { mailbox } })
  cleanups.push(() => profiler.close())
  const inspector = config.inspect.enabled ? await startInspector(config.inspect.port, log) : undefined
  if (inspector) cleanups.push(() => inspector.stop())

  // the chain actors' IO finds each chain's runtime here; a chain opens (chain-host.ts) once its VM is registered
  // and the network and the HTTP routes exist
  const runtimes = new ChainRuntimes()
  let startHosting: (routes: Map<string, ChainRoutes>) => void = () => undefined
  const hosting = new Promise<Map<string, ChainRoutes>>((resolve) => {
    startHosting = resolve
  })
  const proposerSet = config.sybilProtection.enabled ? genesisValidators(config.networkId, fileValidators) : []
  const openOne = async (chainId: string) => {
    const routes = await hosting
    const found = entries.find((e) => e.entry.chainId === chainId)
    const chainRoutes = routes.get(chainId)
    if (found === undefined || chainRoutes === undefined) throw new Error(`chain ${chainId} is not declared`)
    const opened = await openChain(
      found.declared,
      chains.aliaser.aliases(chainId) ?? [found.entry.alias],
      chainRoutes,
      () => isChainBootstrapped(chainId),
      {
        nodeConfig: config,
        db,
        nodeId,
        identity,
        logs,
        vms,
        evm,
        p2p,
        validators,
        proposers: () => proposerSet,
        mailbox,
        sharedMemory,
        lookupChain: (alias) => chains.aliaser.lookup(alias),
        primary: { avaxAssetId: chains.ids.avaxAssetId, xChainId: chains.ids.X },
      },
    )
    cleanups.push(() => opened.close())
    runtimes.set(opened)
    return opened
  }
  // test-only (docs/operations.md): every actor context is checked to be JSON-safe
  const checkSnapshot =
    process.env.FIRN_CHECK_ACTOR_SNAPSHOTS === '1'
      ? snapshotChecker((actor, path) => log.error('actor context is not JSON-safe', { actor, path }))
      : undefined
  // --api-dashboard-enabled: /ext/dashboard (src/node/dashboard.ts), fed by the same inspection events
  const dashboard = config.dashboard.enabled
    ? createDashboard({ config, nodeId, chains: chainList, runtimes, p2p, log: logs.get('http') })
    : undefined
  if (dashboard) cleanups.push(() => dashboard.close())
  const inspect = (ev: InspectionEvent) => {
    mailbox.observe(ev)
    inspector?.inspect(ev)
    dashboard?.inspect(ev)
    checkSnapshot?.(ev)
  }
  const logic = nodeMachine.provide({
    actors: {
      chain: chainLogic({
        runtimes,
        vmRegistered: (vm) => firstValueFrom(vms.registration$(vm)).then(() => undefined),
        openChain: openOne,
      }),
      profiler: profilerMachine.provide(profiler.implementation),
      network: p2p.logic(),
      loadVMs: fromPromise<LoadVmsResult, void>(() => loadVmPlugins(config.pluginDir, vms)),
    },
  })
  const benchlist = benchlistSettings(config.benchlist, config.snow)
  const actor = createActor(logic, {
    systemId: SystemId.Node,
    input: {
      nodeId,
      networkId: config.networkId,
      network: p2p.actorInput(uptimeRecords),
      chains: entries.map(({ declared: d, entry }) => ({
        chainId: entry.chainId,
        alias: entry.alias,
        vm: d.vm,
        nodeId,
        benchlist,
        snow: config.snow,
        frontierPollMs: config.frontierPollMs,
        beaconTimeoutMs: config.beaconConnectionTimeoutMs,
      })),
    },
    inspect,
  })
  actor.start()
  system = actor.system
  dashboard?.attach(actor.system)
  cleanups.push(() => {
    actor.send({ type: 'node.shutdown' })
    actor.stop()
  })

  await p2p.start(actor.system)
  if (process.env.FIRN_TEST_PROTOCOLS === '1') logs.get('network').warn('test protocols on (FIRN_TEST_PROTOCOLS=1)')
  cleanups.push(() => p2p.close())

  const chainState = (chainId: string) => {
    const entry = chains.get(chainId)
    const ref = entry ? actor.system.get(SystemId.chain(entry.alias)) : undefined
    return ref?.getSnapshot() as { value: string; context: { error: string | null } } | undefined
  }
  const isChainBootstrapped = (chainId: string) => chainState(chainId)?.value === 'normalOp'

  const http: HttpApiServer = createHttpServer({
    host: config.http.host,
    port: config.http.port,
    allowedHosts: config.http.allowedHosts,
    allowedOrigins: config.http.allowedOrigins,
    nodeId,
    shutdownTimeoutMs: config.http.shutdownTimeoutMs,
    log: logs.get('http'),
  })
  cleanups.push(() => http.close())
  // the dashboard's streams end before the server waits for its requests to finish
  if (dashboard) {
    dashboard.mount(http.router)
    cleanups.push(() => dashboard.route.close())
  }
  const onError = (method: string, err: unknown) => logs.get('http').debug('call failed', { method, err })
  if (config.api.infoEnabled) {
    const info = infoService({
      config,
      nodeId,
      nodePOP,
      stakingPort: () => p2p.port,
      chains,
      vms,
      isChainBootstrapped,
      peers: p2p.peers,
      validators,
      log,
    })
    http.router.addRoute('info', '', { kind: 'jsonrpc', endpoint: createJsonRpcEndpoint([info], { onError }) })
  }
  if (config.api.adminEnabled) {
    const admin = adminService({
      router: http.router,
      chains,
      logs,
      profiler: () => actor.system.get(SystemId.Profiler),
      node: () => actor,
      db,
      // the reference's getConfig leaves the genesis bytes out
      config: { ...config, genesis: undefined },
      actors: () => listActors(actor),
      cwd: process.cwd(),
      askStats: mailbox,
    })
    http.router.addRoute('admin', '', { kind: 'jsonrpc', endpoint: createJsonRpcEndpoint([admin], { onError }) })
  }
  // the X and P calls avalanchejs's getContextFromURI makes, from the preset's constants (src/api/primary)
  const primary = { networkId: config.networkId, avaxAssetId: chains.ids.avaxAssetId, fees: config.fees }
  http.router.addRoute(`bc/${chains.ids.X}`, '', {
    kind: 'jsonrpc',
    endpoint: createJsonRpcEndpoint([avmService(primary)], { onError }),
  })
  http.router.addRoute(`bc/${chains.ids.P}`, '', {
    kind: 'jsonrpc',
    endpoint: createJsonRpcEndpoint([platformService()], { onError }),
  })
  registerDefaultAliases(http.router, chains)
  // each chain's base answers 503 with the reason until its VM hands its handlers over (chain-routes.ts)
  startHosting(declareChainRoutes(http.router, entries, { ids: chains.ids, chainState, log, onError }))
  // the chains whose VM is installed open before the node serves; one that cannot is a start-up error
  await awaitInstalledChains(entries, vms, actor.system, log)

  const bound = await http.listen()
  const url = `http://${bound.host.includes(':') ? `[${bound.host}]` : bound.host}:${bound.port}`
  log.info('HTTP API server listening', { url, admin: config.api.adminEnabled, info: config.api.infoEnabled })
  if (dashboard) log.info('dashboard: open this page in a browser', { url: `${url}/ext/dashboard` })

  const stakingAddress = config.publicIp.includes(':')
    ? `[${config.publicIp}]:${network.port}`
    : `${config.publicIp}:${network.port}`
  await mkdir(dirname(config.processContextFile), { recursive: true, mode: 0o750 })
  await writeFile(
    config.processContextFile,
    `${JSON.stringify({ pid: process.pid, uri: url, stakingAddress }, null, 2)}\n`,
  )
  log.info('node is serving', { nodeID: nodeId, uri: url })

  let closing: Promise<void> | undefined
  return {
    config,
    nodeId,
    url,
    actor,
    logs,
    close: () => {
      closing ??= (async () => {
        log.info('shutting down')
        await runCleanups()
      })()
      return closing
    },
  }
}
