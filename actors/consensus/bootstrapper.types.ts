/**
 * The bootstrapper machine's types (bootstrapper.machine.ts): its phases, input, context, output, the events its
 * IO slots answer with, what it emits, and its default timings.
 */

export type BootstrapPhase =
  | 'waitingForStake'
  | 'fetchingFrontier'
  | 'fetchingAccepted'
  | 'fetchingAncestors'
  | 'executing'
  | 'done'
  | 'failed'

/** `error` is set when the bootstrap failed (an inconsistency or an IO error) */
export interface BootstrapperOutput {
  executed: number
  error?: string
}

export interface BootstrapperInput {
  stakeRecheckMs?: number
  /** how long waiting for stake goes before the one warning; DEFAULT_BEACON_TIMEOUT_MS */
  beaconTimeoutMs?: number
  roundRetryMs?: number
  progressIntervalMs?: number
}

export interface BootstrapperContext {
  phase: BootstrapPhase
  /** rounds started (the first frontier request is round 1) */
  round: number
  /** blocks fetched and stored, this run */
  fetched: number
  /** blocks executed, this run */
  executed: number
  /** ids missing in the fetch phase */
  missing: number
  /** blocks left in the current phase (estimate) */
  remaining: number
  startedAt: number | null
  lastProgressAt: number | null
  phaseStartedAt: number | null
  /** `fetched` or `executed` when the current phase started */
  phaseStartCount: number
  /** `executed` when the current round started */
  roundStartExecuted: number
  /** blocks executed by the previous round; null before the first */
  executedLastRound: number | null
  candidates: string[]
  accepted: string[]
  error: string | null
  stakeRecheckMs: number
  beaconTimeoutMs: number
  roundRetryMs: number
  progressIntervalMs: number
}

export interface StakeStatus {
  /** connected beacon weight >= the start threshold */
  ready: boolean
  /** the beacon set is empty (or has no weight) */
  noBeacons: boolean
  at: number
}

export interface FrontierResult {
  candidates: string[]
  at: number
}

export interface AcceptedResult {
  accepted: string[]
  at: number
}

export interface FetchAncestorsInput {
  round: number
  /** the accepted ids to sync to; empty with `resume` to fetch again the blocks dropped for memory */
  accepted: string[]
  resume: boolean
}

export type BootstrapperEvent =
  | { type: 'bootstrap.connectivityChanged' }
  | { type: 'bootstrap.fetchProgress'; fetched: number; missing: number; remaining: number; at: number }
  | { type: 'bootstrap.fetchDone'; at: number }
  | { type: 'bootstrap.executeProgress'; executed: number; remaining: number; at: number }
  | { type: 'bootstrap.executed'; more: boolean; at: number }
  | { type: 'bootstrap.failed'; message: string }

/** Sent to the fetchAncestors child every progress interval. */
export type BootstrapTick = { type: 'bootstrap.tick' }

export type BootstrapProgress = {
  type: 'bootstrap.progress'
  phase: BootstrapPhase
  round: number
  fetched: number
  executed: number
  /** blocks per second in the current phase */
  rate: number
  etaSeconds: number | null
}

export type BootstrapperEmitted =
  | BootstrapProgress
  | { type: 'bootstrap.done'; executed: number }
  | { type: 'bootstrap.failed'; message: string }
  | { type: 'bootstrap.beaconsNotConnected'; waitedMs: number }

export const DEFAULT_STAKE_RECHECK_MS = 1000
/** the reference's `--bootstrap-beacon-connection-timeout` default */
export const DEFAULT_BEACON_TIMEOUT_MS = 60_000
export const DEFAULT_ROUND_RETRY_MS = 1000
export const DEFAULT_PROGRESS_INTERVAL_MS = 1000
