import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  DEFAULT_SNOW_PARAMS,
  maxBenchedFraction,
  minConnectedStakeFraction,
  minPercentConnectedHealthy,
  type SnowParams,
  validateSnowParams,
} from '../../../../actors/consensus/params.js'

const with_ = (over: Partial<SnowParams>): SnowParams => ({ ...DEFAULT_SNOW_PARAMS, ...over })

describe('snow params', () => {
  it('has the reference defaults and accepts them', () => {
    assert.deepEqual(
      { ...DEFAULT_SNOW_PARAMS },
      {
        k: 20,
        alphaPreference: 15,
        alphaConfidence: 15,
        beta: 20,
        concurrentRepolls: 4,
        optimalProcessing: 10,
        maxOutstandingItems: 256,
        maxItemProcessingTimeMs: 30_000,
      },
    )
    assert.equal(validateSnowParams(DEFAULT_SNOW_PARAMS), null)
  })

  it('accepts boundary values', () => {
    assert.equal(validateSnowParams(with_({ k: 21, alphaPreference: 11, alphaConfidence: 21 })), null)
    assert.equal(validateSnowParams(with_({ concurrentRepolls: 20, beta: 20 })), null)
    assert.equal(validateSnowParams(with_({ k: 1, alphaPreference: 1, alphaConfidence: 1 })), null)
  })

  it('rejects alphaPreference <= floor(k/2)', () => {
    assert.equal(
      validateSnowParams(with_({ alphaPreference: 10 })),
      'parameters invalid: k = 20, alphaPreference = 10: fails the condition that: k/2 < alphaPreference',
    )
    assert.equal(
      validateSnowParams(with_({ k: 21, alphaPreference: 10, alphaConfidence: 15 })),
      'parameters invalid: k = 21, alphaPreference = 10: fails the condition that: k/2 < alphaPreference',
    )
  })

  it('rejects alphaConfidence < alphaPreference', () => {
    assert.equal(
      validateSnowParams(with_({ alphaPreference: 16, alphaConfidence: 15 })),
      'parameters invalid: alphaPreference = 16, alphaConfidence = 15: fails the condition that: alphaPreference <= alphaConfidence',
    )
  })

  it('rejects alphaConfidence > k', () => {
    assert.equal(
      validateSnowParams(with_({ alphaConfidence: 21 })),
      'parameters invalid: k = 20, alphaConfidence = 21: fails the condition that: alphaConfidence <= k',
    )
  })

  it('rejects concurrentRepolls <= 0', () => {
    assert.equal(
      validateSnowParams(with_({ concurrentRepolls: 0 })),
      'parameters invalid: concurrentRepolls = 0: fails the condition that: 0 < concurrentRepolls',
    )
  })

  it('rejects concurrentRepolls > beta', () => {
    assert.equal(
      validateSnowParams(with_({ concurrentRepolls: 21 })),
      'parameters invalid: concurrentRepolls = 21, beta = 20: fails the condition that: concurrentRepolls <= beta',
    )
  })

  it('rejects non-positive optimalProcessing, maxOutstandingItems, maxItemProcessingTime', () => {
    assert.equal(
      validateSnowParams(with_({ optimalProcessing: 0 })),
      'parameters invalid: optimalProcessing = 0: fails the condition that: 0 < optimalProcessing',
    )
    assert.equal(
      validateSnowParams(with_({ maxOutstandingItems: -1 })),
      'parameters invalid: maxOutstandingItems = -1: fails the condition that: 0 < maxOutstandingItems',
    )
    assert.equal(
      validateSnowParams(with_({ maxItemProcessingTimeMs: -2 })),
      'parameters invalid: maxItemProcessingTime = -2000000: fails the condition that: 0 < maxItemProcessingTime',
    )
  })

  it('derives the connected and benched thresholds', () => {
    assert.equal(minConnectedStakeFraction(DEFAULT_SNOW_PARAMS), 0.75)
    assert.ok(Math.abs(minPercentConnectedHealthy(DEFAULT_SNOW_PARAMS) - 0.8) < 1e-12)
    assert.ok(Math.abs(maxBenchedFraction(DEFAULT_SNOW_PARAMS) - 0.25 / 3) < 1e-12)
    assert.equal(maxBenchedFraction(with_({ alphaConfidence: 20 })), 0)
  })
})
