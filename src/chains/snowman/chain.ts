/**
 * One Snowman chain on the peer network, over any chain VM (src/chains/vm.ts) wrapped in signed blocks
 * (signed-blocks.ts), as the chain runtime its actors' IO slots serve: the chain's side of the consensus /
 * bootstrap / app protocols (handlers registered with the router; app messages go to the VM's `appRequest` /
 * `appGossip`, an `AppError` it throws answers the requester), and the IO of its two consensus actors:
 * `bootstrapIo` (the bootstrapper's slot: requests carried out over the network and the VM, progress lines and the
 * beacon warning logged) and `engineIo` (the engine's slot, engine-io.ts). Queries are ignored (the querier times out) until the engine runs; frontier, accepted and
 * ancestors requests are served at any time (reference consensus.md 3.3). It creates no actor: the chain actor
 * (actors/chains/chain.machine.ts) owns the bootstrapper and the engine.
 */
import { filter, ignoreElements, map, merge, type Observable, tap } from 'rxjs'
import type { AnyActorRef } from 'xstate'
import { answerGetAccepted, collectAncestors } from '../../../actors/consensus/bootstrap.js'
import { type BootstrapIo, bootstrapRun } from '../../../actors/consensus/bootstrapper.io.js'
import type { BootstrapperEmitted, BootstrapperEvent } from '../../../actors/consensus/bootstrapper.types.js'
import type { EngineMachineEvent } from '../../../actors/consensus/engine.machine.js'
import type { ParsedBlock } from '../../../actors/consensus/types.js'
import { AppRequestError, type ChainHandlers, type ChainRouter } from '../../network/chain-router.js'
import { emitted$ } from '../../runtime/emitted.js'
import { formatGoDuration } from '../evm/config/go-duration.js'
import { AppError } from '../vm.js'
import type { EffectRunner } from './effects.js'
import { type ChainConsensusDeps, engineIo } from './engine-io.js'

export interface SnowmanChainDeps extends ChainConsensusDeps {
  router: ChainRouter
  random?: () => number
  now?: () => number
}

export class SnowmanChain {
  readonly #random: () => number
  readonly #now: () => number
  readonly #unregister: () => void
  #runner: EffectRunner | undefined

  constructor(private readonly deps: SnowmanChainDeps) {
    this.#random = deps.random ?? Math.random
    this.#now = deps.now ?? Date.now
    this.#unregister = deps.router.register(deps.chainId, this.#handlers())
  }

  /** connected (self always), and not benched on this chain */
  #isConnected = (nodeId: string): boolean =>
    nodeId === this.deps.self || (this.deps.router.isConnected(nodeId) && !this.deps.isBenched(nodeId))

  #handlers(): ChainHandlers {
    const { blocks } = this.deps
    const lookup = (id: string) => blocks.container(id)
    return {
      pushQuery: async (from, container, requestedHeight) => this.#runner?.pushQuery(from, container, requestedHeight),
      pullQuery: async (from, blockId, requestedHeight) => this.#runner?.pullQuery(from, blockId, requestedHeight),
      get: async (_from, blockId) => (await blocks.container(blockId))?.bytes,
      getAcceptedFrontier: async () => blocks.lastAccepted().id,
      getAccepted: async (_from, ids) =>
        answerGetAccepted(ids, lookup, blocks.lastAccepted(), (h) => blocks.acceptedIdAt(h)),
      getAncestors: async (_from, id) => {
        const out = await collectAncestors(id, lookup)
        return out.length === 0 ? undefined : out
      },
      appRequest: async (from, bytes) => {
        const { vm } = blocks
        if (vm.appRequest === undefined) throw new AppRequestError(-2, 'unregistered handler')
        try {
          return await vm.appRequest(from, bytes)
        } catch (err) {
          throw err instanceof AppError ? new AppRequestError(err.code, err.message) : err
        }
      },
      appGossip: (from, bytes) => blocks.vm.appGossip?.(from, bytes),
    }
  }

  /** The bootstrapper's IO over the network and the VM (`BootstrapIo`). */
  #bootstrapIo(): BootstrapIo {
    const { deps } = this
    const { blocks, router, chainId } = deps
    const parsedAncestors = new WeakMap<Uint8Array, ParsedBlock>()
    return {
      self: deps.self,
      beacons: deps.validators,
      connectedWeight: () => {
        let w = 0n
        for (const v of deps.validators()) if (this.#isConnected(v.nodeId)) w += v.weight
        return w
      },
      lastAccepted: () => blocks.lastAccepted(),
      getAcceptedFrontier: (n) => router.getAcceptedFrontier(n, chainId),
      getAccepted: (n, ids) => router.getAccepted(n, chainId, ids),
      // the bootstrapper parses synchronously: the containers are parsed as they arrive, in order, up to the
      // first that does not parse (where the bootstrapper stops reading too)
      getAncestors: async (n, id) => {
        const containers = await router.getAncestors(n, chainId, id)
        for (const c of containers) {
          const parsed = await blocks.parse(c)
          if (parsed === undefined) break
          const { id: blockId, parentId, height, timestampMs, bytes } = parsed
          parsedAncestors.set(c, { id: blockId, parentId, height, timestampMs, bytes })
        }
        return containers
      },
      parse: (bytes) => parsedAncestors.get(bytes),
      has: (id) => blocks.isAccepted(id),
      execute: (block) => blocks.executeAccepted(block),
      random: this.#random,
      now: this.#now,
    }
  }

  /**
   * The `bootstrapIo` slot for one bootstrap run of `bootstrapper` (the bootstrapper actor): its requests carried
   * out, peer connects and disconnects as `bootstrap.connectivityChanged`, its progress and the beacon warning in
   * the chain's log.
   */
  bootstrapIo(bootstrapper: AnyActorRef): Observable<BootstrapperEvent> {
    const { deps } = this
    const { log } = deps
    const started = this.#now()
    const emitted = emitted$(bootstrapper) as Observable<BootstrapperEmitted>
    const logs$ = emitted.pipe(
      tap((e) => {
        if (e.type === 'bootstrap.progress') {
          log.info('bootstrapping', {
            phase: e.phase,
            round: e.round,
            fetched: e.fetched,
            executed: e.executed,
            remaining: e.remaining,
            blocksPerSecond: Math.round(e.rate * 10) / 10,
            eta: e.etaSeconds === null ? 'unknown' : formatGoDuration(BigInt(e.etaSeconds) * 1_000_000_000n),
            elapsedSeconds: Math.round((this.#now() - started) / 1000),
          })
        } else if (e.type === 'bootstrap.beaconsNotConnected') {
          const beacons = deps.validators().filter((v) => v.weight > 0n && v.nodeId !== deps.self)
          log.warn('failed to connect to bootstrap nodes', {
            notConnected: beacons.filter((v) => !deps.router.isConnected(v.nodeId)).map((v) => v.nodeId),
            beacons: beacons.length,
            duration: formatGoDuration(BigInt(e.waitedMs) * 1_000_000n),
          })
        }
      }),
      ignoreElements(),
    )
    const connectivity$ = deps.peerEvents$.pipe(
      filter((e) => e.type === 'connected' || e.type === 'disconnected'),
      map((): BootstrapperEvent => ({ type: 'bootstrap.connectivityChanged' })),
    )
    deps.blocks.vm.setState?.('bootstrapping')
    const run$ = bootstrapRun(this.#bootstrapIo(), emitted, { sampleK: deps.params.k })
    return merge(logs$, run$, connectivity$)
  }

  /** The `engineIo` slot for one run of `engine` (the engine actor) in normal operation: engine-io.ts. */
  engineIo(engine: AnyActorRef): Observable<EngineMachineEvent> {
    const { deps } = this
    return engineIo(
      {
        ...deps,
        attach: (runner) => {
          this.#runner = runner
        },
        detach: (runner) => {
          if (this.#runner === runner) this.#runner = undefined
        },
        now: this.#now,
        random: this.#random,
      },
      engine,
    )
  }

  close(): void {
    this.#unregister()
  }
}
