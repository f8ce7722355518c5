import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DEFAULT_SNOW_PARAMS, type SnowParams } from '../../../../actors/consensus/params.js'
import {
  addPoll,
  drop,
  dropIn,
  isFinished,
  newPoll,
  newPollSet,
  pollCount,
  result,
  vote,
  voteIn,
} from '../../../../actors/consensus/poll.js'

const P: SnowParams = { ...DEFAULT_SNOW_PARAMS, k: 5, alphaPreference: 3, alphaConfidence: 4, beta: 2 }
const ids = (n: number): string[] => Array.from({ length: n }, (_, i) => `NodeID-${i}`)

describe('poll', () => {
  it('finishes when everyone answered (split votes)', () => {
    // αp = αc = 5 of 5: no early termination on a split.
    const params = { alphaPreference: 5, alphaConfidence: 5 }
    let p = newPoll(ids(5))
    p = vote(p, 'NodeID-0', 'A')
    p = vote(p, 'NodeID-1', 'B')
    p = vote(p, 'NodeID-2', 'A')
    p = drop(p, 'NodeID-3')
    assert.equal(isFinished(p, params), true) // received 3 + remaining 1 < 5
    let q = newPoll(ids(3))
    const p3 = { alphaPreference: 2, alphaConfidence: 3 }
    q = vote(q, 'NodeID-0', 'A')
    q = vote(q, 'NodeID-1', 'B')
    assert.equal(isFinished(q, p3), false)
    q = vote(q, 'NodeID-2', 'C')
    assert.equal(isFinished(q, p3), true)
    assert.deepEqual(result(q), { A: 1, B: 1, C: 1 })
  })

  it('is not finished before any answer', () => {
    assert.equal(isFinished(newPoll(ids(5)), P), false)
  })

  it('finishes early when received + remaining < alphaPreference', () => {
    let p = newPoll(ids(5))
    p = drop(p, 'NodeID-0')
    p = drop(p, 'NodeID-1')
    assert.equal(isFinished(p, P), false) // 0 + 3 = αp
    p = drop(p, 'NodeID-2')
    assert.equal(isFinished(p, P), true) // 0 + 2 < 3
    assert.deepEqual(result(p), {})
  })

  it('finishes early when a block reaches alphaConfidence', () => {
    let p = newPoll(ids(5))
    for (let i = 0; i < 3; i++) p = vote(p, `NodeID-${i}`, 'A')
    assert.equal(isFinished(p, P), false) // A = 3 could still reach αc = 4
    p = vote(p, 'NodeID-3', 'A')
    assert.equal(isFinished(p, P), true)
    assert.deepEqual(result(p), { A: 4 })
  })

  it('finishes early when alphaConfidence is unreachable but alphaPreference is met', () => {
    const params = { alphaPreference: 3, alphaConfidence: 5 }
    let p = newPoll(ids(5))
    p = vote(p, 'NodeID-0', 'A')
    p = vote(p, 'NodeID-1', 'A')
    p = drop(p, 'NodeID-2')
    p = vote(p, 'NodeID-3', 'A')
    assert.equal(isFinished(p, params), true) // A = 3 ≥ αp, 3 < 5 − 1
  })

  it('counts a vote for every processing ancestor of the voted block (B <- C)', () => {
    const params = { alphaPreference: 4, alphaConfidence: 5 }
    let p = newPoll(ids(6))
    for (const [i, block] of [
      [0, 'B'],
      [1, 'B'],
      [2, 'B'],
      [3, 'C'],
      [4, 'C'],
    ] as const)
      p = vote(p, `NodeID-${i}`, block)
    // flat, B = 3 could still reach αp or αc with the last vote
    assert.equal(isFinished(p, params), false)
    // transitively B = 5 >= αc, and C = 2 + 1 < αp
    const parentOf = (id: string) => (id === 'C' ? 'B' : undefined)
    assert.equal(isFinished(p, { ...params, parentOf }), true)
    // the result itself stays per voted block (the tree counts transitively when it applies it)
    assert.deepEqual(result(p), { B: 3, C: 2 })
  })

  it('counts repeated sampling as weight', () => {
    let p = newPoll(['X', 'X', 'X', 'Y', 'Z'])
    p = vote(p, 'X', 'A')
    assert.equal(p.received, 3)
    assert.equal(p.remaining, 2)
    assert.deepEqual(result(p), { A: 3 })
    p = vote(p, 'Y', 'A')
    assert.equal(isFinished(p, P), true) // A = 4 = αc
    assert.deepEqual(result(p), { A: 4 })
    let q = newPoll(['X', 'X', 'X', 'Y', 'Z'])
    q = drop(q, 'X')
    assert.equal(q.remaining, 2)
    assert.equal(isFinished(q, P), true) // 0 + 2 < αp
  })

  it('ignores duplicate and unsampled votes', () => {
    let p = newPoll(ids(5))
    p = vote(p, 'NodeID-0', 'A')
    const again = vote(p, 'NodeID-0', 'B')
    assert.deepEqual(again, p)
    const stranger = vote(p, 'NodeID-9', 'A')
    assert.deepEqual(stranger, p)
    assert.deepEqual(drop(p, 'NodeID-0'), p)
    assert.deepEqual(result(p), { A: 1 })
    assert.equal(p.remaining, 4)
  })

  it('is JSON-safe', () => {
    let p = newPoll(['X', 'X', 'Y'])
    p = vote(p, 'Y', 'A')
    assert.deepEqual(JSON.parse(JSON.stringify(p)), p)
  })
})

describe('poll set', () => {
  it('releases a finished poll at once when it is first', () => {
    let set = addPoll(newPollSet(), 1, ids(5))
    let results: Array<Record<string, number>> = []
    for (let i = 0; i < 4; i++) ({ set, results } = voteIn(set, 1, `NodeID-${i}`, 'A', P))
    assert.deepEqual(results, [{ A: 4 }])
    assert.equal(pollCount(set), 0)
  })

  it('holds a later finished poll until the earlier finishes, then releases both in order', () => {
    let set = addPoll(newPollSet(), 1, ids(5))
    set = addPoll(set, 2, ids(5))
    let r = voteIn(set, 2, 'NodeID-0', 'B', P)
    for (let i = 1; i < 4; i++) r = voteIn(r.set, 2, `NodeID-${i}`, 'B', P)
    assert.deepEqual(r.results, [])
    assert.equal(pollCount(r.set), 2)
    r = dropIn(r.set, 1, 'NodeID-0', P)
    r = dropIn(r.set, 1, 'NodeID-1', P)
    assert.deepEqual(r.results, [])
    r = voteIn(r.set, 1, 'NodeID-2', 'A', P)
    assert.deepEqual(r.results, [])
    r = dropIn(r.set, 1, 'NodeID-3', P) // A 1 + remaining 1 < αp
    assert.deepEqual(r.results, [{ A: 1 }, { B: 4 }])
    assert.equal(pollCount(r.set), 0)
  })

  it('releases only the finished prefix', () => {
    const P = { alphaPreference: 1, alphaConfidence: 1 }
    let set = addPoll(newPollSet(), 1, ['X'])
    set = addPoll(set, 2, ['X'])
    set = addPoll(set, 3, ['X'])
    let r = voteIn(set, 3, 'X', 'C', P)
    r = voteIn(r.set, 1, 'X', 'A', P)
    assert.deepEqual(r.results, [{ A: 1 }])
    assert.deepEqual(
      r.set.polls.map((e) => e.requestId),
      [2, 3],
    )
    r = dropIn(r.set, 2, 'X', P)
    assert.deepEqual(r.results, [{}, { C: 1 }])
  })

  it('ignores unknown and duplicate request IDs', () => {
    const set = addPoll(newPollSet(), 7, ids(5))
    assert.equal(addPoll(set, 7, ['Z']), set)
    const r = voteIn(set, 8, 'NodeID-0', 'A', P)
    assert.equal(r.set, set)
    assert.deepEqual(r.results, [])
    assert.deepEqual(dropIn(set, 8, 'NodeID-0', P).results, [])
  })
})
