/**
 * The bootstrapper machine's types (bootstrapper.machine.ts), shared with its IO (bootstrapper.io.ts): its phases,
 * input, context, output, the requests it emits to its IO slot and the events the slot answers with, what else it
 * emits, and its default timings.
 */
import type { AnyActorRef } from 'xstate'
import type { AcceptedRef, ParsedBlock, Weighted } from './types.js'

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
  /** the chain (CB58 ID and primary alias); progress goes to its actor (`chain:<alias>`) when it exists */
  chainId?: string
  alias?: string
  stakeRecheckMs?: number
  /** how long waiting for stake goes before the one warning; DEFAULT_BEACON_TIMEOUT_MS */
  beaconTimeoutMs?: number
  roundRetryMs?: number
  progressIntervalMs?: number
}

export interface BootstrapperContext {
  chainId: string | null
  alias: string | null
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

/** The IO a bootstrap run works over (the chain's runtime supplies it; bootstrapper.io.ts uses it). */
export interface BootstrapIo {
  self: string
  /** validators of the chain (self included if a validator) */
  beacons(): readonly Weighted[]
  /** connected beacon weight, self counted */
  connectedWeight(): bigint
  lastAccepted(): AcceptedRef
  /** the peer's last accepted id; rejects on failure/timeout */
  getAcceptedFrontier(nodeId: string): Promise<string>
  getAccepted(nodeId: string, ids: string[]): Promise<string[]>
  /** containers newest first */
  getAncestors(nodeId: string, id: string): Promise<Uint8Array[]>
  parse(bytes: Uint8Array): ParsedBlock | undefined
  /** already accepted locally */
  has(id: string): Promise<boolean>
  /** verify + accept one block (parent already accepted); throws = fatal */
  execute(block: ParsedBlock): Promise<void>
  random(): number
  now(): number
}

/** What the `bootstrapIo` slot is invoked with. */
export interface BootstrapIoInput {
  chainId: string | null
  alias: string | null
  /** the bootstrapper actor: the IO listens to its emitted requests */
  self: AnyActorRef
}

/** The requests the bootstrapper emits; its IO answers each with the events below. */
export type BootstrapRequest =
  /** answered by `bootstrap.stake` */
  | { type: 'bootstrap.checkStake' }
  /** one round's GetAcceptedFrontier; answered by `bootstrap.frontier` */
  | { type: 'bootstrap.fetchFrontier'; round: number }
  /** one round's GetAccepted; answered by `bootstrap.acceptedIds` */
  | { type: 'bootstrap.fetchAccepted'; round: number; candidates: string[] }
  /**
   * fetch down to the last accepted block: `accepted` are the ids to sync to, empty with `resume` to fetch again
   * the blocks dropped for memory; answered by `bootstrap.fetchProgress`... then `bootstrap.fetchDone`
   */
  | { type: 'bootstrap.fetchAncestors'; round: number; accepted: string[]; resume: boolean }
  /** every progress interval while fetching: retry the ids no peer could take */
  | { type: 'bootstrap.tick' }
  /** execute the fetched blocks in height order; answered by `bootstrap.executeProgress`... then `bootstrap.executed` */
  | { type: 'bootstrap.execute'; round: number }

export type BootstrapperEvent =
  | { type: 'bootstrap.connectivityChanged' }
  /** `ready`: connected beacon weight >= the start threshold; `noBeacons`: the set is empty (or has no weight) */
  | { type: 'bootstrap.stake'; ready: boolean; noBeacons: boolean; at: number }
  | { type: 'bootstrap.frontier'; round: number; candidates: string[]; at: number }
  | { type: 'bootstrap.acceptedIds'; round: number; accepted: string[]; at: number }
  | { type: 'bootstrap.fetchProgress'; fetched: number; missing: number; remaining: number; at: number }
  | { type: 'bootstrap.fetchDone'; at: number }
  | { type: 'bootstrap.executeProgress'; executed: number; remaining: number; at: number }
  | { type: 'bootstrap.executed'; more: boolean; at: number }
  /** an inconsistency or an IO error: the bootstrap fails */
  | { type: 'bootstrap.failed'; message: string }

export type BootstrapProgress = {
  type: 'bootstrap.progress'
  phase: BootstrapPhase
  round: number
  fetched: number
  executed: number
  /** blocks still to fetch or execute in the current phase, as far as known */
  remaining: number
  /** blocks per second in the current phase */
  rate: number
  etaSeconds: number | null
}

/** What the bootstrapper tells its chain's actor at every progress report (JSON-safe; the chain keeps it). */
export interface ChainBootstrapProgress {
  type: 'chain.bootstrapProgress'
  phase: BootstrapPhase
  round: number
  fetched: number
  executed: number
  /** blocks still to fetch or execute in the current phase, as far as known */
  remaining: number
  /** blocks per second in the current phase */
  rate: number
  /** remaining / rate, rounded up; null while the rate is unknown */
  etaSeconds: number | null
}

export type BootstrapperEmitted =
  | BootstrapRequest
  | BootstrapProgress
  | { type: 'bootstrap.done'; executed: number }
  | { type: 'bootstrap.failed'; message: string }
  | { type: 'bootstrap.beaconsNotConnected'; waitedMs: number }

export const DEFAULT_STAKE_RECHECK_MS = 1000
/** the reference's `--bootstrap-beacon-connection-timeout` default */
export const DEFAULT_BEACON_TIMEOUT_MS = 60_000
export const DEFAULT_ROUND_RETRY_MS = 1000
export const DEFAULT_PROGRESS_INTERVAL_MS = 1000
