import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx'
import {
  checkPercentiles,
  processPercentiles,
  resolveBlockRange,
  slimBlock,
} from '../../../../../../src/chains/evm/gasprice/fee-history.js'
import { effectiveGasTip } from '../../../../../../src/chains/evm/gasprice/tip.js'

const LATEST = -2n
const PENDING = -1n

describe('resolveBlockRange (coreth feehistory_test cases, head 32)', () => {
  const cases: [bigint, bigint, bigint, bigint, bigint | string][] = [
    // count, last, maxBlockHistory, expected first, expected count (or error text)
    [10n, 30n, 1000n, 21n, 10n],
    [1_000_000_000n, 30n, 1000n, 0n, 31n],
    [1_000_000_000n, LATEST, 1000n, 0n, 33n],
    [10n, 40n, 1000n, 0n, 'request beyond head block: requested 40, head 32'],
    [100n, LATEST, 2n, 31n, 2n],
    [100n, 32n, 2n, 31n, 2n],
    [1n, PENDING, 1000n, 0n, 0n],
    [2n, PENDING, 1000n, 32n, 1n],
    [10n, 30n, 10n, 23n, 8n],
    [1_000_000_000n, 10n, 33n, 0n, 11n],
    [10n, 20n, 2n, 0n, 'request beyond historical limit: requested 20, head 32'],
    [10n, -3n, 30n, 23n, 10n],
  ]
  for (const [count, last, maxHistory, first, expected] of cases) {
    it(`count ${count}, last ${last}, history ${maxHistory}`, () => {
      if (typeof expected === 'string') {
        assert.throws(() => resolveBlockRange(last, count, 32n, maxHistory), { message: expected })
        return
      }
      const [newest, blocks] = resolveBlockRange(last, count, 32n, maxHistory)
      assert.equal(blocks, expected)
      if (blocks > 0n) assert.equal(newest + 1n - blocks, first)
    })
  }
})

describe('processPercentiles', () => {
  const sb = {
    gasUsed: 100n,
    gasLimit: 400n,
    baseFee: 7n,
    txs: [
      { gasUsed: 30n, reward: 1n },
      { gasUsed: 70n, reward: 5n },
    ],
  }
  it('weights rewards by gas used', () => {
    assert.deepEqual(processPercentiles(sb, [0, 30, 31, 100]), [[1n, 1n, 5n, 5n], 7n, 0.25])
  })
  it('gives zeros for an empty block and no row without percentiles', () => {
    assert.deepEqual(processPercentiles({ ...sb, txs: [] }, [10, 90]), [[0n, 0n], 7n, 0.25])
    assert.deepEqual(processPercentiles(sb, []), [undefined, 7n, 0.25])
  })
})

describe('checkPercentiles', () => {
  it('uses coreth texts', () => {
    assert.doesNotThrow(() => checkPercentiles([0, 50, 100]))
    assert.throws(() => checkPercentiles([101]), { message: 'invalid reward percentile: 101.000000' })
    assert.throws(() => checkPercentiles([-1]), { message: 'invalid reward percentile: -1.000000' })
    assert.throws(() => checkPercentiles([20, 10]), {
      message: 'invalid reward percentile: #0:20.000000 >= #1:10.000000',
    })
    assert.throws(() => checkPercentiles([5, 5]), { message: 'invalid reward percentile: #0:5.000000 >= #1:5.000000' })
  })
})

describe('effective tips', () => {
  const legacy = createLegacyTx({ gasPrice: 100n, gasLimit: 21000n })
  const dynamic = createFeeMarket1559Tx({ maxFeePerGas: 100n, maxPriorityFeePerGas: 10n, gasLimit: 21000n })
  it('is min(tipCap, feeCap - baseFee)', () => {
    assert.deepEqual(effectiveGasTip(legacy, 30n), { tip: 70n, capTooLow: false })
    assert.deepEqual(effectiveGasTip(dynamic, 30n), { tip: 10n, capTooLow: false })
    assert.deepEqual(effectiveGasTip(dynamic, 95n), { tip: 5n, capTooLow: false })
    assert.deepEqual(effectiveGasTip(dynamic, undefined), { tip: 10n, capTooLow: false })
    assert.deepEqual(effectiveGasTip(dynamic, 120n), { tip: -20n, capTooLow: true })
  })
  it('sorts a block by reward with receipts gas', () => {
    const sb = slimBlock(
      { gasUsed: 42000n, gasLimit: 84000n, baseFee: 30n },
      [legacy, dynamic],
      [{ gasUsed: 21000n } as never, { gasUsed: 21000n } as never],
    )
    assert.deepEqual(sb.txs, [
      { gasUsed: 21000n, reward: 10n },
      { gasUsed: 21000n, reward: 70n },
    ])
  })
})
