import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  type BenchChange,
  type BenchlistEvent,
  type BenchlistState,
  benchedNodeIds,
  benchlistCreate,
  benchlistReducer,
  DEFAULT_BENCHLIST,
  failureProbability,
  isBenched,
  maxBenchedPortion,
  nextBenchExpiry,
  type ValidatorWeight,
} from '../../../../actors/peers/benchlist.js'

const MIN = 60_000
const validators = (n: number, weight = 1): ValidatorWeight[] =>
  Array.from({ length: n }, (_, i) => ({ nodeId: `N${String(i).padStart(2, '0')}`, weight }))

/** Runs events in order, collecting every change. */
function run(s0: BenchlistState, events: BenchlistEvent[]): [BenchlistState, BenchChange[]] {
  let s = s0
  const all: BenchChange[] = []
  for (const e of events) {
    const r = benchlistReducer(s, e)
    s = r.state
    all.push(...r.changes)
  }
  return [s, all]
}
const fail = (nodeId: string, now: number, weight = 1): BenchlistEvent => ({ type: 'failure', nodeId, weight, now })
const ok = (nodeId: string, now: number, weight = 1): BenchlistEvent => ({ type: 'success', nodeId, weight, now })
const fails = (nodeId: string, n: number, now: number) => Array.from({ length: n }, () => fail(nodeId, now))

describe('benchlist', () => {
  it("has the reference's defaults; the cap is (1 - alphaConfidence / K) / 3", () => {
    assert.equal(DEFAULT_BENCHLIST.halflifeMs, MIN)
    assert.equal(DEFAULT_BENCHLIST.benchProbability, 0.5)
    assert.equal(DEFAULT_BENCHLIST.unbenchProbability, 0.2)
    assert.equal(DEFAULT_BENCHLIST.benchDurationMs, 5 * MIN)
    assert.ok(Math.abs(maxBenchedPortion(20, 15) - 1 / 12) < 1e-15)
    assert.equal(DEFAULT_BENCHLIST.maxBenchedPortion, maxBenchedPortion(20, 15))
  })

  it('one timeout on a fresh node gives p = 1/2: not benched', () => {
    const [s, changes] = run(benchlistCreate({}, validators(20)), [fail('N00', 1_000)])
    assert.equal(failureProbability(s, 'N00'), 0.5)
    assert.deepEqual(changes, [])
    assert.equal(isBenched(s, 'N00'), false)
  })

  it('two quick timeouts on a fresh node give p = 2/3: benched', () => {
    const [s, changes] = run(benchlistCreate({}, validators(20)), [fail('N00', 1_000), fail('N00', 1_100)])
    assert.ok(Math.abs(failureProbability(s, 'N00') - 2 / 3) < 1e-3)
    assert.deepEqual(changes, [{ nodeId: 'N00', benched: true }])
    assert.equal(isBenched(s, 'N00'), true)
    assert.equal(s.nodes['N00']?.benchedAtMs, 1_100)
    assert.deepEqual(benchedNodeIds(s), ['N00'])
    assert.deepEqual(JSON.parse(JSON.stringify(s)), s)
  })

  it('after a long silence one timeout suffices', () => {
    const [s1] = run(benchlistCreate({}, validators(20)), [ok('N00', 0), ok('N00', 1_000)])
    const [s2, changes] = run(s1, [fail('N00', 30 * MIN)])
    assert.ok(failureProbability(s2, 'N00') > 0.99)
    assert.deepEqual(changes, [{ nodeId: 'N00', benched: true }])
  })

  it('one timeout soon after answers does not bench', () => {
    const [s, changes] = run(benchlistCreate({}, validators(20)), [ok('N00', 0), ok('N00', 0), fail('N00', 1_000)])
    assert.ok(failureProbability(s, 'N00') < 0.5)
    assert.deepEqual(changes, [])
  })

  it('with 5 equal validators (20 % each > 1/12) nobody is ever benched', () => {
    let s = benchlistCreate({}, validators(5, 2_000_000_000_000_000))
    const changes: BenchChange[] = []
    for (let t = 0; t < 200; t++) {
      for (const v of validators(5, 2_000_000_000_000_000)) {
        const r = benchlistReducer(s, fail(v.nodeId, t * 1_000, v.weight))
        s = r.state
        changes.push(...r.changes)
      }
    }
    assert.deepEqual(changes, [])
    assert.ok(failureProbability(s, 'N00') > 0.99)
    assert.deepEqual(benchedNodeIds(s), [])
  })

  it('a cap <= 0 disables benching', () => {
    const [s, changes] = run(benchlistCreate({ maxBenchedPortion: maxBenchedPortion(20, 20) }, validators(100)), [
      ...fails('N00', 10, 0),
    ])
    assert.deepEqual(changes, [])
    assert.equal(isBenched(s, 'N00'), false)
  })

  it('only validators are tracked', () => {
    const [s, changes] = run(benchlistCreate({}, validators(20)), [
      fail('stranger', 0, 0),
      fail('stranger', 0, 0),
      fail('stranger', 0, 0),
    ])
    assert.deepEqual(changes, [])
    assert.deepEqual(s.nodes, {})
  })

  it('unbenches once p < 0.2', () => {
    const [s1] = run(benchlistCreate({}, validators(20)), fails('N00', 2, 0))
    // p = 2/n after n - 3 answers: 2/10 is not below 0.2, 2/11 is
    const [s2, c2] = run(
      s1,
      Array.from({ length: 7 }, () => ok('N00', 0)),
    )
    assert.deepEqual(c2, [])
    assert.equal(isBenched(s2, 'N00'), true)
    const [s3, c3] = run(s2, [ok('N00', 0)])
    assert.deepEqual(c3, [{ nodeId: 'N00', benched: false }])
    assert.equal(isBenched(s3, 'N00'), false)
    assert.equal(s3.nodes['N00']?.benchedAtMs, null)
  })

  it('a tick ends a bench after the bench duration and resets the average', () => {
    const [s1] = run(benchlistCreate({}, validators(20)), fails('N00', 3, 10_000))
    assert.equal(nextBenchExpiry(s1), 10_000 + 5 * MIN)
    const [s2, c2] = run(s1, [{ type: 'tick', now: 10_000 + 5 * MIN - 1 }])
    assert.deepEqual(c2, [])
    assert.equal(s2, s1)
    assert.equal(isBenched(s1, 'N00', 10_000 + 5 * MIN - 1), true)
    assert.equal(isBenched(s1, 'N00', 10_000 + 5 * MIN), false)
    const [s3, c3] = run(s1, [{ type: 'tick', now: 10_000 + 5 * MIN }])
    assert.deepEqual(c3, [{ nodeId: 'N00', benched: false }])
    assert.equal(failureProbability(s3, 'N00'), 0)
    assert.equal(nextBenchExpiry(s3), null)
    // a fresh average: one more timeout is not enough, two are
    const [s4, c4] = run(s3, [fail('N00', 10_000 + 5 * MIN)])
    assert.deepEqual(c4, [])
    const [, c5] = run(s4, [fail('N00', 10_000 + 5 * MIN)])
    assert.deepEqual(c5, [{ nodeId: 'N00', benched: true }])
  })

  it('an observation after the bench ran out unbenches first, from a fresh average', () => {
    const [s1] = run(benchlistCreate({}, validators(20)), fails('N00', 5, 0))
    const [s2, c2] = run(s1, [fail('N00', 6 * MIN)])
    assert.deepEqual(c2, [{ nodeId: 'N00', benched: false }])
    assert.equal(failureProbability(s2, 'N00'), 0.5)
  })

  it('at the cap, evicts benched nodes with a lower p, lowest first', () => {
    // 24 validators of weight 1: at most 2 benched
    let [s, c] = run(benchlistCreate({}, validators(24)), [...fails('N00', 2, 0), ...fails('N01', 3, 0)])
    assert.deepEqual(c, [
      { nodeId: 'N00', benched: true },
      { nodeId: 'N01', benched: true },
    ])
    // N02 at 2/3 is not above N00's 2/3: skipped
    ;[s, c] = run(s, fails('N02', 2, 0))
    assert.deepEqual(c, [])
    assert.equal(isBenched(s, 'N02'), false)
    // at 3/4 it beats N00 (2/3) but not N01 (3/4): N00 goes
    ;[s, c] = run(s, [fail('N02', 0)])
    assert.deepEqual(c, [
      { nodeId: 'N00', benched: false },
      { nodeId: 'N02', benched: true },
    ])
    assert.deepEqual(benchedNodeIds(s), ['N01', 'N02'])
  })

  it('skips when evicting every lower-p node would not free enough', () => {
    // total 24, cap 2: N00 (weight 1) benched, then N01 of weight 2 needs 2 free
    const vs = [...validators(22), { nodeId: 'BIG', weight: 2 }]
    let [s, c] = run(benchlistCreate({}, vs), [fail('N00', 0), fail('N00', 0)])
    assert.deepEqual(c, [{ nodeId: 'N00', benched: true }])
    ;[s, c] = run(s, [...fails('N01', 9, 0)])
    // N01 (weight 1) fits next to N00
    assert.deepEqual(c, [{ nodeId: 'N01', benched: true }])
    ;[s, c] = run(s, [fail('BIG', 0, 2), fail('BIG', 0, 2), fail('BIG', 0, 2)])
    // BIG at 3/4 could evict N00 (2/3) but not N01 (9/10): 1 freed is not enough
    assert.deepEqual(c, [])
    assert.deepEqual(benchedNodeIds(s), ['N00', 'N01'])
  })

  it('a validator set change updates the total and drops (unbenching) nodes that left', () => {
    let [s] = run(benchlistCreate({}, validators(20)), [...fails('N00', 2, 0), ...fails('N01', 1, 0)])
    let c: BenchChange[]
    ;[s, c] = run(s, [{ type: 'validatorsChanged', validators: validators(20).slice(2), now: 0 }])
    assert.deepEqual(c, [{ nodeId: 'N00', benched: false }])
    assert.equal(s.totalWeight, 18)
    assert.deepEqual(s.nodes, {})
    // with 5 validators left, nobody can be benched any more
    ;[s, c] = run(s, [{ type: 'validatorsChanged', validators: validators(5), now: 0 }, ...fails('N02', 5, 0)])
    assert.deepEqual(c, [])
  })
})
