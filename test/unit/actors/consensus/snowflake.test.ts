import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DEFAULT_SNOW_PARAMS, type SnowParams } from '../../../../actors/consensus/params.js'
import {
  newSnowflake,
  recordPoll,
  recordUnsuccessfulPoll,
  type SnowflakeState,
} from '../../../../actors/consensus/snowflake.js'

const P: SnowParams = { ...DEFAULT_SNOW_PARAMS, k: 20, alphaPreference: 12, alphaConfidence: 15, beta: 3 }

const polls = (s: SnowflakeState, n: number, count: number, choice: string, params: SnowParams = P): SnowflakeState => {
  let st = s
  for (let i = 0; i < n; i++) st = recordPoll(st, count, choice, params)
  return st
}

describe('snowflake', () => {
  it('finalizes after exactly beta successful polls', () => {
    const s2 = polls(newSnowflake('a'), 2, 15, 'a')
    assert.deepEqual(s2, { preference: 'a', confidence: 2, finalized: false })
    const s3 = recordPoll(s2, 20, 'a', P)
    assert.deepEqual(s3, { preference: 'a', confidence: 3, finalized: true })
    const d = polls(newSnowflake('a'), DEFAULT_SNOW_PARAMS.beta - 1, 15, 'a', DEFAULT_SNOW_PARAMS)
    assert.equal(d.finalized, false)
    assert.equal(recordPoll(d, 15, 'a', DEFAULT_SNOW_PARAMS).finalized, true)
  })

  it('is pure and JSON-safe', () => {
    const s0 = newSnowflake('a')
    const s1 = recordPoll(s0, 15, 'a', P)
    assert.deepEqual(s0, { preference: 'a', confidence: 0, finalized: false })
    assert.deepEqual(JSON.parse(JSON.stringify(s1)), s1)
  })

  it('resets confidence on a preference change, counting the new choice', () => {
    const s = polls(newSnowflake('a'), 2, 15, 'a')
    const t = recordPoll(s, 15, 'b', P)
    assert.deepEqual(t, { preference: 'b', confidence: 1, finalized: false })
    const u = polls(t, 2, 15, 'b')
    assert.deepEqual(u, { preference: 'b', confidence: 3, finalized: true })
  })

  it('with alphaPreference <= count < alphaConfidence: switches preference, confidence 0', () => {
    const s = polls(newSnowflake('a'), 2, 15, 'a')
    assert.deepEqual(recordPoll(s, 14, 'a', P), { preference: 'a', confidence: 0, finalized: false })
    assert.deepEqual(recordPoll(s, 12, 'b', P), { preference: 'b', confidence: 0, finalized: false })
  })

  it('with count < alphaPreference: keeps preference, confidence 0', () => {
    const s = polls(newSnowflake('a'), 2, 15, 'a')
    assert.deepEqual(recordPoll(s, 11, 'b', P), { preference: 'a', confidence: 0, finalized: false })
  })

  it('resets confidence on an unsuccessful poll', () => {
    const s = polls(newSnowflake('a'), 2, 15, 'a')
    const t = recordUnsuccessfulPoll(s)
    assert.deepEqual(t, { preference: 'a', confidence: 0, finalized: false })
    assert.equal(polls(t, 2, 15, 'a').finalized, false)
    assert.equal(polls(t, 3, 15, 'a').finalized, true)
  })

  it('ignores polls once finalized', () => {
    const f = polls(newSnowflake('a'), 3, 15, 'a')
    assert.equal(f.finalized, true)
    assert.deepEqual(recordPoll(f, 20, 'b', P), f)
    assert.deepEqual(recordPoll(f, 0, 'b', P), f)
    const u = recordUnsuccessfulPoll(f)
    assert.equal(u.finalized, true)
    assert.equal(u.preference, 'a')
  })
})
