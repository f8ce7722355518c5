/**
 * One chain's lifecycle: waitingForVm -> initializing -> bootstrapping -> normalOp (the reference's chain states,
 * after a wait for the chain's VM: a declared chain whose plugin VM is not installed yet waits for `admin.loadVMs`
 * to register it), and the parent of the chain's actors, so its lifecycle starts and stops them:
 *
 * - `benchlist:<alias>` for the chain's whole life (it decides benching and tells the peer sessions);
 * - `profiler:<alias>`, the chain admin API's profiler, from initialization on when the opened chain asks for it;
 * - `bootstrapper:<alias>` while bootstrapping: its output decides normalOp, or failed when it names an error;
 * - `engine:<alias>` in normalOp when other validators exist; a lone validator (e.g. `--dev`) runs its
 *   `produceBlocks` IO slot instead (it builds and accepts blocks as txs arrive).
 *
 * With no other validator to learn from, a chain goes straight from initializing to normalOp. The bootstrapper
 * reports its progress (`chain.bootstrapProgress`), kept in the context. Pure: `initializeChain` and
 * `produceBlocks` are IO slots, and the children's own IO slots are provided by the composition root with the
 * children's logic. `info.isBootstrapped` reads `snapshot.matches('normalOp')`. Context is JSON-safe.
 */
import { type AnyActorRef, and, assign, emit, enqueueActions, setup } from 'xstate'
import { bootstrapperMachine, type ChainBootstrapProgress } from '../consensus/bootstrapper.machine.js'
import { engineMachine } from '../consensus/engine.machine.js'
import { DEFAULT_SNOW_PARAMS, type SnowParams } from '../consensus/params.js'
import { notProvidedEventObservable, notProvidedPromise } from '../not-provided.js'
import type { BenchlistConfig } from '../peers/benchlist.js'
import { benchlistMachine } from '../peers/benchlist.machine.js'
import { profilerMachine } from '../profiler/profiler.machine.js'
import { type Reply, type ReplyError, replyError, replyOk } from '../reply.js'
import { SystemId } from '../system-ids.js'

export interface ChainInput {
  /** CB58 chain ID */
  chainId: string
  /** primary alias (`C`, a declared chain's name), or the chain ID string */
  alias: string
  /** the VM the chain runs, as declared: `evm`, a plugin VM's alias or its VM ID */
  vm: string
  /** own NodeID (the engine's `self`) */
  nodeId: string
  /** the benchlist's settings (flags, stake cap); the reference's defaults when absent */
  benchlist?: Partial<BenchlistConfig>
  /** the Snowman parameters (`--snow-*`); the defaults when absent */
  snow?: SnowParams
  /** the engine's frontier-poll tick; its default (100 ms) when absent */
  frontierPollMs?: number
  /** `--bootstrap-beacon-connection-timeout` (ms); the bootstrapper's default (1 min) when absent */
  beaconTimeoutMs?: number
}

/** What the chain's own IO slots are invoked with: the runtime they serve is found by chain ID. */
export interface ChainSlotInput {
  chainId: string
  alias: string
}

/** The wait for the chain's VM (`awaitVm`): done once the VM is registered. */
export interface AwaitVmInput extends ChainSlotInput {
  vm: string
}

/** The chain's IO slot (`chainIo`, for the chain's whole life): it carries out what the chain emits. */
export interface ChainIoInput extends ChainSlotInput {
  /** the chain actor; it emits ChainEmitted */
  self: AnyActorRef
}

/** The answer to `chain.submitTxs` while the chain is not in normal operation (the reference's HTTP 503 text). */
export const NOT_BOOTSTRAPPED = 'API call rejected because chain is not done bootstrapping'

export interface ChainInitResult {
  /** true when other validators of this chain exist to bootstrap from */
  hasOtherValidators: boolean
  /** the chain serves an admin API with a profiler (the EVM's `admin-api-enabled`): spawn `profiler:<alias>` */
  profiler?: boolean
}

export type ChainPhase = ChainBootstrapProgress['phase']

export interface ChainContext extends ChainInput {
  error: string | null
  /** the last block the chain accepted (from its IO), null until one is */
  lastAccepted: { height: number; id: string; at: number } | null
  /** blocks accepted since the node started */
  acceptedCount: number
  /** from initialization: the engine runs in normalOp (else the lone validator's producer) */
  hasOtherValidators: boolean
  /** the bootstrapper's last progress report */
  progress: Omit<ChainBootstrapProgress, 'type'> | null
}

/** The bootstrapper's output (actors/consensus/bootstrapper.types.ts): `error` when it failed. */
export interface BootstrapOutput {
  executed: number
  error?: string
}

/** A child ended (its output) or failed (its error). */
type ChildDone = { type: `xstate.done.actor.${string}`; actorId: string; output: unknown }
type ChildError = { type: `xstate.error.actor.${string}`; actorId: string; error: unknown }

/**
 * Transaction admission into the chain (a command, answered with a reply: per transaction its hash, or the pool's
 * error). The transactions themselves wait in src/ under their tickets (their bytes stay out of events); `hash`
 * names each for dev tools. src/ sends what arrived in one event-loop turn as one command.
 */
export interface ParkedTx {
  ticket: number
  hash: string
}
export type SubmitTxs = { type: 'chain.submitTxs'; requestId: string; txs: ParkedTx[] }
/** one transaction's outcome */
export type TxAdmission = { ok: true; hash: string } | { ok: false; error: ReplyError }
/** The chain's IO: the admission's outcome, one result per transaction, in order. */
export type TxsAdmitted = { type: 'chain.txsAdmitted'; requestId: string; results: TxAdmission[] }

export type ChainEvent =
  | ChainBootstrapProgress
  | { type: 'chain.stop' }
  /** the chain's VM accepted a block (unix ms `at`) */
  | { type: 'chain.accepted'; height: number; id: string; at: number }
  | SubmitTxs
  | TxsAdmitted
  | ChildDone
  | ChildError

export type ChainState = 'waitingForVm' | 'bootstrapping' | 'normalOp' | 'failed' | 'stopped'

export type ChainEmitted =
  | { type: 'chain.stateChanged'; chainId: string; state: ChainState }
  /** for the `chainIo` slot: admit the parked transactions into the chain's pool, in order */
  | { type: 'chain.admitTxs'; requestId: string; txs: ParkedTx[] }
  | Reply

/** The ids (and systemIds) of a chain's children. */
export const chainChildren = (alias: string) => ({
  benchlist: SystemId.benchlist(alias),
  profiler: SystemId.chainProfiler(alias),
  bootstrapper: SystemId.bootstrapper(alias),
  engine: SystemId.engine(alias),
  producer: SystemId.producer(alias),
})

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** a child that fails (its IO slot errored) sends the chain to `failed` with the error's text */
const failOnChildError = (child: 'bootstrapper' | 'running') => ({
  guard: { type: 'fromChild' as const, params: { child } },
  target: 'failed' as const,
  actions: {
    type: 'fail' as const,
    params: ({ event }: { event: ChainEvent }) => ({ error: errorText('error' in event ? event.error : event) }),
  },
})

const slotOf = (context: ChainContext): ChainSlotInput => ({ chainId: context.chainId, alias: context.alias })

const bootstrapOutput = (output: unknown): BootstrapOutput =>
  typeof output === 'object' && output !== null ? (output as BootstrapOutput) : { executed: 0 }

export const chainMachine = setup({
  types: {
    input: {} as ChainInput,
    context: {} as ChainContext,
    events: {} as ChainEvent,
    emitted: {} as ChainEmitted,
  },
  actors: {
    /** resolves once the chain's VM is registered (built in, or a plugin loaded at start-up or by admin.loadVMs) */
    awaitVm: notProvidedPromise<void, AwaitVmInput>('awaitVm'),
    /** opens the chain: its VM over its own store, its consensus, its handlers */
    initializeChain: notProvidedPromise<ChainInitResult, ChainSlotInput>('initializeChain'),
    /** the chain's IO for its whole life: carries out what it emits (tx admission) */
    chainIo: notProvidedEventObservable<ChainEvent, ChainIoInput>('chainIo'),
    /** a lone validator's block producer: runs while subscribed */
    produceBlocks: notProvidedEventObservable<ChainEvent, ChainSlotInput>('produceBlocks'),
    benchlist: benchlistMachine,
    profiler: profilerMachine,
    bootstrapper: bootstrapperMachine,
    engine: engineMachine,
  },
  actions: {
    announce: emit(({ context }, params: { state: ChainState }) => ({
      type: 'chain.stateChanged' as const,
      chainId: context.chainId,
      state: params.state,
    })),
    fail: assign((_, params: { error: string }) => ({ error: params.error })),
    /** the chain admin API's profiler, when the opened chain serves one */
    spawnProfiler: enqueueActions(({ context, enqueue }, params: ChainInitResult) => {
      if (params.profiler !== true) return
      const id = chainChildren(context.alias).profiler
      enqueue.spawnChild('profiler', { id, systemId: id, input: { label: context.alias } })
    }),
  },
  guards: {
    fromChild: ({ context, event }, params: { child: 'bootstrapper' | 'running' }) => {
      const ids = chainChildren(context.alias)
      const actorId = 'actorId' in event ? event.actorId : undefined
      return params.child === 'bootstrapper'
        ? actorId === ids.bootstrapper
        : actorId === ids.engine || actorId === ids.producer
    },
    /** the bootstrapper's output names an error */
    bootstrapFailed: ({ event }) => 'output' in event && typeof bootstrapOutput(event.output).error === 'string',
  },
}).createMachine({
  id: 'chain',
  context: ({ input }) => ({
    ...input,
    error: null,
    hasOtherValidators: false,
    progress: null,
    lastAccepted: null,
    acceptedCount: 0,
  }),
  entry: enqueueActions(({ context, enqueue }) => {
    const ids = chainChildren(context.alias)
    enqueue.spawnChild('benchlist', {
      id: ids.benchlist,
      systemId: ids.benchlist,
      input: { chainId: context.chainId, ...(context.benchlist === undefined ? {} : { config: context.benchlist }) },
    })
  }),
  invoke: { id: 'io', src: 'chainIo', input: ({ context, self }) => ({ ...slotOf(context), self }) },
  initial: 'waitingForVm',
  on: {
    'chain.stop': '.stopped',
    'chain.accepted': {
      actions: assign(({ context, event }) => ({
        lastAccepted: { height: event.height, id: event.id, at: event.at },
        acceptedCount: context.acceptedCount + 1,
      })),
    },
    // outside normalOp the chain takes no transactions
    'chain.submitTxs': { actions: emit(({ event }) => replyError(event.requestId, NOT_BOOTSTRAPPED)) },
    'chain.txsAdmitted': { actions: emit(({ event }) => replyOk(event.requestId, event.results)) },
  },
  states: {
    waitingForVm: {
      entry: { type: 'announce', params: { state: 'waitingForVm' } },
      invoke: {
        id: 'awaitVm',
        src: 'awaitVm',
        input: ({ context }) => ({ ...slotOf(context), vm: context.vm }),
        onDone: 'initializing',
        onError: {
          target: 'failed',
          actions: { type: 'fail', params: ({ event }) => ({ error: errorText(event.error) }) },
        },
      },
    },
    initializing: {
      invoke: {
        id: 'initializeChain',
        src: 'initializeChain',
        input: ({ context }) => ({ chainId: context.chainId, alias: context.alias }),
        onDone: [
          {
            guard: ({ event }) => event.output.hasOtherValidators,
            target: 'bootstrapping',
            actions: [
              { type: 'spawnProfiler', params: ({ event }) => event.output },
              assign({ hasOtherValidators: true }),
            ],
          },
          { target: 'normalOp', actions: { type: 'spawnProfiler', params: ({ event }) => event.output } },
        ],
        onError: {
          target: 'failed',
          actions: { type: 'fail', params: ({ event }) => ({ error: errorText(event.error) }) },
        },
      },
    },
    bootstrapping: {
      entry: [
        { type: 'announce', params: { state: 'bootstrapping' } },
        enqueueActions(({ context, enqueue }) => {
          const id = chainChildren(context.alias).bootstrapper
          enqueue.spawnChild('bootstrapper', {
            id,
            systemId: id,
            input: {
              chainId: context.chainId,
              alias: context.alias,
              ...(context.beaconTimeoutMs === undefined ? {} : { beaconTimeoutMs: context.beaconTimeoutMs }),
            },
          })
        }),
      ],
      exit: enqueueActions(({ context, enqueue }) => enqueue.stopChild(chainChildren(context.alias).bootstrapper)),
      on: {
        'chain.bootstrapProgress': {
          actions: assign({
            progress: ({ event }) => ({
              phase: event.phase,
              round: event.round,
              fetched: event.fetched,
              executed: event.executed,
              remaining: event.remaining,
              rate: event.rate,
              etaSeconds: event.etaSeconds,
            }),
          }),
        },
        'xstate.done.actor.*': [
          {
            guard: and([{ type: 'fromChild', params: { child: 'bootstrapper' as const } }, 'bootstrapFailed']),
            target: 'failed',
            actions: {
              type: 'fail',
              params: ({ event }) => ({ error: bootstrapOutput('output' in event ? event.output : {}).error ?? '' }),
            },
          },
          { guard: { type: 'fromChild', params: { child: 'bootstrapper' } }, target: 'normalOp' },
        ],
        'xstate.error.actor.*': failOnChildError('bootstrapper'),
      },
    },
    normalOp: {
      entry: [
        { type: 'announce', params: { state: 'normalOp' } },
        enqueueActions(({ context, enqueue }) => {
          const ids = chainChildren(context.alias)
          const slot = { chainId: context.chainId, alias: context.alias }
          if (!context.hasOtherValidators) {
            enqueue.spawnChild('produceBlocks', { id: ids.producer, systemId: ids.producer, input: slot })
            return
          }
          enqueue.spawnChild('engine', {
            id: ids.engine,
            systemId: ids.engine,
            input: {
              ...slot,
              self: context.nodeId,
              params: context.snow ?? DEFAULT_SNOW_PARAMS,
              ...(context.frontierPollMs === undefined ? {} : { frontierPollMs: context.frontierPollMs }),
            },
          })
        }),
      ],
      exit: enqueueActions(({ context, enqueue }) => {
        const ids = chainChildren(context.alias)
        enqueue.stopChild(ids.engine)
        enqueue.stopChild(ids.producer)
      }),
      on: {
        'chain.submitTxs': {
          actions: emit(({ event }) => ({
            type: 'chain.admitTxs' as const,
            requestId: event.requestId,
            txs: event.txs,
          })),
        },
        'xstate.error.actor.*': failOnChildError('running'),
      },
    },
    failed: {
      entry: { type: 'announce', params: { state: 'failed' } },
    },
    stopped: {
      type: 'final',
      entry: { type: 'announce', params: { state: 'stopped' } },
    },
  },
})
