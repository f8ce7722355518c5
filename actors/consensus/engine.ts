/**
 * The Snowman engine core (consensus reference 1.5, 1.6, 2.1, 7.2 "ConsensusEngine"): synchronous and
 * deterministic given its seed. Inputs in, effects out, in order; no IO. It answers queries (chits first),
 * issues blocks (fetching missing ancestors, verifying through the IO layer), samples and runs polls, applies
 * finished polls in creation order to the block tree, and asks for block builds.
 * A query that arrives while blocks issued by earlier messages are being verified is answered once they are
 * (in arrival order): the reference handles a chain's messages one at a time and verifies inside the handler, so
 * its chits always reflect every earlier message. Answering at once made the proposer's first pull queries, sent
 * right behind its push query, count votes for the old preference and fail.
 *
 * The state is plain data (`EngineState`, JSON-safe) that `engineHandle` updates in place: one input is one
 * mutation of the state plus the effects it returns. `EngineStep` is the transient view that does the work.
 */
import { createTree, numProcessing } from './block-tree.js'
import { issuerCreate, issuerSummary } from './engine-issuer.js'
import { connectedRecord, EngineStep } from './engine-step.js'
import {
  ACCEPTED_RING_SIZE,
  type EngineEffect,
  type EngineInput,
  type EngineSnapshot,
  type EngineStart,
  type EngineState,
  MAX_KNOWN_FRONTIERS,
} from './engine-types.js'
import { newPollSet } from './poll.js'
import { prngState } from './prng.js'
import { boundedCreate, boundedSet, get } from './records.js'
import type { AcceptedRef, EngineBlock } from './types.js'

export * from './engine-types.js'

/** A fresh core on the last accepted block. */
export function engineCreate(start: EngineStart): EngineState {
  const s: EngineState = {
    params: start.params,
    self: start.self,
    validators: start.validators,
    connected: connectedRecord(start.connected),
    rng: prngState(start.seed),
    tree: createTree(start.lastAccepted),
    processing: {},
    issuer: issuerCreate(),
    acceptedAt: boundedCreate(ACCEPTED_RING_SIZE),
    acceptedIds: boundedCreate(ACCEPTED_RING_SIZE),
    frontiers: boundedCreate(MAX_KNOWN_FRONTIERS),
    polls: newPollSet(),
    requestId: 0,
    waiting: [],
    deferredQueries: [],
    pendingBuild: 0,
    building: false,
    vmPreference: start.lastAccepted.id,
  }
  boundedSet(s.acceptedAt, String(start.lastAccepted.height), start.lastAccepted.id)
  boundedSet(s.acceptedIds, start.lastAccepted.id, start.lastAccepted.height)
  return s
}

/** Feeds one input to the core: updates `state` in place and returns the effects, in order. */
export const engineHandle = (state: EngineState, input: EngineInput): EngineEffect[] =>
  new EngineStep(state).handle(input)

export const engineNumProcessing = (state: EngineState): number => numProcessing(state.tree)

export const enginePreference = (state: EngineState): string => state.tree.preference

export const engineLastAccepted = (state: EngineState): AcceptedRef => ({ ...state.tree.lastAccepted })

export const engineProcessingBlock = (state: EngineState, id: string): EngineBlock | undefined =>
  get(state.processing, id)

/** JSON-safe summary for dev tools and logs. */
export function engineSummary(s: EngineState): EngineSnapshot {
  return {
    lastAccepted: engineLastAccepted(s),
    preference: s.tree.preference,
    numProcessing: numProcessing(s.tree),
    polls: s.polls.polls.map((e) => ({
      requestId: e.requestId,
      received: e.poll.received,
      remaining: e.poll.remaining,
    })),
    requestId: s.requestId,
    pendingBuild: s.pendingBuild,
    buildOutstanding: s.building,
    ...issuerSummary(s.issuer),
    waitingVotes: s.waiting.length,
    deferredQueries: s.deferredQueries.length,
  }
}
