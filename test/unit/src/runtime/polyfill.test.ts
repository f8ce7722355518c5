import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { bytesToHex, bytesToUnprefixedHex, hexToBytes } from '@ethereumjs/util'

const codec = Uint8Array as unknown as {
  prototype: { toHex(this: Uint8Array): string }
  fromHex(hex: string): Uint8Array
}

describe('runtime polyfill: Uint8Array hex', () => {
  it('encodes and decodes as the standard says, a view into a larger buffer too', () => {
    const big = Uint8Array.from({ length: 40 }, (_, i) => (i * 53) & 0xff)
    const view = big.subarray(3, 35)
    assert.equal(codec.prototype.toHex.call(view), Buffer.from(view).toString('hex'))
    const back = codec.fromHex(codec.prototype.toHex.call(view))
    assert.deepEqual(back, Uint8Array.from(view))
    assert.equal(back.constructor, Uint8Array, 'a plain Uint8Array')
    assert.equal(back.buffer.byteLength, 32, 'on its own buffer')
    assert.deepEqual(codec.fromHex('ABcd'), Uint8Array.from([0xab, 0xcd]))
    assert.deepEqual(codec.fromHex(''), new Uint8Array(0))
  })

  it("refuses what noble refuses, with noble's texts", () => {
    assert.throws(() => codec.fromHex('abc'), {
      name: 'SyntaxError',
      message: 'hex string expected, got unpadded hex of length 3',
    })
    assert.throws(() => codec.fromHex('00zz11'), {
      name: 'SyntaxError',
      message: 'hex string expected, got non-hex character "zz" at index 2',
    })
    assert.throws(() => codec.fromHex('0a1ü'), {
      message: 'hex string expected, got non-hex character "1ü" at index 2',
    })
    // through ethereumjs and noble: noble's own RangeError, as without the polyfill (ethereumjs leaves the 0x of a
    // string that is not hex, so noble stops at it)
    assert.throws(() => hexToBytes('0x0g'), { name: 'RangeError', message: /non-hex character "0x" at index 0/ })
  })

  it("is what noble's and so ethereumjs' conversions use", () => {
    const toHex = codec.prototype.toHex
    let calls = 0
    codec.prototype.toHex = function (this: Uint8Array) {
      calls++
      return toHex.call(this)
    }
    try {
      assert.equal(bytesToHex(Uint8Array.from([1, 255])), '0x01ff')
      assert.equal(bytesToUnprefixedHex(Uint8Array.from([16])), '10')
    } finally {
      codec.prototype.toHex = toHex
    }
    assert.equal(calls, 2)
  })
})
