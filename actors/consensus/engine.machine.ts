/**
 * The Snowman consensus engine as an XState actor (`engine:<alias>`, a child of the chain actor in normalOp):
 * `starting` until its IO says where the chain stands (`engine.ready`), then `quiescent` (nothing processing) and
 * `active`, derived from the core after each input; a delayed transition is the frontier-poll tick (100 ms by
 * default), so tests can drive it with a SimulatedClock.
 *
 * IO is one slot, `engineIo` (an event Observable the composition root provides), invoked for the actor's life
 * with `{ chainId, alias, self }`: its events are the engine's inputs (inbound queries, the answers to the effects,
 * connectivity, validator and pending-tx changes), and it carries out the effects the engine emits
 * (`engine.effects`, one event per input, in order). The context is JSON-safe: the core's plain state
 * (engine-types.ts), updated in place by `engineHandle` within each input (docs/architecture.md, decisions), so
 * step this machine with an actor, not with the pure `transition()`.
 */
import { type AnyActorRef, enqueueActions, setup } from 'xstate'
import { notProvidedEventObservable } from '../not-provided.js'
import {
  type EngineEffect,
  type EngineInput,
  type EngineState,
  engineCreate,
  engineHandle,
  engineNumProcessing,
} from './engine.js'
import type { SnowParams } from './params.js'
import type { AcceptedRef, ValidatorStake } from './types.js'

export const DEFAULT_FRONTIER_POLL_MS = 100

export interface EngineMachineInput {
  /** CB58 chain ID */
  chainId: string
  alias: string
  /** own NodeID */
  self: string
  params: SnowParams
  frontierPollMs?: number
}

export interface EngineMachineContext extends Required<EngineMachineInput> {
  /** the core's state; null until `engine.ready` */
  core: EngineState | null
}

/** The IO slot's first event: where the chain stands when the engine starts. */
export interface EngineReady {
  type: 'engine.ready'
  lastAccepted: AcceptedRef
  validators: ValidatorStake[]
  /** peers connected and not benched on this chain */
  connected: string[]
  /** the PRNG's seed */
  seed: number
}

export type EngineMachineEvent = EngineReady | Exclude<EngineInput, { type: 'tick' }>

/** The effects of one input, in order. */
export type EngineEmitted = { type: 'engine.effects'; effects: EngineEffect[] }

/** What the `engineIo` slot is invoked with. */
export interface EngineIoInput {
  chainId: string
  alias: string
  /** the engine actor: the IO listens to its emitted effects */
  self: AnyActorRef
}

/** every input once the core exists: to the core, then its effects out */
const handled = {
  guard: ({ context }: { context: EngineMachineContext }) => context.core !== null,
  actions: { type: 'handle' as const, params: { tick: false } },
}

export const engineMachine = setup({
  types: {
    input: {} as EngineMachineInput,
    context: {} as EngineMachineContext,
    events: {} as EngineMachineEvent,
    emitted: {} as EngineEmitted,
  },
  actors: {
    engineIo: notProvidedEventObservable<EngineMachineEvent, EngineIoInput>('engineIo'),
  },
  actions: {
    /** feed the event (or the tick) to the core, in place; emit its effects */
    handle: enqueueActions(({ context, event, enqueue }, params: { tick: boolean }) => {
      const core = context.core
      if (core === null || event.type === 'engine.ready') return
      const effects = engineHandle(core, params.tick ? { type: 'tick' } : event)
      enqueue.assign({ core })
      if (effects.length > 0) enqueue.emit({ type: 'engine.effects', effects })
    }),
  },
  guards: {
    isActive: ({ context }) => context.core !== null && engineNumProcessing(context.core) > 0,
    isQuiescent: ({ context }) => context.core !== null && engineNumProcessing(context.core) === 0,
  },
  delays: {
    frontierPoll: ({ context }) => context.frontierPollMs,
  },
}).createMachine({
  id: 'engine',
  context: ({ input }) => ({
    chainId: input.chainId,
    alias: input.alias,
    self: input.self,
    params: input.params,
    frontierPollMs: input.frontierPollMs ?? DEFAULT_FRONTIER_POLL_MS,
    core: null,
  }),
  invoke: {
    id: 'io',
    src: 'engineIo',
    input: ({ context, self }) => ({ chainId: context.chainId, alias: context.alias, self }),
  },
  initial: 'starting',
  states: {
    starting: {
      on: {
        'engine.ready': {
          target: 'quiescent',
          actions: enqueueActions(({ context, event, enqueue }) => {
            enqueue.assign({
              core: engineCreate({
                params: context.params,
                self: context.self,
                lastAccepted: event.lastAccepted,
                validators: event.validators,
                connected: event.connected,
                seed: event.seed,
              }),
            })
          }),
        },
      },
    },
    quiescent: {
      always: { guard: 'isActive', target: 'active' },
      after: {
        frontierPoll: { target: 'quiescent', reenter: true, actions: { type: 'handle', params: { tick: true } } },
      },
    },
    active: {
      always: { guard: 'isQuiescent', target: 'quiescent' },
      after: {
        frontierPoll: { target: 'active', reenter: true, actions: { type: 'handle', params: { tick: true } } },
      },
    },
  },
  on: {
    query: handled,
    chits: handled,
    queryFailed: handled,
    put: handled,
    getFailed: handled,
    verified: handled,
    built: handled,
    buildFailed: handled,
    pendingTxs: handled,
    connectivityChanged: handled,
    validatorsChanged: handled,
  },
})
