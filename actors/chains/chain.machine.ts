/**
 * One chain's lifecycle: initializing -> bootstrapping -> normalOp (the reference's chain states).
 * Pure: initialization, bootstrapping and block production are IO slots the composition root provides. With no
 * other validator to learn from, a chain goes straight from initializing to normalOp. In normalOp the chain
 * runs `produceBlocks` (a lone validator builds and accepts blocks as txs arrive; consensus replaces it when
 * there are other validators). `info.isBootstrapped` reads `snapshot.matches('normalOp')`.
 */
import { assign, emit, setup } from 'xstate'
import { notProvidedCallback, notProvidedPromise } from '../not-provided.js'

export interface ChainInput {
  /** CB58 chain ID */
  chainId: string
  /** primary alias (`C`), or the chain ID string */
  alias: string
}

export interface ChainInitResult {
  /** true when other validators of this chain exist to bootstrap from */
  hasOtherValidators: boolean
}

export interface ChainContext extends ChainInput {
  error: string | null
  /** bootstrap progress as reported by the bootstrapper, JSON-safe */
  progress: { fetched: number; executed: number } | null
}

export interface BootstrapOutput {
  executed: number
  error?: string
}

export type ChainEvent =
  | { type: 'chain.bootstrapProgress'; fetched: number; executed: number }
  | { type: 'chain.bootstrapped' }
  | { type: 'chain.stop' }

export type ChainEmitted = {
  type: 'chain.stateChanged'
  chainId: string
  state: 'bootstrapping' | 'normalOp' | 'failed' | 'stopped'
}

export const chainMachine = setup({
  types: {
    input: {} as ChainInput,
    context: {} as ChainContext,
    events: {} as ChainEvent,
    emitted: {} as ChainEmitted,
  },
  actors: {
    initializeChain: notProvidedPromise<ChainInitResult, ChainInput>('initializeChain'),
    /** the chain's bootstrapper (actors/consensus/bootstrapper.machine.ts); its output names an error if it failed */
    bootstrapChain: notProvidedPromise<BootstrapOutput, ChainInput>('bootstrapChain'),
    produceBlocks: notProvidedCallback<ChainEvent, ChainInput>('produceBlocks'),
  },
  actions: {
    announce: emit((_, params: { chainId: string; state: ChainEmitted['state'] }) => ({
      type: 'chain.stateChanged' as const,
      ...params,
    })),
  },
  guards: {
    hasOtherValidators: (_, params: { result: ChainInitResult }) => params.result.hasOtherValidators,
  },
}).createMachine({
  id: 'chain',
  context: ({ input }) => ({ ...input, error: null, progress: null }),
  initial: 'initializing',
  on: { 'chain.stop': '.stopped' },
  states: {
    initializing: {
      invoke: {
        id: 'initializeChain',
        src: 'initializeChain',
        input: ({ context }) => ({ chainId: context.chainId, alias: context.alias }),
        onDone: [
          {
            guard: { type: 'hasOtherValidators', params: ({ event }) => ({ result: event.output }) },
            target: 'bootstrapping',
          },
          { target: 'normalOp' },
        ],
        onError: {
          target: 'failed',
          actions: assign({
            error: ({ event }) => (event.error instanceof Error ? event.error.message : String(event.error)),
          }),
        },
      },
    },
    bootstrapping: {
      entry: {
        type: 'announce',
        params: ({ context }) => ({ chainId: context.chainId, state: 'bootstrapping' as const }),
      },
      invoke: {
        id: 'bootstrapChain',
        src: 'bootstrapChain',
        input: ({ context }) => ({ chainId: context.chainId, alias: context.alias }),
        onDone: [
          {
            guard: ({ event }) => typeof event.output?.error === 'string',
            target: 'failed',
            actions: assign({ error: ({ event }) => event.output?.error ?? null }),
          },
          { target: 'normalOp' },
        ],
        onError: {
          target: 'failed',
          actions: assign({
            error: ({ event }) => (event.error instanceof Error ? event.error.message : String(event.error)),
          }),
        },
      },
      on: {
        'chain.bootstrapProgress': {
          actions: assign({ progress: ({ event }) => ({ fetched: event.fetched, executed: event.executed }) }),
        },
        'chain.bootstrapped': 'normalOp',
      },
    },
    normalOp: {
      entry: { type: 'announce', params: ({ context }) => ({ chainId: context.chainId, state: 'normalOp' as const }) },
      invoke: {
        id: 'produceBlocks',
        src: 'produceBlocks',
        input: ({ context }) => ({ chainId: context.chainId, alias: context.alias }),
      },
    },
    failed: {
      entry: { type: 'announce', params: ({ context }) => ({ chainId: context.chainId, state: 'failed' as const }) },
    },
    stopped: {
      type: 'final',
      entry: { type: 'announce', params: ({ context }) => ({ chainId: context.chainId, state: 'stopped' as const }) },
    },
  },
})
