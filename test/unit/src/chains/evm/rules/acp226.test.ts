import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  desiredDelayExcess,
  INITIAL_MIN_DELAY_EXCESS,
  MAX_DELAY_EXCESS_DIFF,
  minDelayMs,
  moveDelayExcess,
  nextMinDelayExcess,
  verifyMinDelay,
} from '../../../../../../src/chains/evm/rules/acp226.js'

describe('ACP-226 minimum block delay', () => {
  it('gives 2000 ms at the initial excess and 1 ms at 0', () => {
    assert.equal(INITIAL_MIN_DELAY_EXCESS, 7_970_124n)
    assert.equal(minDelayMs(INITIAL_MIN_DELAY_EXCESS), 2000n)
    assert.equal(minDelayMs(INITIAL_MIN_DELAY_EXCESS - 2n), 1999n)
    assert.equal(minDelayMs(0n), 1n)
    assert.equal(desiredDelayExcess(2000n), INITIAL_MIN_DELAY_EXCESS)
    assert.equal(minDelayMs(desiredDelayExcess(2000n)), 2000n)
  })

  it('moves at most 200 per block toward the target', () => {
    assert.equal(MAX_DELAY_EXCESS_DIFF, 200n)
    assert.equal(moveDelayExcess(1000n, 5000n), 1200n)
    assert.equal(moveDelayExcess(1000n, 0n), 800n)
    assert.equal(moveDelayExcess(1000n, 1100n), 1100n)
    assert.equal(nextMinDelayExcess(INITIAL_MIN_DELAY_EXCESS), INITIAL_MIN_DELAY_EXCESS)
    assert.equal(nextMinDelayExcess(INITIAL_MIN_DELAY_EXCESS, 1n), INITIAL_MIN_DELAY_EXCESS - 200n)
    assert.equal(nextMinDelayExcess(INITIAL_MIN_DELAY_EXCESS, 5000n), INITIAL_MIN_DELAY_EXCESS + 200n)
  })

  it('rejects a child that comes too early', () => {
    verifyMinDelay(1_000n, 3_000n, INITIAL_MIN_DELAY_EXCESS)
    assert.throws(() => verifyMinDelay(1_000n, 2_999n, INITIAL_MIN_DELAY_EXCESS), {
      message: 'minimum block delay not met: actual delay 1999ms < required 2000ms',
    })
    assert.throws(() => verifyMinDelay(1_000n, 1_000n, 0n), /minimum block delay not met/)
  })
})
