/**
 * Consensus polls, pure and JSON-safe: a poll is a bag of sampled validators (one sampled c times counts
 * c times) collecting one vote or drop each, with early termination; a poll set keeps creation order and
 * releases finished polls only as a finished prefix.
 */
import type { SnowParams } from './params.js'

export type PollParams = Pick<SnowParams, 'alphaPreference' | 'alphaConfidence'> & {
  /** A voted block's processing parent (undefined at the last accepted block): votes count for the ancestors too. */
  parentOf?: (blockId: string) => string | undefined
}

/** Most ancestors a vote is counted for (the processing chain is far shorter: max-processing). */
const MAX_VOTE_DEPTH = 1024

export interface Poll {
  /** NodeID -> sample count, for validators that have neither voted nor been dropped. */
  outstanding: Record<string, number>
  /** Block ID -> votes received (weighted by sample count). */
  votes: Record<string, number>
  /** Total weight that voted. */
  received: number
  /** Total weight still outstanding. */
  remaining: number
}

export interface PollEntry {
  requestId: number
  poll: Poll
}

export interface PollSet {
  /** Polls in creation order. */
  polls: PollEntry[]
}

export interface PollSetUpdate {
  set: PollSet
  /** Results of the released finished prefix, in creation order. */
  results: Array<Record<string, number>>
}

export function newPoll(sample: readonly string[]): Poll {
  let outstanding: Record<string, number> = {}
  for (const id of sample) {
    outstanding = { ...outstanding, [id]: (Object.hasOwn(outstanding, id) ? (outstanding[id] ?? 0) : 0) + 1 }
  }
  return { outstanding, votes: {}, received: 0, remaining: sample.length }
}

const without = (rec: Record<string, number>, key: string): Record<string, number> => {
  const { [key]: _, ...rest } = rec
  return rest
}

/** Records `nodeId`'s vote for `blockId` with its sample weight; ignored if it is not outstanding. */
export function vote(poll: Poll, nodeId: string, blockId: string): Poll {
  const w = Object.hasOwn(poll.outstanding, nodeId) ? poll.outstanding[nodeId] : undefined
  if (w === undefined) return poll
  const prev = (Object.hasOwn(poll.votes, blockId) ? poll.votes[blockId] : undefined) ?? 0
  return {
    outstanding: without(poll.outstanding, nodeId),
    votes: { ...poll.votes, [blockId]: prev + w },
    received: poll.received + w,
    remaining: poll.remaining - w,
  }
}

/** Removes `nodeId` from the outstanding validators without a vote; ignored if it is not outstanding. */
export function drop(poll: Poll, nodeId: string): Poll {
  const w = Object.hasOwn(poll.outstanding, nodeId) ? poll.outstanding[nodeId] : undefined
  if (w === undefined) return poll
  return { ...poll, outstanding: without(poll.outstanding, nodeId), remaining: poll.remaining - w }
}

/**
 * A poll finishes when (1) nobody is outstanding; (2) received + remaining < αp; or (3) something was
 * received and every candidate count c satisfies c + remaining < αp, αp <= c < αc - remaining (αc
 * unreachable), or c >= αc, where a block's count is its own votes plus its voted descendants' (each vote
 * counted for every processing ancestor through `parentOf`, as the reference's early-term traversal poll; its
 * shared-ID-prefix counts belong to the bit-tree snowball Firn does not use). Without `parentOf`, flat counts.
 */
export function isFinished(poll: Poll, params: PollParams): boolean {
  const { remaining, received } = poll
  if (remaining === 0) return true
  if (received + remaining < params.alphaPreference) return true
  if (received === 0) return false
  for (const c of candidateCounts(poll.votes, params.parentOf).values()) {
    if (c + remaining < params.alphaPreference) continue
    if (params.alphaPreference <= c && c < params.alphaConfidence - remaining) continue
    if (c >= params.alphaConfidence) continue
    return false
  }
  return true
}

/** Each voted block and each of its processing ancestors -> the votes for it and its voted descendants. */
function candidateCounts(votes: Record<string, number>, parentOf: PollParams['parentOf']): Map<string, number> {
  const counts = new Map<string, number>()
  for (const [id, n] of Object.entries(votes)) {
    let cur: string | undefined = id
    for (let depth = 0; cur !== undefined && depth < MAX_VOTE_DEPTH; depth++) {
      counts.set(cur, (counts.get(cur) ?? 0) + n)
      cur = parentOf?.(cur)
    }
  }
  return counts
}

/** Block ID -> weighted vote count. */
export const result = (poll: Poll): Record<string, number> => ({ ...poll.votes })

export const newPollSet = (): PollSet => ({ polls: [] })

/** Adds a poll for `requestId`; a request ID already in the set is ignored. */
export function addPoll(set: PollSet, requestId: number, sample: readonly string[]): PollSet {
  if (set.polls.some((e) => e.requestId === requestId)) return set
  return { polls: [...set.polls, { requestId, poll: newPoll(sample) }] }
}

export const hasPoll = (set: PollSet, requestId: number): boolean => set.polls.some((e) => e.requestId === requestId)

export const pollCount = (set: PollSet): number => set.polls.length

function update(set: PollSet, requestId: number, f: (p: Poll) => Poll, params: PollParams): PollSetUpdate {
  if (!hasPoll(set, requestId)) return { set, results: [] }
  const polls = set.polls.map((e) => (e.requestId === requestId ? { requestId, poll: f(e.poll) } : e))
  const n = polls.findIndex((e) => !isFinished(e.poll, params))
  if (n < 0) return { set: { polls: [] }, results: polls.map((e) => result(e.poll)) }
  return { set: { polls: polls.slice(n) }, results: polls.slice(0, n).map((e) => result(e.poll)) }
}

/** Votes in poll `requestId`, then releases the finished prefix. Unknown request IDs change nothing. */
export const voteIn = (
  set: PollSet,
  requestId: number,
  nodeId: string,
  blockId: string,
  params: PollParams,
): PollSetUpdate => update(set, requestId, (p) => vote(p, nodeId, blockId), params)

/** Drops `nodeId` from poll `requestId`, then releases the finished prefix. */
export const dropIn = (set: PollSet, requestId: number, nodeId: string, params: PollParams): PollSetUpdate =>
  update(set, requestId, (p) => drop(p, nodeId), params)
