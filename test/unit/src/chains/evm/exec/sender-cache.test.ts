import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { bytesToHex, bytesToUnprefixedHex } from '@ethereumjs/util'
import { keyOf, SenderCache } from '../../../../../../src/chains/evm/exec/sender-cache.js'
import { prefixedHex, unprefixedHex } from '../../../../../../src/runtime/hex.js'

const bytes = (...b: number[]) => Uint8Array.from(b)

describe('SenderCache keys', () => {
  it('are equal for equal recovery inputs, from different arrays', () => {
    const hash = new Uint8Array(32).fill(7)
    assert.equal(keyOf(hash, 27n, bytes(1, 2), bytes(3), 1n), keyOf(hash.slice(), 27n, bytes(1, 2), bytes(3), 1n))
  })

  it('differ when any input differs, also when bytes move between r and s or v and the chain id meet', () => {
    const hash = new Uint8Array(32).fill(7)
    const keys = [
      keyOf(hash, 27n, bytes(1, 2), bytes(3), 1n),
      keyOf(hash, 27n, bytes(1), bytes(2, 3), 1n),
      keyOf(hash, 28n, bytes(1, 2), bytes(3), 1n),
      keyOf(hash, 27n, bytes(1, 2), bytes(3), 2n),
      keyOf(hash, 27n, bytes(1, 2), bytes(3)),
      keyOf(hash, 2n, bytes(1, 2), bytes(3), 71n),
      keyOf(hash, 27n, bytes(1, 2), bytes(3), 11n),
      keyOf(new Uint8Array(32).fill(8), 27n, bytes(1, 2), bytes(3), 1n),
      keyOf(hash, 27n, bytes(1, 2, 0), bytes(3), 1n),
    ]
    assert.equal(new Set(keys).size, keys.length)
  })

  it('answer a put value without recovering', () => {
    const cache = new SenderCache(4)
    const args = [new Uint8Array(32).fill(1), 27n, bytes(5), bytes(6), 43112n] as const
    const key = new Uint8Array(64).fill(9)
    cache.put([...args], key)
    assert.equal(cache.has([...args]), true)
    assert.equal(cache.recover(...args), key)
  })
})

describe('runtime/hex', () => {
  it("matches ethereumjs' encoders, also for a view into a larger buffer", () => {
    const big = Uint8Array.from({ length: 64 }, (_, i) => (i * 37) & 0xff)
    for (const b of [new Uint8Array(0), big, big.subarray(5, 37)]) {
      assert.equal(unprefixedHex(b), bytesToUnprefixedHex(b))
      assert.equal(prefixedHex(b), bytesToHex(b))
    }
  })
})
