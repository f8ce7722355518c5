/**
 * The bootstrapper of one chain (reference consensus.md 3.2-3.5, 7.2), `bootstrapper:<alias>`, a child of the
 * chain actor while it bootstraps:
 * `waitingForStake -> fetchingFrontier -> fetchingAccepted -> fetchingAncestors -> executing -> done`.
 *
 * - waitingForStake: asks `bootstrap.checkStake` until connected beacon weight >= (3W+3)/4, re-checked on
 *   `bootstrap.connectivityChanged` and every `stakeRecheckMs`. An empty beacon set goes straight to executing.
 *   Still waiting after `beaconTimeoutMs` (`--bootstrap-beacon-connection-timeout`, 1 min): emits
 *   `bootstrap.beaconsNotConnected` once (the chain's IO logs the reference's warning).
 * - fetchingFrontier / fetchingAccepted: one round's GetAcceptedFrontier and GetAccepted (`bootstrap.fetchFrontier`,
 *   `bootstrap.fetchAccepted`); nothing accepted by a majority -> a new round after `roundRetryMs`.
 * - fetchingAncestors: `bootstrap.fetchAncestors` fetches down to the last accepted block, reporting progress;
 *   `bootstrap.tick` every `progressIntervalMs` (retries of ids no peer could take).
 * - executing: `bootstrap.execute` executes the stored blocks in height order. Blocks dropped for memory -> back to
 *   fetchingAncestors (same round); else n > 0 and n < prev/2 -> a new round; else done.
 * - done (final, output `{executed}`); failed (final too: an inconsistency or an IO error, output `{executed, error}`).
 *
 * Pure: its IO is one slot, `bootstrapIo` (an event Observable, invoked for the actor's life with
 * `{ chainId, alias, self }`), which carries out the requests the machine emits (`BootstrapRequest`, one at a time)
 * and answers with events; `bootstrapper.io.ts` implements it over `BootstrapIo`. Timers are named delays. Emits
 * `bootstrap.progress` at most once per progress interval while fetching or executing and at the end of each round
 * (and tells the chain's actor, `chain.bootstrapProgress`, when there is one), then `bootstrap.done` (or
 * `bootstrap.failed`). Context is JSON-safe.
 */
import { assign, emit, enqueueActions, setup } from 'xstate'
import { notProvidedEventObservable } from '../not-provided.js'
import { SystemId } from '../system-ids.js'
import { shouldStartAnotherRound } from './bootstrap.js'
import {
  type BootstrapIoInput,
  type BootstrapProgress,
  type BootstrapperContext,
  type BootstrapperEmitted,
  type BootstrapperEvent,
  type BootstrapperInput,
  type BootstrapperOutput,
  type ChainBootstrapProgress,
  DEFAULT_BEACON_TIMEOUT_MS,
  DEFAULT_PROGRESS_INTERVAL_MS,
  DEFAULT_ROUND_RETRY_MS,
  DEFAULT_STAKE_RECHECK_MS,
} from './bootstrapper.types.js'

export * from './bootstrapper.types.js'

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
    remaining: c.remaining,
    rate,
    etaSeconds,
  }
}

/** First timestamp of the phase and of the run, and the latest progress time. */
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
    bootstrapIo: notProvidedEventObservable<BootstrapperEvent, BootstrapIoInput>('bootstrapIo'),
  },
  delays: {
    stakeRecheck: ({ context }) => context.stakeRecheckMs,
    beaconTimeout: ({ context }) => context.beaconTimeoutMs,
    roundRetry: ({ context }) => context.roundRetryMs,
    progressInterval: ({ context }) => context.progressIntervalMs,
  },
  actions: {
    /** the progress event; the chain's actor, when it exists, keeps the counts */
    emitProgress: enqueueActions(({ context, system, enqueue }) => {
      const progress = progressOf(context)
      enqueue.emit(progress)
      const chain = context.alias === null ? undefined : system.get(SystemId.chain(context.alias))
      if (chain === undefined) return
      const report: ChainBootstrapProgress = {
        type: 'chain.bootstrapProgress',
        phase: progress.phase,
        round: progress.round,
        fetched: progress.fetched,
        executed: progress.executed,
        remaining: progress.remaining,
        rate: progress.rate,
        etaSeconds: progress.etaSeconds,
      }
      enqueue.sendTo(chain, report)
    }),
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
    chainId: input?.chainId ?? null,
    alias: input?.alias ?? null,
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
  invoke: {
    id: 'io',
    src: 'bootstrapIo',
    input: ({ context, self }) => ({ chainId: context.chainId, alias: context.alias, self }),
  },
  on: {
    'bootstrap.failed': { target: '.failed', actions: { type: 'fail', params: ({ event }) => event } },
  },
  initial: 'waitingForStake',
  states: {
    waitingForStake: {
      entry: assign({ phase: 'waitingForStake' }),
      after: { beaconTimeout: { actions: 'beaconsNotConnected' } },
      initial: 'checking',
      states: {
        checking: {
          entry: emit({ type: 'bootstrap.checkStake' as const }),
          on: {
            'bootstrap.stake': [
              {
                guard: ({ event }) => event.noBeacons,
                target: '#bootstrapper.executing',
                actions: assign(({ context, event }) => ({ startedAt: context.startedAt ?? event.at })),
              },
              {
                guard: ({ event }) => event.ready,
                target: '#bootstrapper.fetchingFrontier',
                actions: assign(({ context, event }) => ({ startedAt: context.startedAt ?? event.at })),
              },
              { target: 'waiting' },
            ],
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
          entry: [
            assign(({ context }) => ({ round: context.round + 1, candidates: [], accepted: [] })),
            emit(({ context }) => ({ type: 'bootstrap.fetchFrontier' as const, round: context.round })),
          ],
          on: {
            'bootstrap.frontier': [
              { guard: ({ event }) => event.candidates.length === 0, target: 'pausing' },
              {
                target: '#bootstrapper.fetchingAccepted',
                actions: assign({ candidates: ({ event }) => [...event.candidates] }),
              },
            ],
          },
        },
        pausing: {
          after: { roundRetry: 'requesting' },
        },
      },
    },
    fetchingAccepted: {
      entry: [
        assign({ phase: 'fetchingAccepted' }),
        emit(({ context }) => ({
          type: 'bootstrap.fetchAccepted' as const,
          round: context.round,
          candidates: context.candidates,
        })),
      ],
      on: {
        'bootstrap.acceptedIds': [
          { guard: ({ event }) => event.accepted.length === 0, target: 'fetchingFrontier.pausing' },
          {
            target: 'fetchingAncestors',
            actions: assign({ accepted: ({ event }) => [...event.accepted] }),
          },
        ],
      },
    },
    fetchingAncestors: {
      entry: [
        'enterFetching',
        emit(({ context }) => ({
          type: 'bootstrap.fetchAncestors' as const,
          round: context.round,
          accepted: context.accepted,
          resume: context.accepted.length === 0,
        })),
      ],
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
      },
      initial: 'ticking',
      states: {
        ticking: {
          after: {
            progressInterval: {
              target: 'ticking',
              reenter: true,
              actions: ['emitProgress', emit({ type: 'bootstrap.tick' as const })],
            },
          },
        },
      },
    },
    executing: {
      entry: ['enterExecuting', emit(({ context }) => ({ type: 'bootstrap.execute' as const, round: context.round }))],
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
