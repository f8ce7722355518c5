import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { fakeExponential, searchSmallest, U64_MAX } from '../../../../../../src/chains/evm/rules/fake-exp.js'

describe('fakeExponential', () => {
  it('is m at x = 0 and 0 for d = 0 or m = 0', () => {
    assert.equal(fakeExponential(1n, 0n, 1n << 20n), 1n)
    assert.equal(fakeExponential(1_000_000n, 0n, 33_554_432n), 1_000_000n)
    assert.equal(fakeExponential(5n, 10n, 0n), 0n)
    assert.equal(fakeExponential(0n, 10n, 3n), 0n)
  })

  it('follows the EIP-4844 integer Taylor sum', () => {
    // Values from the EIP-4844 reference test vectors.
    const vectors: [bigint, bigint, bigint, bigint][] = [
      [1n, 0n, 1n, 1n],
      [38493n, 0n, 1000n, 38493n],
      [0n, 1234n, 2345n, 0n],
      [1n, 2n, 1n, 6n],
      [1n, 4n, 2n, 6n],
      [1n, 3n, 1n, 16n],
      [1n, 6n, 2n, 18n],
      [1n, 4n, 1n, 49n],
      [1n, 8n, 2n, 50n],
      [10n, 8n, 2n, 542n],
      [11n, 8n, 2n, 596n],
      [1n, 5n, 1n, 136n],
      [1n, 5n, 2n, 11n],
      [2n, 5n, 2n, 23n],
      [1n, 50_000_000n, 2_225_652n, 5_709_098_764n],
    ]
    for (const [m, x, d, want] of vectors) assert.equal(fakeExponential(m, x, d), want, `F(${m}, ${x}, ${d})`)
  })

  it('approximates m × e^(x/d)', () => {
    const got = Number(fakeExponential(1_000_000n, 3n * 33_554_432n, 33_554_432n))
    assert.ok(Math.abs(got - 1_000_000 * Math.exp(3)) / got < 1e-5)
  })

  it('saturates at 2^64−1', () => {
    assert.equal(fakeExponential(1n, 1_000_000n, 1n), U64_MAX)
    assert.equal(fakeExponential(U64_MAX, 1n, 1n), U64_MAX)
    assert.equal(fakeExponential(1n, 46_516_320n, 1n << 20n), U64_MAX)
  })

  it('searchSmallest behaves like sort.Search', () => {
    assert.equal(
      searchSmallest(100n, (x) => x >= 42n),
      42n,
    )
    assert.equal(
      searchSmallest(100n, () => false),
      100n,
    )
    assert.equal(
      searchSmallest(100n, () => true),
      0n,
    )
  })
})
