/**
 * One Snowman chain on the peer network (the C chain today): the bootstrapper actor's IO, the consensus engine
 * actor with its effect runner, the proposer-slot block builder and the tx gossiper, and the chain's side of the
 * consensus / bootstrap / app protocols. `bootstrapLogic` fills the chain actor's `bootstrapChain` slot and
 * `startConsensus` its `produceBlocks` slot in normal operation. Queries are ignored (the querier times out) until
 * the engine runs; frontier, accepted and ancestors requests are served at any time (reference consensus.md 3.3).
 */
import type { Subscription } from 'rxjs'
import { createActor, type InspectionEvent } from 'xstate'
import { answerGetAccepted, collectAncestors } from '../../../actors/consensus/bootstrap.js'
import { createBootstrapActors } from '../../../actors/consensus/bootstrapper.io.js'
import {
  type BootstrapperInput,
  bootstrapperMachine,
  progressOf,
} from '../../../actors/consensus/bootstrapper.machine.js'
import type { EngineSnapshot } from '../../../actors/consensus/engine.js'
import { engineMachine } from '../../../actors/consensus/engine.machine.js'
import type { SnowParams } from '../../../actors/consensus/params.js'
import type { Weighted } from '../../../actors/consensus/types.js'
import { idFromString } from '../../identity/ids.js'
import type { Logger } from '../../log/logger.js'
import type { ChainHandlers, ChainRouter } from '../../network/chain-router.js'
import type { PeerEvent } from '../../network/network.js'
import { formatGoDuration } from '../evm/config/go-duration.js'
import { TxGossiper } from '../evm/gossip/gossiper.js'
import { AppRequestError } from '../evm/gossip/wire.js'
import { SlotBuilder } from './builder.js'
import { EffectRunner } from './effects.js'
import type { EvmBlocks } from './evm-blocks.js'

export interface SnowmanChainDeps {
  alias: string
  /** CB58 chain ID */
  chainId: string
  self: string
  blocks: EvmBlocks
  router: ChainRouter
  peerEvents$: { subscribe(f: (e: PeerEvent) => void): Subscription }
  isBenched: (nodeId: string) => boolean
  /** the chain's validators (stake weights) */
  validators: () => readonly Weighted[]
  /** the proposer set; empty = anyone builds */
  proposers: () => readonly Weighted[]
  params: SnowParams
  frontierPollMs: number
  /** `--bootstrap-beacon-connection-timeout` (ms); the bootstrapper's default (1 min) when absent */
  beaconConnectionTimeoutMs?: number
  log: Logger
  /** dev tools: the engine actor is a root of its own, reported through the node's inspector */
  inspect?: (ev: InspectionEvent) => void
  random?: () => number
  now?: () => number
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e))

export class SnowmanChain {
  readonly #random: () => number
  readonly #now: () => number
  readonly #unregister: () => void
  #runner: EffectRunner | undefined
  readonly gossiper: TxGossiper

  constructor(private readonly deps: SnowmanChainDeps) {
    this.#random = deps.random ?? Math.random
    this.#now = deps.now ?? Date.now
    this.gossiper = new TxGossiper({
      vm: deps.blocks.vm,
      log: deps.log,
      transport: {
        self: deps.self,
        validators: deps.validators,
        connectedNodeIds: () => deps.router.connectedNodeIds(),
        appGossip: (ids, bytes) => deps.router.appGossip(ids, deps.chainId, bytes),
        appRequest: (id, bytes) => deps.router.appRequest(id, deps.chainId, bytes),
      },
    })
    this.#unregister = deps.router.register(deps.chainId, this.#handlers())
  }

  /** connected (self always), and not benched on this chain */
  #isConnected = (nodeId: string): boolean =>
    nodeId === this.deps.self || (this.deps.router.isConnected(nodeId) && !this.deps.isBenched(nodeId))

  #handlers(): ChainHandlers {
    const { blocks } = this.deps
    const lookup = (id: string) => blocks.container(id)
    return {
      pushQuery: async (from, container, requestedHeight) => this.#runner?.query(from, { container, requestedHeight }),
      pullQuery: async (from, blockId, requestedHeight) => this.#runner?.query(from, { blockId, requestedHeight }),
      get: async (_from, blockId) => (await blocks.container(blockId))?.bytes,
      getAcceptedFrontier: async () => blocks.lastAccepted().id,
      getAccepted: async (_from, ids) =>
        answerGetAccepted(ids, lookup, blocks.lastAccepted(), (h) => blocks.acceptedIdAt(h)),
      getAncestors: async (_from, id) => {
        const out = await collectAncestors(id, lookup)
        return out.length === 0 ? undefined : out
      },
      appRequest: async (from, bytes) => {
        if (!this.gossiper.started) throw new AppRequestError(-2, 'unregistered handler')
        return this.gossiper.onAppRequest(from, bytes)
      },
      appGossip: (from, bytes) => this.gossiper.onAppGossip(from, bytes),
    }
  }

  /** The bootstrapper actor for the chain actor's `bootstrapChain` slot; progress goes to the chain's log. */
  bootstrapLogic() {
    const { deps } = this
    const { blocks, router, chainId, log } = deps
    const started = this.#now()
    const actors = createBootstrapActors(
      {
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
        getAncestors: (n, id) => router.getAncestors(n, chainId, id),
        parse: (bytes) => blocks.parse(bytes),
        has: (id) => blocks.isAccepted(id),
        execute: (block) => blocks.executeAccepted(block),
        random: this.#random,
        now: this.#now,
      },
      { sampleK: deps.params.k },
    )
    return bootstrapperMachine.provide({
      actors,
      actions: {
        emitProgress: ({ context }) => {
          const p = progressOf(context)
          log.info('bootstrapping', {
            phase: p.phase,
            round: p.round,
            fetched: p.fetched,
            executed: p.executed,
            blocksPerSecond: Math.round(p.rate * 10) / 10,
            etaSeconds: p.etaSeconds,
            elapsedSeconds: Math.round((this.#now() - started) / 1000),
          })
        },
        beaconsNotConnected: ({ context }) => {
          const { self, router, validators } = this.deps
          const beacons = validators().filter((v) => v.weight > 0n && v.nodeId !== self)
          log.warn('failed to connect to bootstrap nodes', {
            notConnected: beacons.filter((v) => !router.isConnected(v.nodeId)).map((v) => v.nodeId),
            beacons: beacons.length,
            duration: formatGoDuration(BigInt(context.beaconTimeoutMs) * 1_000_000n),
          })
        },
      },
    })
  }

  /** the bootstrapper actor's id, input and the node's inspector */
  bootstrapActorOptions(): {
    id: string
    input: BootstrapperInput
    inspect?: (ev: InspectionEvent) => void
  } {
    const timeout = this.deps.beaconConnectionTimeoutMs
    return {
      id: `bootstrapper:${this.deps.alias}`,
      input: timeout === undefined ? {} : { beaconTimeoutMs: timeout },
      ...(this.deps.inspect === undefined ? {} : { inspect: this.deps.inspect }),
    }
  }

  /** Normal operation: the engine, the builder and tx gossip; returns their stop. */
  startConsensus(): () => void {
    const { deps } = this
    const { blocks, log } = deps
    const chainIdBytes = idFromString(deps.chainId)
    let engine: ReturnType<typeof createActor<typeof engineMachine>> | undefined
    const builder = new SlotBuilder({
      vm: blocks.vm,
      chainId: chainIdBytes,
      self: deps.self,
      proposers: deps.proposers,
      notify: () => engine?.send({ type: 'pendingTxs' }),
      now: this.#now,
    })
    const runner = new EffectRunner({
      chainId: deps.chainId,
      self: deps.self,
      blocks,
      router: deps.router,
      log,
      onTipChanged: () => builder.reschedule(),
      onBuildEmpty: () => builder.buildWasEmpty(),
    })
    const logic = engineMachine.provide({
      actions: { executeEffects: (_, params) => runner.run(params.effects) },
    })
    engine = createActor(logic, {
      id: `engine:${deps.alias}`,
      input: {
        deps: {
          params: deps.params,
          self: deps.self,
          validators: deps.validators,
          isConnected: this.#isConnected,
          parse: (bytes) => blocks.parse(bytes),
          random: this.#random,
        },
        lastAccepted: blocks.lastAccepted(),
        frontierPollMs: deps.frontierPollMs,
      },
      ...(deps.inspect === undefined ? {} : { inspect: deps.inspect }),
    })
    runner.attach(engine)
    this.#runner = runner
    engine.start()
    const sub = deps.peerEvents$.subscribe((e) => {
      if (e.type === 'connected' || e.type === 'disconnected') engine?.send({ type: 'connectivityChanged' })
    })
    builder.start()
    this.gossiper.start()
    const watch = this.#watchProgress(() => engine?.getSnapshot().context.summary)
    log.info('consensus started', { lastAccepted: blocks.lastAccepted(), validators: deps.validators().length })
    return () => {
      clearInterval(watch)
      sub.unsubscribe()
      this.gossiper.stop()
      builder.stop()
      runner.stop()
      this.#runner = undefined
      try {
        engine?.send({ type: 'engine.stop' })
        engine?.stop()
      } catch (err) {
        log.debug('engine stop failed', { err: errorText(err) })
      }
      engine = undefined
    }
  }

  /**
   * Every 2 s: while blocks are processing and none was accepted since the last look, the engine's summary goes to
   * the debug log; past --snow-max-time-processing without an accepted block, a warning (the reference's health
   * rule).
   */
  #watchProgress(summary: () => EngineSnapshot | undefined): NodeJS.Timeout {
    const { log, params } = this.deps
    let lastHeight = -1
    let since = this.#now()
    let warned = false
    const timer = setInterval(() => {
      const s = summary()
      if (s === undefined) return
      const now = this.#now()
      if (s.lastAccepted.height !== lastHeight || s.numProcessing === 0) {
        lastHeight = s.lastAccepted.height
        since = now
        warned = false
        return
      }
      log.debug('consensus waiting', { ...s, stalledMs: now - since })
      if (!warned && now - since >= params.maxItemProcessingTimeMs) {
        warned = true
        log.warn('no block accepted while blocks are processing', {
          stalledSeconds: Math.round((now - since) / 1000),
          lastAccepted: s.lastAccepted,
          numProcessing: s.numProcessing,
          preference: s.preference,
        })
      }
    }, 2_000)
    timer.unref()
    return timer
  }

  close(): void {
    this.#unregister()
  }
}
