/**
 * The bootstrapper of one chain (reference consensus.md 3.2-3.5, 7.2):
 * `waitingForStake -> fetchingFrontier -> fetchingAccepted -> fetchingAncestors -> executing -> done`.
 *
 * - waitingForStake: `checkStake` until connected beacon weight >= (3W+3)/4, re-checked on
 *   `bootstrap.connectivityChanged` and every `stakeRecheckMs`. An empty beacon set goes straight to executing.
 *   Still waiting after `beaconTimeoutMs` (`--bootstrap-beacon-connection-timeout`, 1 min): the action
 *   `beaconsNotConnected` runs once (emits `bootstrap.beaconsNotConnected`; the chain logs the reference's warning).
 * - fetchingFrontier / fetchingAccepted: one round's GetAcceptedFrontier and GetAccepted (`fetchFrontier`,
 *   `fetchAccepted`); nothing accepted by a majority -> a new round after `roundRetryMs`.
 * - fetchingAncestors: `fetchAncestors` (a callback) fetches down to the last accepted block, reporting progress;
 *   it gets `bootstrap.tick` every `progressIntervalMs` (retries of ids no peer could take).
 * - executing: `executeBlocks` executes the stored blocks in height order. Blocks dropped for memory -> back to
 *   fetchingAncestors (same round); else n > 0 and n < prev/2 -> a new round; else done.
 * - done (final, output `{executed}`); failed (final too: an inconsistency or an IO error, output `{executed, error}`).
 *
 * Pure: the IO is the five slots above (see `bootstrapper.io.ts` for the implementation over `BootstrapIo`);
 * timers are named delays. Emits `bootstrap.progress` at most once per progress interval while fetching or
 * executing and at the end of each round, then `bootstrap.done` (or `bootstrap.failed`). Context is JSON-safe.
 */
import { assign, emit, sendTo, setup } from 'xstate'
import { notProvidedCallback, notProvidedPromise } from '../not-provided.js'
import { shouldStartAnotherRound } from './bootstrap.js'
import {
  type AcceptedResult,
  type BootstrapProgress,
  type BootstrapperContext,
  type BootstrapperEmitted,
  type BootstrapperEvent,
  type BootstrapperInput,
  type BootstrapperOutput,
  type BootstrapTick,
  DEFAULT_BEACON_TIMEOUT_MS,
  DEFAULT_PROGRESS_INTERVAL_MS,
  DEFAULT_ROUND_RETRY_MS,
  DEFAULT_STAKE_RECHECK_MS,
  type FetchAncestorsInput,
  type FrontierResult,
  type StakeStatus,
} from './bootstrapper.types.js'

export type { BootstrapIo, BootstrapOptions } from './bootstrapper.io.js'

export * from './bootstrapper.types.js'

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** The progress event for a context (rate over the current phase, up to the latest progress report). */
export function progressOf(c: BootstrapperContext): BootstrapProgress {
  const count = c.phase === 'executing' ? c.executed : c.fetched
  const elapsedS =
    c.phaseStartedAt !== null && c.lastProgressAt !== null ? (c.lastProgressAt - c.phaseStartedAt) / 1000 : 0
  const rate = elapsedS > 0 ? Math.max(0, count - c.phaseStartCount) / elapsedS : 0
  const etaSeconds = rate > 0 ? Math.ceil(c.remaining / rate) : null
  return {
    type: 'bootstrap.progress',
    phase: c.phase,
    round: c.round,
    fetched: c.fetched,
    executed: c.executed,
    rate,
    etaSeconds,
  }
}

/** First timestamp of the phase and of the run, and the latest progress time. */
/** an IO slot failed: the bootstrap fails with its error */
const failOnIoError = {
  target: '#bootstrapper.failed',
  actions: {
    type: 'fail' as const,
    params: ({ event }: { event: { error: unknown } }) => ({ message: errorText(event.error) }),
  },
}

const stamp = (c: BootstrapperContext, at: number) => ({
  startedAt: c.startedAt ?? at,
  phaseStartedAt: c.phaseStartedAt ?? at,
  lastProgressAt: at,
})

export const bootstrapperMachine = setup({
  types: {
    input: {} as BootstrapperInput,
    context: {} as BootstrapperContext,
    events: {} as BootstrapperEvent,
    emitted: {} as BootstrapperEmitted,
    output: {} as BootstrapperOutput,
  },
  actors: {
    checkStake: notProvidedPromise<StakeStatus>('checkStake'),
    fetchFrontier: notProvidedPromise<FrontierResult, { round: number }>('fetchFrontier'),
    fetchAccepted: notProvidedPromise<AcceptedResult, { round: number; candidates: string[] }>('fetchAccepted'),
    fetchAncestors: notProvidedCallback<BootstrapTick, FetchAncestorsInput>('fetchAncestors'),
    executeBlocks: notProvidedCallback<BootstrapTick, { round: number }>('executeBlocks'),
  },
  delays: {
    stakeRecheck: ({ context }) => context.stakeRecheckMs,
    beaconTimeout: ({ context }) => context.beaconTimeoutMs,
    roundRetry: ({ context }) => context.roundRetryMs,
    progressInterval: ({ context }) => context.progressIntervalMs,
  },
  actions: {
    emitProgress: emit(({ context }) => progressOf(context)),
    beaconsNotConnected: emit(({ context }) => ({
      type: 'bootstrap.beaconsNotConnected' as const,
      waitedMs: context.beaconTimeoutMs,
    })),
    fail: assign((_, p: { message: string }) => ({ error: p.message })),
    enterFetching: assign(({ context }) => ({
      phase: 'fetchingAncestors' as const,
      phaseStartedAt: null,
      phaseStartCount: context.fetched,
    })),
    enterExecuting: assign(({ context }) => ({
      phase: 'executing' as const,
      phaseStartedAt: null,
      phaseStartCount: context.executed,
    })),
  },
  guards: {
    roundAgain: ({ context }) =>
      shouldStartAnotherRound(context.executed - context.roundStartExecuted, context.executedLastRound),
  },
}).createMachine({
  id: 'bootstrapper',
  context: ({ input }) => ({
    phase: 'waitingForStake',
    round: 0,
    fetched: 0,
    executed: 0,
    missing: 0,
    remaining: 0,
    startedAt: null,
    lastProgressAt: null,
    phaseStartedAt: null,
    phaseStartCount: 0,
    roundStartExecuted: 0,
    executedLastRound: null,
    candidates: [],
    accepted: [],
    error: null,
    stakeRecheckMs: input?.stakeRecheckMs ?? DEFAULT_STAKE_RECHECK_MS,
    beaconTimeoutMs: input?.beaconTimeoutMs ?? DEFAULT_BEACON_TIMEOUT_MS,
    roundRetryMs: input?.roundRetryMs ?? DEFAULT_ROUND_RETRY_MS,
    progressIntervalMs: input?.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS,
  }),
  initial: 'waitingForStake',
  states: {
    waitingForStake: {
      entry: assign({ phase: 'waitingForStake' }),
      after: { beaconTimeout: { actions: 'beaconsNotConnected' } },
      initial: 'checking',
      states: {
        checking: {
          invoke: {
            src: 'checkStake',
            onDone: [
              {
                guard: ({ event }) => event.output.noBeacons,
                target: '#bootstrapper.executing',
                actions: assign(({ context, event }) => ({ startedAt: context.startedAt ?? event.output.at })),
              },
              {
                guard: ({ event }) => event.output.ready,
                target: '#bootstrapper.fetchingFrontier',
                actions: assign(({ context, event }) => ({ startedAt: context.startedAt ?? event.output.at })),
              },
              { target: 'waiting' },
            ],
            onError: failOnIoError,
          },
        },
        waiting: {
          on: { 'bootstrap.connectivityChanged': 'checking' },
          after: { stakeRecheck: 'checking' },
        },
      },
    },
    fetchingFrontier: {
      entry: assign({ phase: 'fetchingFrontier' }),
      initial: 'requesting',
      states: {
        requesting: {
          entry: assign(({ context }) => ({ round: context.round + 1, candidates: [], accepted: [] })),
          invoke: {
            src: 'fetchFrontier',
            input: ({ context }) => ({ round: context.round }),
            onDone: [
              { guard: ({ event }) => event.output.candidates.length === 0, target: 'pausing' },
              {
                target: '#bootstrapper.fetchingAccepted',
                actions: assign({ candidates: ({ event }) => [...event.output.candidates] }),
              },
            ],
            onError: failOnIoError,
          },
        },
        pausing: {
          after: { roundRetry: 'requesting' },
        },
      },
    },
    fetchingAccepted: {
      entry: assign({ phase: 'fetchingAccepted' }),
      invoke: {
        src: 'fetchAccepted',
        input: ({ context }) => ({ round: context.round, candidates: context.candidates }),
        onDone: [
          { guard: ({ event }) => event.output.accepted.length === 0, target: 'fetchingFrontier.pausing' },
          {
            target: 'fetchingAncestors',
            actions: assign({ accepted: ({ event }) => [...event.output.accepted] }),
          },
        ],
        onError: failOnIoError,
      },
    },
    fetchingAncestors: {
      entry: 'enterFetching',
      invoke: {
        id: 'fetchAncestors',
        src: 'fetchAncestors',
        input: ({ context }) => ({
          round: context.round,
          accepted: context.accepted,
          resume: context.accepted.length === 0,
        }),
      },
      on: {
        'bootstrap.fetchProgress': {
          actions: assign(({ context, event }) => ({
            fetched: event.fetched,
            missing: event.missing,
            remaining: event.remaining,
            ...stamp(context, event.at),
          })),
        },
        'bootstrap.fetchDone': { target: 'executing', actions: assign({ missing: 0 }) },
        'bootstrap.failed': { target: 'failed', actions: { type: 'fail', params: ({ event }) => event } },
      },
      initial: 'ticking',
      states: {
        ticking: {
          after: {
            progressInterval: {
              target: 'ticking',
              reenter: true,
              actions: ['emitProgress', sendTo('fetchAncestors', { type: 'bootstrap.tick' })],
            },
          },
        },
      },
    },
    executing: {
      entry: 'enterExecuting',
      invoke: { id: 'executeBlocks', src: 'executeBlocks', input: ({ context }) => ({ round: context.round }) },
      on: {
        'bootstrap.executeProgress': {
          actions: assign(({ context, event }) => ({
            executed: event.executed,
            remaining: event.remaining,
            ...stamp(context, event.at),
          })),
        },
        'bootstrap.executed': [
          {
            guard: ({ event }) => event.more,
            target: 'fetchingAncestors',
            actions: assign({ accepted: [] }),
          },
          {
            guard: 'roundAgain',
            target: 'fetchingFrontier',
            actions: [
              'emitProgress',
              assign(({ context }) => ({
                executedLastRound: context.executed - context.roundStartExecuted,
                roundStartExecuted: context.executed,
              })),
            ],
          },
          { target: 'done', actions: 'emitProgress' },
        ],
        'bootstrap.failed': { target: 'failed', actions: { type: 'fail', params: ({ event }) => event } },
      },
      initial: 'ticking',
      states: {
        ticking: {
          after: { progressInterval: { target: 'ticking', reenter: true, actions: 'emitProgress' } },
        },
      },
    },
    done: {
      type: 'final',
      entry: [
        assign({ phase: 'done', remaining: 0 }),
        emit(({ context }) => ({ type: 'bootstrap.done' as const, executed: context.executed })),
      ],
    },
    failed: {
      // final with the error in the output: the chain actor's onDone sends the chain to `failed`, not normalOp
      type: 'final',
      entry: [
        assign({ phase: 'failed' }),
        emit(({ context }) => ({ type: 'bootstrap.failed' as const, message: context.error ?? 'bootstrap failed' })),
      ],
    },
  },
  output: ({ context }) => ({
    executed: context.executed,
    ...(context.phase === 'failed' ? { error: context.error ?? 'bootstrap failed' } : {}),
  }),
})
