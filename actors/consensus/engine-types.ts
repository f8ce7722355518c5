/**
 * The Snowman engine core's contract: its dependencies, inputs, effects, JSON-safe snapshot and bounds.
 * The IO layer (composition root) feeds `EngineInput`s and executes `EngineEffect`s in order.
 */
import type { SnowParams } from './params.js'
import type { AcceptedRef, Chits, EngineBlock, Weighted } from './types.js'

export interface EngineDeps {
  params: SnowParams
  /** own NodeID (it is one of the validators, or not) */
  self: string
  /** the chain's validator set (stake weights) */
  validators: () => readonly Weighted[]
  /** self counts as connected; benched peers count as not connected */
  isConnected: (nodeId: string) => boolean
  /** sync parse, no verification; undefined = unparsable */
  parse: (bytes: Uint8Array) => EngineBlock | undefined
  /** [0,1), seeded in tests */
  random: () => number
}

export type EngineInput =
  /** a PushQuery (container) or PullQuery (blockId) from `from`; inboundId is echoed in the 'chits' effect */
  | {
      type: 'query'
      from: string
      inboundId: number
      container?: Uint8Array
      blockId?: string
      requestedHeight: number
    }
  | { type: 'chits'; from: string; requestId: number; chits: Chits }
  | { type: 'queryFailed'; from: string; requestId: number }
  /** answer to our 'get'; `blockId` (optional) is the ID that was asked for: a mismatch then counts as a failure */
  | { type: 'put'; from: string; container: Uint8Array; blockId?: string }
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
  /** a peer connected/disconnected/(un)benched */
  | { type: 'connectivityChanged' }

export type EngineEffect =
  /** ALWAYS emitted first for a query */
  | { type: 'chits'; to: string; inboundId: number; chits: Chits }
  /**
   * `to` = distinct NodeIDs (may include self: the IO layer loops self-queries back as a 'query' input and the
   * answer back as 'chits'); every target later gets exactly one 'chits' or 'queryFailed' from the IO layer,
   * EXCEPT frontier pull queries, which use requestId 0 and are not registered as polls.
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

/** A Map that forgets its oldest entry beyond `cap` (insertion order; re-setting a key refreshes it). */
export class BoundedMap<K, V> {
  readonly #map = new Map<K, V>()
  constructor(readonly cap: number) {}
  get size(): number {
    return this.#map.size
  }
  get(key: K): V | undefined {
    return this.#map.get(key)
  }
  has(key: K): boolean {
    return this.#map.has(key)
  }
  set(key: K, value: V): void {
    this.#map.delete(key)
    this.#map.set(key, value)
    while (this.#map.size > this.cap) {
      const oldest = this.#map.keys().next()
      if (oldest.done) break
      this.#map.delete(oldest.value)
    }
  }
  delete(key: K): void {
    this.#map.delete(key)
  }
}
