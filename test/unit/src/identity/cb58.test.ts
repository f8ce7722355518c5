import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  cb58Decode,
  cb58Encode,
  hexCDecode,
  hexCEncode,
  hexNC,
  hexNCDecode,
  IdError,
} from '../../../../src/identity/cb58.js'

const throwsIdError = (fn: () => unknown, message: string): void => {
  assert.throws(fn, (err: unknown) => err instanceof IdError && err.name === 'IdError' && err.message === message)
}

describe('cb58', () => {
  it('matches the reference vectors (utils/cb58/cb58_test.go)', () => {
    const id = Uint8Array.from({ length: 32 }, (_, i) => i + 1)
    const vectors: [Uint8Array, string][] = [
      [new Uint8Array(0), '45PJLL'],
      [Uint8Array.of(0), '1c7hwa'],
      [Uint8Array.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 255), '1NVSVezva3bAtJesnUj'],
      [id, 'SkB92YpWm4Q2ijQHH34cqbKkCZWszsiQgHVjtNeFF2HdvDQU'],
    ]
    for (const [bytes, text] of vectors) {
      assert.equal(cb58Encode(bytes), text)
      assert.deepEqual(cb58Decode(text), bytes)
    }
  })

  it('throws the reference error texts', () => {
    throwsIdError(() => cb58Decode(''), 'base58 decoding error: zero length string')
    throwsIdError(() => cb58Decode('45PJ0L'), "base58 decoding error: invalid base58 digit ('0')")
    throwsIdError(() => cb58Decode('1'), 'input string is smaller than the checksum size')
    throwsIdError(() => cb58Decode('zzz'), 'input string is smaller than the checksum size')
    throwsIdError(() => cb58Decode('45PJLM'), 'invalid input checksum')
    throwsIdError(() => cb58Decode('1NVSVezva3bAtJesnUk'), 'invalid input checksum')
  })
})

describe('hex encodings', () => {
  it('HexNC is 0x + lower-case hex and needs the prefix to decode', () => {
    assert.equal(hexNC(Uint8Array.of(0xab, 0x01, 0xff)), '0xab01ff')
    assert.equal(hexNC(new Uint8Array(0)), '0x')
    assert.deepEqual(hexNCDecode('0xab01FF'), Uint8Array.of(0xab, 0x01, 0xff))
    assert.deepEqual(hexNCDecode('0x'), new Uint8Array(0))
    assert.deepEqual(hexNCDecode(''), new Uint8Array(0))
    throwsIdError(() => hexNCDecode('ab01'), 'missing 0x prefix to hex encoding')
    throwsIdError(() => hexNCDecode('0Xab'), 'missing 0x prefix to hex encoding')
  })

  it('reports bad hex as Go encoding/hex does', () => {
    throwsIdError(() => hexNCDecode('0xzz'), "encoding/hex: invalid byte: U+007A 'z'")
    throwsIdError(() => hexNCDecode('0xab0g'), "encoding/hex: invalid byte: U+0067 'g'")
    throwsIdError(() => hexNCDecode('0xabc'), 'encoding/hex: odd length hex string')
    throwsIdError(() => hexNCDecode('0xabg'), "encoding/hex: invalid byte: U+0067 'g'")
    throwsIdError(() => hexNCDecode('0xa\n'), 'encoding/hex: invalid byte: U+000A')
    throwsIdError(() => hexNCDecode('0xabcé'), "encoding/hex: invalid byte: U+00C3 'Ã'")
  })

  it('checksummed Hex appends the last 4 bytes of SHA-256', () => {
    // SHA-256("") ends in 7852b855, which is also what CB58 "45PJLL" holds
    assert.equal(hexCEncode(new Uint8Array(0)), '0x7852b855')
    const bytes = Uint8Array.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 255)
    assert.deepEqual(hexCDecode(hexCEncode(bytes)), bytes)
    assert.deepEqual(hexCDecode(''), new Uint8Array(0))
    throwsIdError(() => hexCDecode('7852b855'), 'missing 0x prefix to hex encoding')
    throwsIdError(() => hexCDecode('0x00'), 'input string is smaller than the checksum size')
    throwsIdError(() => hexCDecode('0x7852b856'), 'invalid input checksum')
  })
})
