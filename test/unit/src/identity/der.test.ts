import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  bitString,
  bitStringValue,
  integer,
  integerValue,
  isValidOidContent,
  oid,
  readElement,
  readTagged,
  sequence,
  Tag,
  tlv,
  x509Time,
} from '../../../../src/identity/der.js'

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex')
const fromHex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'))

describe('der encoder', () => {
  it('writes minimal two-complement INTEGERs', () => {
    assert.equal(hex(integer(0)), '020100')
    assert.equal(hex(integer(127)), '02017f')
    assert.equal(hex(integer(128)), '02020080')
    assert.equal(hex(integer(65537)), '0203010001')
    assert.equal(hex(integer(-1)), '0201ff')
    assert.equal(hex(integer(-128)), '020180')
    assert.equal(hex(integer(-129)), '0202ff7f')
  })

  it('writes OIDs, long lengths, BIT STRINGs and times', () => {
    assert.equal(hex(oid('1.2.840.10045.2.1')), '06072a8648ce3d0201')
    assert.equal(hex(oid('2.5.29.15')), '0603551d0f')
    assert.equal(hex(tlv(Tag.OCTET_STRING, new Uint8Array(200))).slice(0, 6), '0481c8')
    assert.equal(hex(tlv(Tag.OCTET_STRING, new Uint8Array(300))).slice(0, 8), '0482012c')
    assert.equal(hex(bitString(Uint8Array.of(0x80), 7)), '03020780')
    assert.equal(hex(sequence()), '3000')
    const utc = x509Time(new Date(Date.UTC(1999, 11, 31)))
    assert.equal(hex(utc), `170d${Buffer.from('991231000000Z').toString('hex')}`)
    const generalized = x509Time(new Date(Date.UTC(2125, 0, 2, 3, 4, 5)))
    assert.equal(hex(generalized), `180f${Buffer.from('21250102030405Z').toString('hex')}`)
    assert.equal(x509Time(new Date(Date.UTC(2049, 11, 31)))[0], Tag.UTC_TIME)
    assert.equal(x509Time(new Date(Date.UTC(2050, 0, 1)))[0], Tag.GENERALIZED_TIME)
  })
})

describe('der reader', () => {
  it('reads elements and what follows them', () => {
    const element = readElement(fromHex('020105ff'))
    assert.ok(element)
    assert.equal(element.tag, Tag.INTEGER)
    assert.equal(hex(element.content), '05')
    assert.equal(hex(element.raw), '020105')
    assert.equal(hex(element.rest), 'ff')
    assert.equal(readTagged(fromHex('020105'), Tag.SEQUENCE), null)
    const long = tlv(Tag.OCTET_STRING, new Uint8Array(300))
    assert.equal(readElement(long)?.content.length, 300)
  })

  it('rejects what is not strict DER', () => {
    assert.equal(readElement(fromHex('02')), null) // truncated header
    assert.equal(readElement(fromHex('020301')), null) // truncated content
    assert.equal(readElement(fromHex('0281050102030405')), null) // long form for a short length
    assert.equal(readElement(fromHex('3080020100')), null) // indefinite length
    assert.equal(readElement(fromHex('1f0100')), null) // high tag number
  })

  it('parses INTEGER and BIT STRING contents like cryptobyte', () => {
    assert.equal(integerValue(fromHex('00ff')), 255n)
    assert.equal(integerValue(fromHex('ff')), -1n)
    assert.equal(integerValue(fromHex('')), null)
    assert.equal(integerValue(fromHex('0001')), null)
    assert.equal(integerValue(fromHex('ff80')), null)
    assert.equal(hex(bitStringValue(fromHex('00abcd')) ?? new Uint8Array()), 'abcd')
    assert.equal(hex(bitStringValue(fromHex('0480f0')) ?? new Uint8Array()), '080f')
    assert.equal(bitStringValue(fromHex('')), null)
    assert.equal(bitStringValue(fromHex('08ff')), null)
    assert.equal(bitStringValue(fromHex('0101')), null) // padding bits must be zero
    assert.ok(isValidOidContent(fromHex('2a8648ce3d0201')))
    assert.equal(isValidOidContent(fromHex('')), false)
    assert.equal(isValidOidContent(fromHex('2a86')), false)
    assert.equal(isValidOidContent(fromHex('2a8001')), false)
  })
})
