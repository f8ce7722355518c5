import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { base58Decode, base58Encode } from '../../../../src/identity/base58.js'
import { IdError } from '../../../../src/identity/errors.js'

describe('base58', () => {
  it('encodes leading zero bytes as 1 and round-trips', () => {
    assert.equal(base58Encode(new Uint8Array(0)), '')
    assert.equal(base58Encode(Uint8Array.of(0, 0, 1)), '112')
    assert.equal(base58Encode(Uint8Array.of(0x61)), '2g')
    assert.equal(base58Encode(new TextEncoder().encode('hello world')), 'StV1DL6CwTryKyV')
    assert.deepEqual(base58Decode('StV1DL6CwTryKyV'), new TextEncoder().encode('hello world'))
    assert.deepEqual(base58Decode('111'), new Uint8Array(3))
    for (let n = 1; n < 40; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) % 256)
      bytes[0] = n % 3 === 0 ? 0 : (bytes[0] ?? 0)
      assert.deepEqual(base58Decode(base58Encode(bytes)), bytes)
    }
  })

  it('rejects bad input with the texts of Go mr-tron/base58', () => {
    const cases: [string, string][] = [
      ['', 'zero length string'],
      ['0', "invalid base58 digit ('0')"],
      ['abcO', "invalid base58 digit ('O')"],
      ['Il', "invalid base58 digit ('I')"],
      ["a'", "invalid base58 digit ('\\'')"],
      ['a\\', "invalid base58 digit ('\\\\')"],
      ['a\n', "invalid base58 digit ('\\n')"],
      ['a\x00', "invalid base58 digit ('\\x00')"],
      ['a b', "invalid base58 digit (' ')"],
      ['aé', 'high-bit set on invalid digit'],
    ]
    for (const [input, message] of cases) {
      assert.throws(
        () => base58Decode(input),
        (err: unknown) => err instanceof IdError && err.message === message,
      )
    }
  })
})
