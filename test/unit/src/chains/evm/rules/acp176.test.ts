import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  advance,
  consume,
  decodeFeeState,
  desiredTargetExcess,
  encodeFeeState,
  type FeeState,
  MAX_TARGET_EXCESS_DIFF,
  maxCapacity,
  moveTarget,
  price,
  TARGET_CONVERSION,
  target,
  ZERO_FEE_STATE,
} from '../../../../../../src/chains/evm/rules/acp176.js'
import { U64_MAX } from '../../../../../../src/chains/evm/rules/fake-exp.js'

const s = (capacity: bigint, excess: bigint, targetExcess = 0n): FeeState => ({ capacity, excess, targetExcess })

describe('ACP-176 fee state', () => {
  it('encodes 24 big-endian bytes and decodes them back', () => {
    const state = s(10_000_000n, 123_456_789n, 42n)
    const bytes = encodeFeeState(state)
    assert.equal(Buffer.from(bytes).toString('hex'), '0000000000989680' + '00000000075bcd15' + '000000000000002a')
    assert.deepEqual(decodeFeeState(bytes), state)
    assert.deepEqual(decodeFeeState(Uint8Array.of(...bytes, 1, 2, 3)), state, 'predicate bytes after 24 are ignored')
    assert.deepEqual(decodeFeeState(encodeFeeState(s(U64_MAX, U64_MAX, U64_MAX))), s(U64_MAX, U64_MAX, U64_MAX))
    assert.throws(() => decodeFeeState(new Uint8Array(23)), {
      message: 'insufficient length for fee state: expected at least 24 bytes but got 23 bytes',
    })
    assert.throws(() => encodeFeeState(s(-1n, 0n)), /out of range/)
  })

  it('has target 1M gas/s, capacity 10M and price 1 wei at the start', () => {
    assert.equal(target(ZERO_FEE_STATE), 1_000_000n)
    assert.equal(maxCapacity(ZERO_FEE_STATE), 10_000_000n)
    assert.equal(price(ZERO_FEE_STATE), 1n)
  })

  it('prices 2 wei only once excess ≈ 87 × T × ln 2', () => {
    const k = 87_000_000n
    const ln2 = BigInt(Math.floor(Number(k) * Math.LN2))
    assert.equal(price(s(0n, ln2 - 100n)), 1n)
    assert.equal(price(s(0n, ln2 + 100n)), 2n)
  })

  it('advances by milliseconds under Granite: rates T/1000 and 2T/1000, capped at C', () => {
    assert.deepEqual(advance(ZERO_FEE_STATE, 1000n, true), s(2_000_000n, 0n))
    assert.deepEqual(advance(ZERO_FEE_STATE, 1n, true), s(2_000n, 0n))
    assert.deepEqual(advance(s(0n, 5_000n), 3n, true), s(6_000n, 2_000n))
    assert.deepEqual(advance(s(9_999_000n, 500n), 10n, true), s(10_000_000n, 0n))
    assert.deepEqual(advance(ZERO_FEE_STATE, 10n ** 15n, true), s(10_000_000n, 0n))
  })

  it('advances by whole seconds under Fortuna', () => {
    assert.deepEqual(advance(s(0n, 3_000_000n), 2n, false), s(4_000_000n, 1_000_000n))
    assert.deepEqual(advance(s(0n, 3_000_000n), 0n, false), s(0n, 3_000_000n))
    assert.throws(() => advance(ZERO_FEE_STATE, -1n, true), /negative/)
  })

  it('consumes gas from capacity into excess, with the reference error', () => {
    assert.deepEqual(consume(s(10_000_000n, 5n), 21_000n), s(9_979_000n, 21_005n))
    assert.deepEqual(consume(s(100n, 0n), 60n, 40n), s(0n, 100n))
    assert.throws(() => consume(s(100n, 0n), 101n), { message: 'insufficient capacity: capacity (100) < gas (101)' })
    assert.throws(() => consume(s(100n, 0n), 60n, 41n), { message: 'insufficient capacity: capacity (40) < gas (41)' })
    assert.deepEqual(consume(s(10n, U64_MAX - 1n), 5n), s(5n, U64_MAX), 'excess saturates')
  })

  it('moves targetExcess by at most Q, keeps the price and caps capacity', () => {
    const start = s(10_000_000n, 50_000_000n, 0n)
    const up = moveTarget(start, 10n ** 9n)
    assert.equal(up.targetExcess, MAX_TARGET_EXCESS_DIFF)
    assert.equal(up.capacity, 10_000_000n)
    assert.equal(up.excess, (50_000_000n * target(up)) / 1_000_000n)
    assert.equal(price(up), price(start))
    const down = moveTarget(s(U64_MAX, 0n, 2n * TARGET_CONVERSION), 0n)
    assert.equal(down.targetExcess, 2n * TARGET_CONVERSION - MAX_TARGET_EXCESS_DIFF)
    assert.equal(down.capacity, maxCapacity(down), 'capacity capped at the new C')
    assert.equal(moveTarget(start, 5n).targetExcess, 5n)
    assert.equal(moveTarget(start), start)
  })

  it('finds the target excess of a desired target', () => {
    assert.equal(desiredTargetExcess(1_000_000n), 0n)
    assert.equal(desiredTargetExcess(1n), 0n)
    for (const want of [2_000_000n, 15_000_000n, 123_456_789n]) {
      const x = desiredTargetExcess(want)
      assert.ok(target(s(0n, 0n, x)) >= want)
      assert.ok(target(s(0n, 0n, x - 1n)) < want)
    }
  })
})
