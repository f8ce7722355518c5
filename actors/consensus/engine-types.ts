/**
 * The Snowman engine core's contract: its JSON-safe state, inputs, effects, summary and bounds. The IO layer feeds
 * `EngineInput`s (containers already parsed: blocks travel as `EngineBlock`s without bytes) and carries out the
 * `EngineEffect`s in order. Every field of `EngineState` is plain data (records, arrays, numbers, strings), so the
 * state can live in actor context; the core updates it in place within one input.
 */
import type { BlockTree } from './block-tree.js'
import type { SnowParams } from './params.js'
import type { PollSet } from './poll.js'
import type { Bounded, Sized } from './records.js'
import type { AcceptedRef, Chits, EngineBlock, ValidatorStake } from './types.js'

export type EngineInput =
  /**
   * A PushQuery (its container parsed into `block`; neither `block` nor `blockId` when it did not parse) or a
   * PullQuery (`blockId`) from `from`; inboundId is echoed in the 'chits' effect
   */
  | {
      type: 'query'
      from: string
      inboundId: number
      block?: EngineBlock
      blockId?: string
      requestedHeight: number
    }
  | { type: 'chits'; from: string; requestId: number; chits: Chits }
  | { type: 'queryFailed'; from: string; requestId: number }
  /**
   * answer to our 'get': the container parsed into `block` (absent when it did not parse); `blockId` (optional) is
   * the ID that was asked for: a mismatch then counts as a failure
   */
  | { type: 'put'; from: string; block?: EngineBlock; blockId?: string }
  | { type: 'getFailed'; from: string; blockId: string }
  /** answer to our 'verify' effect */
  | { type: 'verified'; blockId: string; ok: boolean }
  /** answer to 'build': the VM built AND verified it */
  | { type: 'built'; block: EngineBlock }
  | { type: 'buildFailed' }
  /** the builder says: my slot has come and txs wait */
  | { type: 'pendingTxs' }
  /** every 100 ms (frontier poll / repoll) */
  | { type: 'tick' }
  /** the peers connected and not benched on this chain changed (self always counts as connected) */
  | { type: 'connectivityChanged'; connected: string[] }
  /** the chain's validator set changed (weights as decimal strings) */
  | { type: 'validatorsChanged'; validators: ValidatorStake[] }

export type EngineEffect =
  /** ALWAYS emitted first for a query */
  | { type: 'chits'; to: string; inboundId: number; chits: Chits }
  /**
   * `to` = distinct NodeIDs (may include self: the IO layer loops self-queries back as a 'query' input and the
   * answer back as 'chits'); every target later gets exactly one 'chits' or 'queryFailed' from the IO layer,
   * EXCEPT frontier pull queries, which use requestId 0 and are not registered as polls. A push query's block is
   * one this node built: the IO layer holds its bytes.
   */
  | { type: 'pushQuery'; to: string[]; requestId: number; block: EngineBlock; requestedHeight: number }
  | { type: 'pullQuery'; to: string[]; requestId: number; blockId: string; requestedHeight: number }
  /** answered by exactly one 'put' or 'getFailed' */
  | { type: 'get'; to: string; blockId: string }
  /** IO verifies (executes) it, answers 'verified'. Effects run in order. */
  | { type: 'verify'; block: EngineBlock }
  /** IO builds on the current preference, answers 'built'/'buildFailed' */
  | { type: 'build' }
  /** in order: parents first */
  | { type: 'accept'; blockId: string }
  | { type: 'reject'; blockId: string }
  | { type: 'setPreference'; blockId: string }

export type QueryInput = Extract<EngineInput, { type: 'query' }>

/** A block issued but not yet in the tree. */
export interface PendingBlock {
  block: EngineBlock
  /** a 'verify' effect is out for it (its parent is in the tree) */
  verifying: boolean
}

/** The issuance pipeline's state (engine-issuer.ts). */
export interface IssuerState {
  pending: Sized<PendingBlock>
  /** parent ID -> pending children waiting for it, in arrival order */
  dependents: Record<string, string[]>
  /** blocks that failed verification, kept to bubble votes */
  unverified: Bounded<EngineBlock>
  /** block ID -> peer asked */
  gets: Sized<string>
  /** blocks whose 'verify' effect is out */
  verifying: number
}

/** Chits whose vote waits until the named blocks are issued or abandoned. */
export interface WaitingVote {
  requestId: number
  from: string
  /** candidates in order: [preferredId, preferredIdAtHeight] (one if equal); empty = drop */
  options: string[]
  /** block IDs still pending or being fetched */
  deps: string[]
}

/** The whole engine core: plain data, JSON-safe. */
export interface EngineState {
  params: SnowParams
  /** own NodeID (it is one of the validators, or not) */
  self: string
  /** the chain's validator set */
  validators: ValidatorStake[]
  /** peers connected and not benched on this chain (self counts as connected without being listed) */
  connected: Record<string, true>
  /** the seeded PRNG's state (prng.ts) */
  rng: number
  tree: BlockTree
  /** processing blocks (the tree's nodes other than the last accepted) */
  processing: Record<string, EngineBlock>
  issuer: IssuerState
  /** recent accepted heights (decimal keys) -> block ID */
  acceptedAt: Bounded<string>
  /** recent accepted block IDs -> height */
  acceptedIds: Bounded<number>
  /** peers' last accepted blocks, from their chits */
  frontiers: Bounded<AcceptedRef>
  polls: PollSet
  /** last request ID used */
  requestId: number
  /** votes waiting for their blocks, in registration order (one per poll and peer; most leave within the input) */
  waiting: WaitingVote[]
  /** queries waiting for the verifications before them, in arrival order */
  deferredQueries: QueryInput[]
  pendingBuild: number
  building: boolean
  /** the preference last told to the VM */
  vmPreference: string
}

/** What the core starts from. */
export interface EngineStart {
  params: SnowParams
  self: string
  lastAccepted: AcceptedRef
  validators: ValidatorStake[]
  connected: string[]
  /** the PRNG's seed */
  seed: number
}

/** JSON-safe summary for dev tools and logs. */
export interface EngineSnapshot {
  lastAccepted: AcceptedRef
  preference: string
  numProcessing: number
  /** outstanding polls in creation order */
  polls: Array<{ requestId: number; received: number; remaining: number }>
  /** last request ID used */
  requestId: number
  pendingBuild: number
  buildOutstanding: boolean
  awaitingVerify: string[]
  awaitingParents: string[]
  outstandingGets: Array<{ blockId: string; to: string }>
  /** chits waiting for their blocks to be issued or abandoned */
  waitingVotes: number
  /** queries held until the blocks issued before them are verified */
  deferredQueries: number
  /** blocks that failed verification, kept to bubble votes */
  unverified: number
}

/** Most blocks held awaiting their parent or their verification. */
export const MAX_PENDING_BLOCKS = 1024
/** Most queries held for verifications; beyond it they are answered at once. */
export const MAX_DEFERRED_QUERIES = 1024
/** Most outstanding Gets. */
export const MAX_OUTSTANDING_GETS = 1024
/** Most failed-verification blocks kept for vote bubbling. */
export const MAX_UNVERIFIED_BLOCKS = 256
/** Recent accepted heights remembered for `preferredIdAtHeight`. */
export const ACCEPTED_RING_SIZE = 1024
/** Peers whose last accepted block (from their chits) is remembered. */
export const MAX_KNOWN_FRONTIERS = 4096
/** Longest walk up through known-but-unissued blocks when looking for a processing ancestor. */
export const MAX_ANCESTOR_WALK = 1024
