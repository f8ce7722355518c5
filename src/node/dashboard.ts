/**
 * The dashboard's wiring (`--api-dashboard-enabled`, src/api/dashboard/): what the composition root hands it.
 * Its actor view is fed by the root actor's `inspect` (every inspection event, through `inspect` here); chains
 * are read from their `chain:<alias>` actors' snapshots (state, last accepted block, bootstrap progress with
 * its rate and ETA) and their runtimes' accepted blocks (tx counts, finality); peers from the connected peer
 * sessions (info.peers' view, plus when each connected). Nothing is copied between reads but the samples.
 */
import { Subject, type Subscription } from 'rxjs'
import type { AnyActorRef, InspectionEvent } from 'xstate'
import type { ChainContext } from '../../actors/chains/chain.machine.js'
import { SystemId } from '../../actors/system-ids.js'
import { ActorRegistry } from '../api/dashboard/actors.js'
import { createDashboardRoute, type DashboardLog, type DashboardRoute } from '../api/dashboard/route.js'
import { Sampler } from '../api/dashboard/samples.js'
import type { Router } from '../api/http/router.js'
import type { NodeConfig } from '../config/node-config.js'
import { SEMVER } from '../config/version.js'
import type { Network } from '../network/network.js'
import type { ChainRuntimes } from './chain-runtimes.js'

export interface DashboardDeps {
  config: Pick<NodeConfig, 'networkId' | 'dev' | 'http'>
  nodeId: string
  /** the chains the node runs, C first */
  chains: readonly { chainId: string; alias: string }[]
  runtimes: ChainRuntimes
  p2p: Network
  log: DashboardLog
}

export interface Dashboard {
  /** the root actor's inspection events */
  inspect(ev: InspectionEvent): void
  /** once the actor system runs */
  attach(system: { get(id: string): AnyActorRef | undefined }): void
  /** mounts `/ext/dashboard` and its endpoints */
  mount(router: Router): void
  readonly route: DashboardRoute
  close(): void
}

export function createDashboard(deps: DashboardDeps): Dashboard {
  const startedAt = Date.now()
  const changes$ = new Subject<void>()
  const actors = new ActorRegistry({ onChange: () => changes$.next() })
  let system: { get(id: string): AnyActorRef | undefined } | undefined
  const chainContext = (alias: string) => {
    const snap = system?.get(SystemId.chain(alias))?.getSnapshot() as
      | { value: unknown; context: ChainContext }
      | undefined
    return snap
  }
  const sampler = new Sampler({
    heights: () =>
      deps.chains.map(({ alias }) => ({ alias, height: chainContext(alias)?.context.lastAccepted?.height ?? null })),
  })
  const subscriptions: Subscription[] = []
  let closed = false
  for (const { chainId, alias } of deps.chains) {
    void deps.runtimes.whenReady(chainId).then((runtime) => {
      if (closed || runtime.accepted$ === undefined) return
      subscriptions.push(runtime.accepted$.subscribe((block) => sampler.accepted(alias, block, Date.now())))
    })
  }

  const chains = () =>
    deps.chains.map(({ chainId, alias }) => {
      const snap = chainContext(alias)
      const c = snap?.context
      return {
        alias,
        chainId,
        state: snap?.value ?? 'unknown',
        height: c?.lastAccepted?.height ?? null,
        lastAcceptedId: c?.lastAccepted?.id ?? null,
        lastAcceptedAt: c?.lastAccepted?.at ?? null,
        acceptedSinceStart: c?.acceptedCount ?? 0,
        consensus: c === undefined ? null : c.hasOtherValidators ? 'snowman' : 'lone validator',
        finality: sampler.finality(alias),
        bootstrap: c?.progress ?? null,
        error: c?.error ?? null,
      }
    })
  const peers = () =>
    deps.p2p.peers.list().map((p) => ({
      nodeId: p.nodeId,
      ip: p.ip,
      version: p.version,
      connectedAt: deps.p2p.connections.sessionContext(p.nodeId)?.connectedAt ?? null,
      observedUptime: p.observedUptime,
      benched: p.benched,
      lastReceived: p.lastReceived.getTime(),
      lastSent: p.lastSent.getTime(),
    }))
  const view = (shared: boolean) => ({
    at: Date.now(),
    node: {
      nodeId: deps.nodeId,
      networkId: deps.config.networkId,
      version: SEMVER,
      dev: deps.config.dev,
      startedAt,
      pid: process.pid,
    },
    actors: actors.rows(shared),
    chains: chains(),
    peers: peers(),
  })
  const route = createDashboardRoute({
    allowedHosts: deps.config.http.allowedHosts,
    view,
    sampler,
    changes$,
    log: deps.log,
  })
  return {
    inspect: (ev) => actors.inspect(ev),
    attach: (s) => {
      system = s
    },
    mount: (router) => {
      for (const endpoint of route.endpoints) router.addRoute('dashboard', endpoint, route)
    },
    route,
    close: () => {
      closed = true
      route.close()
      for (const s of subscriptions.splice(0)) s.unsubscribe()
      sampler.close()
      changes$.complete()
    },
  }
}
