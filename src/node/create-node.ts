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
import type { ChainRoutes } from '../api/chain-routes.js'
import { createHttpServer, type HttpApiServer } from '../api/http/server.js'
import { metricsRoute } from '../api/metrics/route.js'
import { registerBuiltinVms } from '../chains/builtin-vms.js'
import { nativeCrypto } from '../chains/evm/exec/native-crypto.js'
import { loadVmPlugins } from '../chains/plugins.js'
import type { ChainVm } from '../chains/vm.js'
import { VmRegistry } from '../chains/vm-registry.js'
import type { NodeConfig } from '../config/node-config.js'
import { DATABASE_VERSION } from '../config/version.js'
import { checkDatabaseVersion, type Database, openDatabase } from '../db/open.js'
import type { LogManager } from '../log/logger.js'
import { NodeMetrics } from '../metrics/node-metrics.js'
import { benchlistSettings } from '../network/benching.js'
import { Network } from '../network/network.js'
import { genesisValidators, ValidatorSet } from '../network/validators.js'
import { createMailboxStats } from '../profiling/mailbox-stats.js'
import { profilerImplementation } from '../profiling/profiler.impl.js'
import { listActors } from './actor-tree.js'
import { openChain } from './chain-host.js'
import { ChainRuntimes } from './chain-runtimes.js'
import { chainLogic } from './chain-slots.js'
import { awaitInstalledChains, declareChainRoutes, declareChains } from './chain-startup.js'
import { createDashboard } from './dashboard.js'
import { evmHost } from './evm-host.js'
import { startHealth } from './health-host.js'
import { openIdentity } from './identity.js'
import { startInspector } from './inspector.js'
import { mountNodeApis, registerDefaultAliases } from './routes.js'
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

  const { identity, signer, nodeId, nodePOP, logs, log } = await openIdentity(config, opts.display)
  cleanups.push(() => logs.close())

  const db: Database = await openDatabase({ type: config.db.type, path: config.db.path })
  cleanups.push(() => db.close())
  await checkDatabaseVersion(db, DATABASE_VERSION, config.db.type === 'memdb' ? 'memdb' : config.db.path)
  log.info('database opened', { type: config.db.type, path: config.db.type === 'memdb' ? undefined : config.db.path })
  // sender recovery and keccak at JS speed cost a transfer about twice the CPU (docs/performance.md)
  if (nativeCrypto.secp256k1 && nativeCrypto.keccak) log.info('native crypto loaded', nativeCrypto)
  else log.warn('native crypto did not load: sender recovery and keccak run in JavaScript', nativeCrypto)

  const { chains, entries, sharedMemory } = await declareChains(config, db, log)
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
  // --api-metrics-enabled: the node's metrics (src/metrics), counted where things happen or read at scrape time
  const metrics = config.api.metricsEnabled
    ? new NodeMetrics(
        {
          peers: () => network?.peers.size ?? 0,
          snapshot: (id) => system?.get(id)?.getSnapshot(),
          mailbox: () => mailbox.snapshot(),
        },
        entries.map(({ entry }) => entry.alias),
      )
    : undefined
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
    ...(metrics === undefined ? {} : { metrics: metrics.streams.component() }),
  })
  network = p2p
  const uptimeRecords = await p2p.loadUptime()

  // the heap is sampled only when an admin API can ask for a memory profile (src/profiling/heap-sampler.ts)
  const profiler = profilerImplementation({
    dir: config.profileDir,
    lockSources: { mailbox },
    sampleHeap: config.api.adminEnabled,
  })
  cleanups.push(() => profiler.close())
  const inspector = config.inspect.enabled
    ? await startInspector(config.inspect.port, log, { origins: config.inspect.origins })
    : undefined
  if (inspector) cleanups.push(() => inspector.stop())

  // the chain actors' IO finds each chain's runtime here; a chain opens (chain-host.ts) once its VM is registered
  // and the network and the HTTP routes exist
  const runtimes = new ChainRuntimes()
  const openedVms = new Map<string, ChainVm>()
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
        metrics,
        sharedMemory,
        lookupChain: (alias) => chains.aliaser.lookup(alias),
        primary: { avaxAssetId: chains.ids.avaxAssetId, xChainId: chains.ids.X },
      },
    )
    cleanups.push(() => opened.close())
    runtimes.set(opened)
    openedVms.set(chainId, opened.vm)
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
    trustedOrigins: config.http.trustedOrigins,
    ...(config.http.tls.enabled ? { tls: config.http.tls } : {}),
    nodeId,
    shutdownTimeoutMs: config.http.shutdownTimeoutMs,
    clients: {
      maxConnections: config.http.maxConnections,
      maxConnectionsPerIp: config.http.maxConnectionsPerIp,
      maxPipelinedRequests: config.http.maxPipelinedRequests,
      rateLimit: config.http.rateLimit,
    },
    log: logs.get('http'),
    // the reference's avalanche_api_calls{base}: a chain's routes count under its primary alias
    ...(metrics && { wrapRoute: metrics.routeWrapper((chainId) => chains.aliaser.primaryAlias(chainId)) }),
  })
  cleanups.push(() => http.close())
  // the dashboard's streams end before the server waits for its requests to finish
  if (dashboard) {
    dashboard.mount(http.router)
    cleanups.push(() => dashboard.route.close())
  }
  const onError = (method: string, err: unknown) => logs.get('http').debug('call failed', { method, err })
  const observer = metrics?.rpc.endpoint // each endpoint's JSON-RPC call observer, when metrics are on
  if (metrics !== undefined) http.router.addRoute('metrics', '', metricsRoute(metrics))
  mountNodeApis(http.router, config, chains, onError, {
    ...(observer === undefined ? {} : { observer: (name: string) => observer(name, undefined) }),
    info: {
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
    },
    admin: {
      router: http.router,
      chains,
      logs,
      profiler: () => actor.system.get(SystemId.Profiler),
      node: () => actor,
      db,
      // the reference's getConfig leaves the genesis bytes and the HTTPS key and certificate out
      config: { ...config, genesis: undefined, http: { ...config.http, tls: { enabled: config.http.tls.enabled } } },
      actors: () => listActors(actor),
      profileDir: config.profileDir,
      askStats: mailbox,
    },
  })
  registerDefaultAliases(http.router, chains)
  // each chain's base answers 503 with the reason until its VM hands its handlers over (chain-routes.ts)
  const rateLimiter = http.rateLimiter
  startHosting(
    declareChainRoutes(http.router, entries, { ids: chains.ids, chainState, log, onError, observer, rateLimiter }),
  )
  // the chains whose VM is installed open before the node serves; one that cannot is a start-up error
  await awaitInstalledChains(entries, vms, actor.system, log)
  // /ext/health: the first round of checks runs once the chains are open, before the node serves
  if (config.health.enabled) {
    const health = await startHealth({
      config,
      db,
      nodeId,
      validators,
      p2p,
      chains: chainList,
      system: actor.system,
      chainVm: (chainId) => openedVms.get(chainId),
      router: http.router,
      onError,
      log: logs.get('health'),
    })
    cleanups.push(() => health.stop())
  }

  await http.listen()
  const url = http.url
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
