/**
 * The native-token API's byte encodings (the reference's formatting package): `hex`/`hexc` append a 4-byte
 * SHA-256 checksum, `hexnc` none; decoding gives the reference's texts for each way bytes can be malformed.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { decodeBytes, encodeBytes } from '../../../../../../src/chains/evm/api/atomic.js'

const bytes = Uint8Array.of(0, 1, 2, 0xfe, 0xff)

describe('native API encodings', () => {
  it('round-trips with and without the checksum', () => {
    for (const encoding of ['hex', 'hexc', 'hexnc']) {
      assert.deepEqual(decodeBytes(encodeBytes(bytes, encoding), encoding), bytes)
    }
    assert.equal(encodeBytes(bytes, 'hexnc'), '0x000102feff')
    // sha256(000102feff) ends in 4 bytes that hex appends
    assert.equal(encodeBytes(bytes, 'hex').length, 2 + 2 * (bytes.length + 4))
    assert.deepEqual(decodeBytes('', 'hex'), new Uint8Array(0))
  })

  it('refuses malformed text with the reference texts', () => {
    const good = encodeBytes(bytes, 'hex')
    const flipped = `${good.slice(0, -1)}${good.endsWith('0') ? '1' : '0'}`
    const cases: [string, string, string][] = [
      ['000102', 'hex', 'missing 0x prefix to hex encoding'],
      ['0x0001', 'hex', 'input string is smaller than the checksum size'],
      [flipped, 'hex', 'invalid input checksum'],
      ['0x123', 'hexnc', 'encoding/hex: odd length hex string'],
      ['0x12zz', 'hexnc', "encoding/hex: invalid byte: U+007A 'z'"],
      [good, 'json', 'unsupported encoding in method'],
    ]
    for (const [text, encoding, message] of cases) {
      assert.throws(() => decodeBytes(text, encoding), { message }, `${text} (${encoding})`)
    }
  })
})
