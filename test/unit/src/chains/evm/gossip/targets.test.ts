import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  connectedValidators,
  isValidator,
  pushTargets,
  sample,
  topByStake,
} from '../../../../../../src/chains/evm/gossip/targets.js'
import { SlidingWindowThrottler } from '../../../../../../src/chains/evm/gossip/throttler.js'

const V = (nodeId: string, weight: bigint) => ({ nodeId, weight })

/** a fixed sequence in [0, 1) */
function seq(...xs: number[]): () => number {
  let i = 0
  return () => xs[i++ % xs.length] as number
}

describe('tx gossip targets', () => {
  const validators = [V('a', 10n), V('b', 50n), V('c', 30n), V('d', 10n), V('e', 0n)]

  it('takes the heaviest validators until 90 % of stake, keeping connected ones other than self', () => {
    const all = new Set(['a', 'b', 'c', 'd', 'e'])
    // 50 + 30 + 10 (a before d on ties) = 90
    assert.deepEqual(topByStake(validators, 90, all, 'x'), ['b', 'c', 'a'])
    assert.deepEqual(topByStake(validators, 90, all, 'c'), ['b', 'a'])
    assert.deepEqual(topByStake(validators, 90, new Set(['a', 'd']), 'x'), ['a'])
    assert.deepEqual(topByStake(validators, 100, all, 'x'), ['b', 'c', 'a', 'd'])
    assert.deepEqual(topByStake([], 90, all, 'x'), [])
  })

  it('samples without replacement', () => {
    assert.deepEqual(sample(['a', 'b', 'c'], 2, seq(0)), ['a', 'c'])
    assert.deepEqual(sample(['a', 'b', 'c'], 5, seq(0.99)).sort(), ['a', 'b', 'c'])
    assert.deepEqual(sample(['a'], 0, seq(0)), [])
  })

  it('push goes to the top stake plus sampled connected validators, never self or non-validators', () => {
    const connected = ['a', 'b', 'c', 'd', 'e', 'outsider', 'self']
    const all = [...validators, V('self', 1n)]
    const targets = pushTargets(all, connected, 'self', { percent: 90, sampled: 1, random: seq(0) })
    assert.deepEqual(targets.slice(0, 3), ['b', 'c', 'a'])
    assert.equal(targets.length, 4)
    assert.equal(targets[3], 'd')
    assert.deepEqual(connectedValidators(all, connected, 'self'), ['a', 'b', 'c', 'd'])
    assert.ok(isValidator(all, 'self'))
    assert.ok(!isValidator(all, 'e'))
    assert.ok(!isValidator(all, 'outsider'))
  })
})

describe('SlidingWindowThrottler', () => {
  it('allows the limit per period per node, then refuses until the window slides', () => {
    let now = 1_000_000
    const t = new SlidingWindowThrottler(60_000, 3, () => now)
    assert.deepEqual([t.handle('a'), t.handle('a'), t.handle('a'), t.handle('a')], [true, true, true, false])
    assert.ok(t.handle('b'))
    // half a period into the next window the previous 3 hits weigh 1.5: room for 1.5 more, i.e. 2
    now += 90_000
    assert.deepEqual([t.handle('a'), t.handle('a'), t.handle('a')], [true, true, false])
    // more than two periods later nothing is left
    now += 200_000
    assert.deepEqual([t.handle('a'), t.handle('a'), t.handle('a'), t.handle('a')], [true, true, true, false])
  })
})
