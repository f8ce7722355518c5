import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  type EngineEffect,
  type EngineInput,
  engineCreate,
  engineHandle,
  engineLastAccepted,
  engineNumProcessing,
  enginePreference,
  engineSummary,
} from '../../../../actors/consensus/engine.js'
import { DEFAULT_SNOW_PARAMS, type SnowParams } from '../../../../actors/consensus/params.js'
import type { Chits, EngineBlock } from '../../../../actors/consensus/types.js'
import { makeBlock } from '../../../sim/consensus-sim.js'

const G = { id: 'G', height: 0 }

interface Opts {
  self?: string
  validators?: Array<[string, bigint]>
  down?: Set<string>
  params?: Partial<SnowParams>
}

/** The core's state with the accessors the assertions read. */
interface Engine {
  handle(input: EngineInput): EngineEffect[]
  snapshot(): ReturnType<typeof engineSummary>
  readonly numProcessing: number
  readonly preference: string
  readonly lastAccepted: { id: string; height: number }
}

function mk(o: Opts = {}): Engine {
  const self = o.self ?? 'S'
  const validators = (o.validators ?? [[self, 100n]]).map(([nodeId, weight]) => ({ nodeId, weight: String(weight) }))
  const down = o.down ?? new Set<string>()
  const state = engineCreate({
    params: { ...DEFAULT_SNOW_PARAMS, ...o.params },
    self,
    lastAccepted: G,
    validators,
    connected: validators.map((v) => v.nodeId).filter((n) => !down.has(n)),
    seed: 9,
  })
  return {
    handle: (input) => engineHandle(state, input),
    snapshot: () => engineSummary(state),
    get numProcessing() {
      return engineNumProcessing(state)
    },
    get preference() {
      return enginePreference(state)
    },
    get lastAccepted() {
      return engineLastAccepted(state)
    },
  }
}

const of = <T extends EngineEffect['type']>(fx: EngineEffect[], t: T) =>
  fx.filter((e): e is Extract<EngineEffect, { type: T }> => e.type === t)
const queries = (fx: EngineEffect[]) =>
  fx.filter(
    (e): e is Extract<EngineEffect, { type: 'pushQuery' | 'pullQuery' }> =>
      e.type === 'pushQuery' || e.type === 'pullQuery',
  )
const push = (from: string, b: EngineBlock, inboundId = 1): EngineInput => ({
  type: 'query',
  from,
  inboundId,
  block: b,
  requestedHeight: b.height,
})
const chitsFor = (id: string, acc = G): Chits => ({
  preferredId: id,
  preferredIdAtHeight: id,
  acceptedId: acc.id,
  acceptedHeight: acc.height,
})
/** Issues a block whose parent is known: push query, then a successful verification. */
function issue(e: Engine, from: string, b: EngineBlock): EngineEffect[] {
  const fx = e.handle(push(from, b))
  assert.deepEqual(of(fx, 'verify'), [{ type: 'verify', block: b }])
  return [...fx, ...e.handle({ type: 'verified', blockId: b.id, ok: true })]
}

describe('engine core: lone validator', () => {
  it('accepts a built block after exactly beta successful polls', () => {
    const e = mk()
    assert.deepEqual(e.handle({ type: 'pendingTxs' }), [{ type: 'build' }])
    const B = makeBlock('B', 'G', 1)
    const fx = e.handle({ type: 'built', block: B })
    assert.deepEqual(fx[0], { type: 'setPreference', blockId: 'B' })
    assert.deepEqual(fx[1], { type: 'pushQuery', to: ['S'], requestId: 1, block: B, requestedHeight: 1 })
    assert.deepEqual(
      queries(fx).map((q) => [q.type, q.requestId]),
      [
        ['pushQuery', 1],
        ['pullQuery', 2],
        ['pullQuery', 3],
        ['pullQuery', 4],
      ],
    )
    const outstanding = queries(fx)
    let delivered = 0
    let accepted = false
    while (!accepted) {
      const q = outstanding.shift()
      assert.ok(q, 'a poll is outstanding')
      // loop-back: the query to self, then its chits back
      const ans = e.handle(
        q.type === 'pushQuery'
          ? push('S', q.block, 7)
          : { type: 'query', from: 'S', inboundId: 7, blockId: q.blockId, requestedHeight: q.requestedHeight },
      )
      assert.equal(ans.length, 1)
      const c = ans[0] as Extract<EngineEffect, { type: 'chits' }>
      assert.deepEqual(c, { type: 'chits', to: 'S', inboundId: 7, chits: chitsFor('B') })
      const out = e.handle({ type: 'chits', from: 'S', requestId: q.requestId, chits: c.chits })
      delivered++
      accepted = of(out, 'accept').length > 0
      if (delivered < 20) {
        assert.equal(accepted, false, `accepted after ${delivered} polls`)
        assert.equal(e.numProcessing, 1)
        assert.equal(queries(out).length, 1) // the repoll keeps 4 outstanding
      }
      outstanding.push(...queries(out))
    }
    assert.equal(delivered, 20)
    assert.equal(e.numProcessing, 0)
    assert.deepEqual(e.lastAccepted, { id: 'B', height: 1 })
  })
})

describe('engine core: answering queries', () => {
  it('chits come first and reflect the preference before the queried block is processed', () => {
    const e = mk({ validators: [['P', 100n]] })
    const B = makeBlock('B', 'G', 1)
    const fx = e.handle(push('P', B, 5))
    assert.deepEqual(fx, [
      { type: 'chits', to: 'P', inboundId: 5, chits: chitsFor('G') },
      { type: 'verify', block: B },
    ])
    // after verification the preference is B and it is queried (pull: not built here)
    const fx2 = e.handle({ type: 'verified', blockId: 'B', ok: true })
    assert.deepEqual(fx2[0], { type: 'setPreference', blockId: 'B' })
    assert.deepEqual(fx2[1], { type: 'pullQuery', to: ['P'], requestId: 1, blockId: 'B', requestedHeight: 1 })
    const fx3 = e.handle({ type: 'query', from: 'P', inboundId: 6, blockId: 'B', requestedHeight: 1 })
    assert.deepEqual(fx3, [{ type: 'chits', to: 'P', inboundId: 6, chits: chitsFor('B') }])
    // preferredIdAtHeight: below the tip, the preferred chain's block at that height
    const C = makeBlock('C', 'B', 2)
    issue(e, 'P', C)
    const fx4 = e.handle({ type: 'query', from: 'P', inboundId: 7, blockId: 'C', requestedHeight: 1 })
    assert.deepEqual(fx4, [
      {
        type: 'chits',
        to: 'P',
        inboundId: 7,
        chits: { preferredId: 'C', preferredIdAtHeight: 'B', acceptedId: 'G', acceptedHeight: 0 },
      },
    ])
  })

  it('a query behind a push query waits for the pushed block to be verified, then sees it', () => {
    const e = mk({ validators: [['P', 100n]] })
    const B = makeBlock('B', 'G', 1)
    e.handle(push('P', B, 5))
    // the proposer's pull query right behind its push query: no chits while B is being verified
    const pull = (inboundId: number): EngineInput => ({
      type: 'query',
      from: 'P',
      inboundId,
      blockId: 'B',
      requestedHeight: 1,
    })
    assert.deepEqual(e.handle(pull(6)), [])
    assert.deepEqual(e.handle(pull(7)), [])
    assert.equal(e.snapshot().deferredQueries, 2)
    const fx = e.handle({ type: 'verified', blockId: 'B', ok: true })
    assert.deepEqual(of(fx, 'chits'), [
      { type: 'chits', to: 'P', inboundId: 6, chits: chitsFor('B') },
      { type: 'chits', to: 'P', inboundId: 7, chits: chitsFor('B') },
    ])
    // a failed verification releases them too, with the old preference
    const C = makeBlock('C', 'B', 2)
    e.handle(push('P', C, 8))
    assert.deepEqual(e.handle(pull(9)), [])
    const fx2 = e.handle({ type: 'verified', blockId: 'C', ok: false })
    assert.deepEqual(of(fx2, 'chits'), [{ type: 'chits', to: 'P', inboundId: 9, chits: chitsFor('B') }])
    assert.equal(e.snapshot().deferredQueries, 0)
    // with nothing being verified a query is answered at once
    assert.deepEqual(e.handle(pull(10)), [{ type: 'chits', to: 'P', inboundId: 10, chits: chitsFor('B') }])
  })
  it('fetches an unknown parent from the querier, then verifies parent before child', () => {
    const e = mk({ validators: [['P', 100n]] })
    const A = makeBlock('A', 'G', 1)
    const B = makeBlock('B', 'A', 2)
    const fx = e.handle(push('P', B))
    assert.deepEqual(fx.slice(1), [{ type: 'get', to: 'P', blockId: 'A' }])
    assert.deepEqual(e.snapshot().awaitingParents, ['B'])
    assert.deepEqual(e.handle({ type: 'put', from: 'Q', block: A }), []) // unsolicited
    const fx2 = e.handle({ type: 'put', from: 'P', block: A, blockId: 'A' })
    assert.deepEqual(fx2, [{ type: 'verify', block: A }])
    const fx3 = e.handle({ type: 'verified', blockId: 'A', ok: true })
    assert.deepEqual(of(fx3, 'verify'), [{ type: 'verify', block: B }])
    e.handle({ type: 'verified', blockId: 'B', ok: true })
    assert.equal(e.numProcessing, 2)
    assert.equal(e.preference, 'B')
  })

  it('a failed get abandons the waiting blocks; a parent at the accepted height that is not accepted drops the block', () => {
    const e = mk({ validators: [['P', 100n]] })
    e.handle(push('P', makeBlock('C', 'X', 3)))
    assert.deepEqual(e.snapshot().outstandingGets, [{ blockId: 'X', to: 'P' }])
    assert.deepEqual(e.handle({ type: 'getFailed', from: 'P', blockId: 'X' }), [])
    assert.deepEqual(e.snapshot().awaitingParents, [])
    // parent claimed at height 0 but not G: dropped at once, nothing fetched or verified
    const fx = e.handle(push('P', makeBlock('D', 'H0', 1)))
    assert.deepEqual(
      fx.map((x) => x.type),
      ['chits'],
    )
    assert.deepEqual(e.snapshot().awaitingParents, [])
    // a self-parented block or a height that does not follow a known parent is dropped, not kept waiting
    assert.deepEqual(
      e.handle(push('P', makeBlock('Y', 'Y', 5))).map((x) => x.type),
      ['chits'],
    )
    e.handle(push('P', makeBlock('E2', 'E1', 7)))
    assert.deepEqual(e.snapshot().awaitingParents, ['E2'])
    e.handle(push('P', makeBlock('E3', 'E2', 9)))
    assert.deepEqual(e.snapshot().awaitingParents, ['E2'])
  })

  it('a block failing verification never enters the tree; its dependents are abandoned', () => {
    const e = mk({ validators: [['P', 100n]] })
    const A = makeBlock('A', 'G', 1)
    const B = makeBlock('B', 'A', 2)
    e.handle(push('P', B))
    e.handle({ type: 'put', from: 'P', block: A })
    const fx = e.handle({ type: 'verified', blockId: 'A', ok: false })
    assert.deepEqual(fx, [])
    assert.equal(e.numProcessing, 0)
    assert.deepEqual(e.snapshot().awaitingParents, [])
    assert.equal(e.snapshot().unverified, 1)
  })
})

describe('engine core: consensus', () => {
  it('rejection cascades to the losing branch and all its descendants', () => {
    const e = mk({ validators: [['P', 100n]] })
    const [B1, B2, A1, A2] = [
      makeBlock('B1', 'G', 1),
      makeBlock('B2', 'B1', 2),
      makeBlock('A1', 'G', 1),
      makeBlock('A2', 'A1', 2),
    ]
    let pending: Array<Extract<EngineEffect, { type: 'pushQuery' | 'pullQuery' }>> = []
    for (const b of [B1, B2, A1, A2]) pending.push(...queries(issue(e, 'P', b)))
    assert.equal(e.preference, 'B2')
    const decided: EngineEffect[] = []
    let polls = 0
    while (e.numProcessing > 0) {
      const q = pending.shift()
      assert.ok(q)
      const fx = e.handle({ type: 'chits', from: 'P', requestId: q.requestId, chits: chitsFor('A2') })
      polls++
      decided.push(...fx.filter((x) => x.type === 'accept' || x.type === 'reject'))
      pending = [...pending, ...queries(fx)]
    }
    assert.equal(polls, 20)
    assert.deepEqual(decided, [
      { type: 'accept', blockId: 'A1' },
      { type: 'accept', blockId: 'A2' },
      { type: 'reject', blockId: 'B1' },
      { type: 'reject', blockId: 'B2' },
    ])
    assert.deepEqual(e.lastAccepted, { id: 'A2', height: 2 })
  })

  it('skips queries while connected stake is below alphaConfidence/K', () => {
    const validators: Array<[string, bigint]> = ['S', 'P1', 'P2', 'P3', 'P4'].map((n) => [n, 100n])
    const B = makeBlock('B', 'G', 1)
    const two = mk({ validators, down: new Set(['P1', 'P2']) }) // 60 % connected
    two.handle({ type: 'pendingTxs' })
    assert.deepEqual(queries(two.handle({ type: 'built', block: B })), [])
    assert.deepEqual(queries(two.handle({ type: 'tick' })), [])
    assert.deepEqual(queries(two.handle({ type: 'connectivityChanged', connected: ['S', 'P3', 'P4'] })), [])
    const one = mk({ validators, down: new Set(['P1']) }) // 80 % connected
    one.handle({ type: 'pendingTxs' })
    const fx = queries(one.handle({ type: 'built', block: B }))
    assert.equal(fx.length, 4)
    assert.equal(fx[0]?.type, 'pushQuery')
  })

  it('applies poll results in request order', () => {
    const e = mk({ validators: [['P', 100n]] })
    const A = makeBlock('A', 'G', 1)
    const B = makeBlock('B', 'G', 1)
    issue(e, 'P', A)
    issue(e, 'P', B)
    assert.deepEqual(
      e.snapshot().polls.map((p) => p.requestId),
      [1, 2, 3, 4],
    )
    // poll 2 answers first (A), poll 1 later (B): released together as [B, A]; Snowflake keeps the last winner
    assert.deepEqual(e.handle({ type: 'chits', from: 'P', requestId: 2, chits: chitsFor('A') }), [])
    assert.equal(e.preference, 'A')
    const fx = e.handle({ type: 'chits', from: 'P', requestId: 1, chits: chitsFor('B') })
    assert.equal(e.preference, 'A')
    assert.equal(of(fx, 'setPreference').length, 0) // B then A: the VM never saw a change
    assert.equal(queries(fx).length, 2)
    // the other way round the preference ends on B
    const fx2 = e.handle({ type: 'chits', from: 'P', requestId: 4, chits: chitsFor('A') })
    assert.deepEqual(of(fx2, 'setPreference'), [])
    const fx3 = e.handle({ type: 'chits', from: 'P', requestId: 3, chits: chitsFor('B') })
    assert.deepEqual(of(fx3, 'setPreference'), [])
    assert.equal(e.preference, 'A')
    const fx4 = e.handle({ type: 'chits', from: 'P', requestId: 5, chits: chitsFor('B') })
    assert.deepEqual(of(fx4, 'setPreference'), [{ type: 'setPreference', blockId: 'B' }])
  })

  it('queryFailed votes for the peer known accepted frontier, else drops', () => {
    const params = { beta: 2, concurrentRepolls: 2 }
    const A = makeBlock('A', 'G', 1)
    const accA = { id: 'A', height: 1 }
    // P told us earlier that it accepted A: its failed answer counts as a vote for A
    const e = mk({ validators: [['P', 100n]], params })
    issue(e, 'P', A)
    assert.deepEqual(of(e.handle({ type: 'chits', from: 'P', requestId: 1, chits: chitsFor('A', accA) }), 'accept'), [])
    const fx = e.handle({ type: 'queryFailed', from: 'P', requestId: 2 })
    assert.deepEqual(of(fx, 'accept'), [{ type: 'accept', blockId: 'A' }])
    // without a known frontier the failure is a drop: an empty poll, confidence reset, nothing accepted
    const f = mk({ validators: [['P', 100n]], params })
    issue(f, 'P', A)
    f.handle({ type: 'queryFailed', from: 'P', requestId: 1 })
    assert.deepEqual(of(f.handle({ type: 'chits', from: 'P', requestId: 2, chits: chitsFor('A') }), 'accept'), [])
    assert.equal(f.numProcessing, 1)
  })

  it('a vote for an unknown block waits until it is fetched and issued', () => {
    const e = mk({ validators: [['P', 100n]], params: { beta: 1, concurrentRepolls: 1 } })
    const A = makeBlock('A', 'G', 1)
    const B = makeBlock('B', 'A', 2)
    issue(e, 'P', A)
    const fx = e.handle({ type: 'chits', from: 'P', requestId: 1, chits: chitsFor('B') })
    assert.deepEqual(fx, [{ type: 'get', to: 'P', blockId: 'B' }])
    assert.equal(e.snapshot().waitingVotes, 1)
    e.handle({ type: 'put', from: 'P', block: B })
    const fx2 = e.handle({ type: 'verified', blockId: 'B', ok: true })
    // B counts for A transitively: with beta = 1, A and B are accepted in this poll
    assert.deepEqual(
      fx2.filter((x) => x.type === 'accept'),
      [
        { type: 'accept', blockId: 'A' },
        { type: 'accept', blockId: 'B' },
      ],
    )
  })

  it('acceptance abandons waiting blocks that can no longer be accepted', () => {
    const e = mk({ validators: [['P', 100n]], params: { beta: 1, concurrentRepolls: 1 } })
    const A = makeBlock('A', 'G', 1)
    issue(e, 'P', A)
    e.handle(push('P', makeBlock('C', 'X', 2))) // X (height 1) is fetched
    e.handle(push('P', makeBlock('D', 'A', 2))) // D is verifying
    assert.deepEqual(e.snapshot().awaitingParents, ['C'])
    const fx = e.handle({ type: 'chits', from: 'P', requestId: 1, chits: chitsFor('A') })
    assert.deepEqual(of(fx, 'accept'), [{ type: 'accept', blockId: 'A' }])
    // X would sit at the accepted height without being A: C is dropped; D still awaits its verification
    assert.deepEqual(e.snapshot().awaitingParents, [])
    assert.deepEqual(e.snapshot().awaitingVerify, ['D'])
  })

  it('a vote for a block that failed verification bubbles to its processing parent', () => {
    const e = mk({ validators: [['P', 100n]], params: { beta: 1, concurrentRepolls: 1 } })
    const A = makeBlock('A', 'G', 1)
    const Bad = makeBlock('Bad', 'A', 2)
    issue(e, 'P', A)
    e.handle(push('P', Bad))
    e.handle({ type: 'verified', blockId: 'Bad', ok: false })
    const fx = e.handle({ type: 'chits', from: 'P', requestId: 1, chits: chitsFor('Bad') })
    assert.deepEqual(of(fx, 'accept'), [{ type: 'accept', blockId: 'A' }])
  })
})

describe('engine core: building and frontier polling', () => {
  it('builds one block at a time while below optimalProcessing', () => {
    const e = mk({ params: { optimalProcessing: 1 } })
    assert.deepEqual(e.handle({ type: 'pendingTxs' }), [{ type: 'build' }])
    assert.deepEqual(e.handle({ type: 'pendingTxs' }), []) // a build is outstanding
    assert.equal(e.snapshot().pendingBuild, 1)
    // a failed build consumes its signal; the next waiting one is tried
    assert.deepEqual(e.handle({ type: 'buildFailed' }), [{ type: 'build' }])
    assert.equal(e.snapshot().pendingBuild, 0)
    assert.deepEqual(e.handle({ type: 'buildFailed' }), [])
    e.handle({ type: 'pendingTxs' })
    const fx = e.handle({ type: 'built', block: makeBlock('B', 'G', 1) })
    e.handle({ type: 'pendingTxs' })
    assert.equal(of(fx, 'build').length, 0)
    assert.equal(e.snapshot().pendingBuild, 1) // waits: numProcessing (1) is not below optimalProcessing (1)
  })

  it('a built block on a stale parent is rejected', () => {
    const e = mk()
    e.handle({ type: 'pendingTxs' })
    assert.deepEqual(e.handle({ type: 'built', block: makeBlock('X', 'Old', 1) }), [{ type: 'reject', blockId: 'X' }])
  })

  it('tick while quiescent pull-queries one connected validator other than self, with request ID 0', () => {
    const e = mk({
      validators: [
        ['S', 100n],
        ['P', 100n],
        ['Q', 100n],
      ],
      down: new Set(['Q']),
    })
    for (let i = 0; i < 5; i++) {
      assert.deepEqual(e.handle({ type: 'tick' }), [
        { type: 'pullQuery', to: ['P'], requestId: 0, blockId: 'G', requestedHeight: 1 },
      ])
    }
    // its chits only make us fetch the block named
    const fx = e.handle({ type: 'chits', from: 'P', requestId: 0, chits: chitsFor('N') })
    assert.deepEqual(fx, [{ type: 'get', to: 'P', blockId: 'N' }])
    assert.equal(e.snapshot().waitingVotes, 0)
    const lone = mk()
    assert.deepEqual(lone.handle({ type: 'tick' }), [])
  })
})
