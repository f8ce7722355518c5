/**
 * The Snowman consensus engine as an XState actor: `quiescent` (nothing processing) and `active`, derived from
 * the core after each input; a delayed transition is the frontier-poll tick (100 ms by default), so tests can
 * drive it with a SimulatedClock. Every event goes to the pure core (`Engine.handle`); the effects go, in order,
 * to the `executeEffects` action the composition root provides (the default throws "executeEffects was not
 * provided"). The context keeps the core and a JSON-safe `summary` (its snapshot) for dev tools.
 */
import { assign, setup } from 'xstate'
import { notProvidedMessage } from '../not-provided.js'
import { Engine, type EngineDeps, type EngineEffect, type EngineInput, type EngineSnapshot } from './engine.js'
import type { AcceptedRef } from './types.js'

export const DEFAULT_FRONTIER_POLL_MS = 100

export interface EngineMachineInput {
  deps: EngineDeps
  lastAccepted: AcceptedRef
  frontierPollMs?: number
}

export interface EngineMachineContext {
  core: Engine
  summary: EngineSnapshot
  frontierPollMs: number
  /** effects of the last input, handed to `executeEffects` */
  effects: EngineEffect[]
}

export type EngineMachineEvent = EngineInput | { type: 'engine.stop' }

export interface ExecuteEffectsParams {
  effects: EngineEffect[]
}

/** every input: to the core, then its effects to the IO */
const runEffects = {
  type: 'executeEffects' as const,
  params: ({ context }: { context: EngineMachineContext }) => ({ effects: context.effects }),
}
const handled = { actions: ['handleInput' as const, runEffects] }

const run = (context: EngineMachineContext, input: EngineInput) => {
  const effects = context.core.handle(input)
  return { effects, summary: context.core.snapshot() }
}

export const engineMachine = setup({
  types: {
    input: {} as EngineMachineInput,
    context: {} as EngineMachineContext,
    events: {} as EngineMachineEvent,
  },
  actions: {
    /** feed the event to the core; keep its effects and summary */
    handleInput: assign(({ context, event }) => run(context, event as EngineInput)),
    /** the frontier-poll / repoll tick */
    handleTick: assign(({ context }) => run(context, { type: 'tick' })),
    /** run the effects in order (IO); provided by the composition root */
    executeEffects: (_: unknown, _params: ExecuteEffectsParams) => {
      throw new Error(notProvidedMessage('executeEffects'))
    },
  },
  guards: {
    isActive: ({ context }) => context.summary.numProcessing > 0,
    isQuiescent: ({ context }) => context.summary.numProcessing === 0,
  },
  delays: {
    frontierPoll: ({ context }) => context.frontierPollMs,
  },
}).createMachine({
  id: 'engine',
  context: ({ input }) => {
    const core = new Engine(input.deps, input.lastAccepted)
    return {
      core,
      summary: core.snapshot(),
      frontierPollMs: input.frontierPollMs ?? DEFAULT_FRONTIER_POLL_MS,
      effects: [],
    }
  },
  initial: 'quiescent',
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
    tick: handled,
    connectivityChanged: handled,
    'engine.stop': { target: '.stopped' },
  },
  states: {
    quiescent: {
      always: { guard: 'isActive', target: 'active' },
      after: {
        frontierPoll: {
          target: 'quiescent',
          reenter: true,
          actions: ['handleTick', runEffects],
        },
      },
    },
    active: {
      always: { guard: 'isQuiescent', target: 'quiescent' },
      after: {
        frontierPoll: {
          target: 'active',
          reenter: true,
          actions: ['handleTick', runEffects],
        },
      },
    },
    stopped: { type: 'final' },
  },
})
