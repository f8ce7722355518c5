/**
 * The `engineIo` slot of a Snowman chain's engine actor (`engine:<alias>`): one subscription is one run of the
 * engine in normal operation. Its events, merged: `engine.ready` first (the last accepted block, the validators,
 * the connected peers, a seed), the inbound queries of the chain's handlers, `pendingTxs` from the proposer-slot
 * builder, connectivity and validator changes (peer connects and disconnects, bench changes of `benchlist:<alias>`),
 * and the answers to the effects the engine emits (`engine.effects`, carried out by `EffectRunner`). The run also
 * starts the builder, tells the VM it is in normal operation (`setState('normalOp')`: the EVM's tx gossip runs),
 * and logs progress; unsubscribing (the chain leaves normalOp) stops them all and sets the VM back.
 */
import {
  defer,
  EMPTY,
  filter,
  finalize,
  from,
  ignoreElements,
  merge,
  mergeMap,
  type Observable,
  of,
  Subject,
  tap,
} from 'rxjs'
import type { AnyActorRef } from 'xstate'
import type { EngineSnapshot } from '../../../actors/consensus/engine.js'
import { engineSummary } from '../../../actors/consensus/engine.js'
import type {
  EngineEmitted,
  EngineMachineContext,
  EngineMachineEvent,
} from '../../../actors/consensus/engine.machine.js'
import type { SnowParams } from '../../../actors/consensus/params.js'
import type { ValidatorStake, Weighted } from '../../../actors/consensus/types.js'
import type { BenchlistEmitted } from '../../../actors/peers/benchlist.machine.js'
import { SystemId } from '../../../actors/system-ids.js'
import { idFromString } from '../../identity/ids.js'
import type { Logger } from '../../log/logger.js'
import type { ChainRouter } from '../../network/chain-router.js'
import type { PeerEvent } from '../../network/network.js'
import { emitted$ } from '../../runtime/emitted.js'
import { BlockBytes } from './block-bytes.js'
import { SlotBuilder } from './builder.js'
import { EffectRunner } from './effects.js'
import type { SignedBlocks } from './signed-blocks.js'

/** What a chain's consensus runs on: its identity, blocks, network and validator views. */
export interface ChainConsensusDeps {
  alias: string
  /** CB58 chain ID */
  chainId: string
  self: string
  blocks: SignedBlocks
  router: Pick<ChainRouter, 'pushQuery' | 'pullQuery' | 'get' | 'connectedNodeIds'>
  /** the network's peer events (only `connected` / `disconnected` are used) */
  peerEvents$: Observable<PeerEvent>
  isBenched: (nodeId: string) => boolean
  /** the chain's validators (stake weights) */
  validators: () => readonly Weighted[]
  /** the proposer set; empty = anyone builds */
  proposers: () => readonly Weighted[]
  params: SnowParams
  log: Logger
}

export interface EngineIoDeps extends ChainConsensusDeps {
  /** the chain's inbound query handlers reach the run's runner while it runs */
  attach: (runner: EffectRunner) => void
  /** the run stopped: its runner no longer takes queries */
  detach: (runner: EffectRunner) => void
  now: () => number
  random: () => number
}

const stakesOf = (validators: readonly Weighted[]): ValidatorStake[] =>
  validators.map((v) => ({ nodeId: v.nodeId, weight: v.weight.toString() }))

const keyOf = (stakes: readonly ValidatorStake[]): string => stakes.map((v) => `${v.nodeId}:${v.weight}`).join(',')

/** The engine's IO for one run; `self` is the engine actor. */
export function engineIo(deps: EngineIoDeps, self: AnyActorRef): Observable<EngineMachineEvent> {
  return defer(() => {
    const { log } = deps
    const events = new Subject<EngineMachineEvent>()
    const { blocks } = deps
    const builder = new SlotBuilder({
      vm: blocks.vm,
      preferred: () => blocks.preferred,
      chainId: idFromString(deps.chainId),
      self: deps.self,
      proposers: deps.proposers,
      notify: () => events.next({ type: 'pendingTxs' }),
      now: deps.now,
    })
    const runner = new EffectRunner({
      chainId: deps.chainId,
      self: deps.self,
      blocks: deps.blocks,
      router: deps.router,
      log,
      bytes: new BlockBytes(),
      send: (e) => events.next(e),
      onTipChanged: () => builder.reschedule(),
      onBuildEmpty: () => builder.buildWasEmpty(),
    })

    // connectivity as data: the peers connected (from the peer events) and not benched on this chain
    const peers = new Set(deps.router.connectedNodeIds())
    const connected = (): string[] => [...peers].filter((n) => !deps.isBenched(n))
    let stakes = stakesOf(deps.validators())
    let stakesKey = keyOf(stakes)
    const benchlist = self.system.get(SystemId.benchlist(deps.alias)) as AnyActorRef | undefined
    const benchChanges$: Observable<unknown> =
      benchlist === undefined
        ? EMPTY
        : (emitted$(benchlist) as Observable<BenchlistEmitted>).pipe(filter((e) => e.type === 'bench.changed'))
    const peerChanges$ = deps.peerEvents$.pipe(
      filter((e) => e.type === 'connected' || e.type === 'disconnected'),
      tap((e) => (e.type === 'connected' ? peers.add(e.nodeId) : peers.delete(e.nodeId))),
    )
    const connectivity$ = merge(peerChanges$, benchChanges$).pipe(
      mergeMap((): Observable<EngineMachineEvent> => {
        const next = stakesOf(deps.validators())
        const nextKey = keyOf(next)
        const out: EngineMachineEvent[] = []
        if (nextKey !== stakesKey) {
          stakes = next
          stakesKey = nextKey
          out.push({ type: 'validatorsChanged', validators: stakes })
        }
        out.push({ type: 'connectivityChanged', connected: connected() })
        return from(out)
      }),
    )

    // the effects the engine emits, carried out; their answers come back through `events`
    const effects$ = (emitted$(self) as Observable<EngineEmitted | { type: string }>).pipe(
      tap((e) => {
        if (e.type === 'engine.effects') runner.run((e as EngineEmitted).effects)
      }),
      ignoreElements(),
    )

    const ready: EngineMachineEvent = {
      type: 'engine.ready',
      lastAccepted: deps.blocks.lastAccepted(),
      validators: stakes,
      connected: connected(),
      seed: Math.floor(deps.random() * 2 ** 32),
    }
    deps.attach(runner)
    builder.start()
    blocks.vm.setState?.('normalOp')
    const watch = watchProgress(deps, () => summaryOf(self))
    log.info('consensus started', { lastAccepted: ready.lastAccepted, validators: deps.validators().length })
    return merge(of(ready), events, connectivity$, effects$).pipe(
      finalize(() => {
        clearInterval(watch)
        deps.detach(runner)
        // out of normal operation: the VM's normal-operation work (the EVM's gossip) stops
        blocks.vm.setState?.('bootstrapping')
        builder.stop()
        runner.stop()
      }),
    )
  })
}

function summaryOf(engine: AnyActorRef): EngineSnapshot | undefined {
  const core = (engine.getSnapshot() as { context?: EngineMachineContext }).context?.core
  return core === null || core === undefined ? undefined : engineSummary(core)
}

/**
 * Every 2 s: while blocks are processing and none was accepted since the last look, the engine's summary goes to
 * the debug log; past --snow-max-time-processing without an accepted block, a warning (the reference's health
 * rule).
 */
function watchProgress(deps: EngineIoDeps, summary: () => EngineSnapshot | undefined): NodeJS.Timeout {
  const { log, params } = deps
  let lastHeight = -1
  let since = deps.now()
  let warned = false
  const timer = setInterval(() => {
    const s = summary()
    if (s === undefined) return
    const now = deps.now()
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
