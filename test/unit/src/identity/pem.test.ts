import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { pemDecodeAll, pemEncode } from '../../../../src/identity/pem.js'

describe('pem', () => {
  it('writes 64-column blocks and reads them back', () => {
    const bytes = Uint8Array.from({ length: 100 }, (_, i) => i)
    const text = pemEncode('CERTIFICATE', bytes)
    const lines = text.trimEnd().split('\n')
    assert.equal(lines[0], '-----BEGIN CERTIFICATE-----')
    assert.equal(lines[1]?.length, 64)
    assert.equal(lines.at(-1), '-----END CERTIFICATE-----')
    assert.deepEqual(pemDecodeAll(text), [{ type: 'CERTIFICATE', bytes }])
  })

  it('skips surrounding text and malformed blocks, keeps order', () => {
    const a = pemEncode('EC PRIVATE KEY', Uint8Array.of(1, 2, 3))
    const b = pemEncode('CERTIFICATE', Uint8Array.of(4, 5))
    const broken = '-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n'
    const blocks = pemDecodeAll(`junk\n${a}between\r\n${broken}${b}trailer`)
    assert.deepEqual(
      blocks.map((x) => x.type),
      ['EC PRIVATE KEY', 'CERTIFICATE'],
    )
    assert.deepEqual(blocks[1]?.bytes, Uint8Array.of(4, 5))
    assert.deepEqual(pemDecodeAll('no pem here'), [])
  })
})
