/**
 * What the node wires into its health checker (src/api/health): the database, the network's peers and stake, and
 * for each declared chain its actor's snapshot, its engine's processing blocks and its opened VM. The checker runs
 * a first round before the node serves, then every `--health-check-frequency`.
 */
import type { AnyActorRef } from 'xstate'
import { engineSummary } from '../../actors/consensus/engine.js'
import type { EngineMachineContext } from '../../actors/consensus/engine.machine.js'
import { SystemId } from '../../actors/system-ids.js'
import { chainCheck } from '../api/health/chain-check.js'
import { HealthChecker } from '../api/health/checker.js'
import { minPercentConnectedHealthy, PRIMARY_NETWORK_ID, registerNodeChecks } from '../api/health/node-checks.js'
import { mountHealthRoutes } from '../api/health/service.js'
import type { Router } from '../api/http/router.js'
import type { JsonRpcEndpointOptions } from '../api/jsonrpc/service.js'
import type { ChainVm } from '../chains/vm.js'
import type { NodeConfig } from '../config/node-config.js'
import { DATABASE_VERSION } from '../config/version.js'
import type { Database } from '../db/open.js'
import type { Logger } from '../log/logger.js'
import type { Network } from '../network/network.js'
import type { ValidatorSet } from '../network/validators.js'

export interface HealthHostDeps {
  config: Pick<NodeConfig, 'health' | 'snow'>
  db: Database
  nodeId: string
  validators: ValidatorSet
  p2p: Pick<Network, 'connections'>
  /** the declared chains by primary alias */
  chains: readonly { chainId: string; alias: string }[]
  system: { get(id: string): AnyActorRef | undefined }
  /** a chain's VM once it is opened */
  chainVm: (chainId: string) => ChainVm | undefined
  router: Router
  onError: JsonRpcEndpointOptions['onError']
  log: Logger
}

interface ChainSnapshot {
  value: unknown
  context: { error: string | null; lastAccepted: { height: number; id: string; at: number } | null }
}

export async function startHealth(d: HealthHostDeps): Promise<HealthChecker> {
  const checker = new HealthChecker({ log: d.log })
  const startedAt = Date.now()
  const chainState = (alias: string) => {
    const snap = d.system.get(SystemId.chain(alias))?.getSnapshot() as ChainSnapshot | undefined
    return snap === undefined ? undefined : { ...snap.context, state: String(snap.value) }
  }
  registerNodeChecks(checker, {
    db: d.db,
    databaseVersion: DATABASE_VERSION,
    network: {
      selfNodeId: d.nodeId,
      validators: () => d.validators.list(),
      connectedPeers: () => d.p2p.connections.connectedNodeIds(),
      minConnectedPeers: d.config.health.minConnectedPeers,
      minPercentConnected: minPercentConnectedHealthy(d.config.snow),
    },
    bootstrapping: () =>
      d.chains
        .filter((c) => ['initializing', 'bootstrapping'].includes(chainState(c.alias)?.state ?? ''))
        .map((c) => c.alias),
  })
  for (const { chainId, alias } of d.chains) {
    const processing = () => {
      const core = (d.system.get(SystemId.engine(alias))?.getSnapshot() as { context?: EngineMachineContext })?.context
        ?.core
      return core === null || core === undefined ? 0 : engineSummary(core).numProcessing
    }
    const source = {
      snapshot: () => chainState(alias),
      processing,
      vm: () => d.chainVm(chainId),
      maxTimeProcessingMs: d.config.snow.maxItemProcessingTimeMs,
      maxProcessing: d.config.snow.maxOutstandingItems,
      startedAt,
      now: Date.now,
    }
    checker.register('health', alias, () => chainCheck(source), [PRIMARY_NETWORK_ID])
  }
  mountHealthRoutes(d.router, checker, d.onError === undefined ? {} : { onError: d.onError })
  await checker.start(d.config.health.checkFrequencyMs)
  return checker
}
