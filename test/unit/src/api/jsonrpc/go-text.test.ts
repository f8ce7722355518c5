import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { compactJson, goJson, goQuote, quoteChar } from '../../../../../src/api/jsonrpc/go-text.js'

describe('goQuote (%q)', () => {
  it('quotes like strconv.Quote', () => {
    assert.equal(goQuote('info.Foo'), '"info.Foo"')
    assert.equal(goQuote(''), '""')
    assert.equal(goQuote('a"b\\c'), '"a\\"b\\\\c"')
    assert.equal(goQuote('tab\there\nnl\u0000'), '"tab\\there\\nnl\\x00"')
    assert.equal(goQuote('é✓'), '"é✓"')
    assert.equal(goQuote('\u00a0\u200b'), '"\\u00a0\\u200b"')
    assert.equal(goQuote('\u{1F600}'), '"\u{1F600}"')
    assert.equal(goQuote('\u{E0001}'), '"\\U000e0001"')
  })
})

describe('quoteChar', () => {
  it('writes the scanner forms', () => {
    assert.equal(quoteChar(0x78), "'x'")
    assert.equal(quoteChar(0x27), "'\\''")
    assert.equal(quoteChar(0x22), `'"'`)
    assert.equal(quoteChar(0x09), "'\\t'")
    assert.equal(quoteChar(0x7f), "'\\x7f'")
    assert.equal(quoteChar(0xff), "'ÿ'")
  })
})

describe('goJson / compactJson', () => {
  it('escapes HTML-sensitive characters and line separators like encoding/json', () => {
    assert.equal(goJson({ a: '<b>&\u2028\u2029' }), '{"a":"\\u003cb\\u003e\\u0026\\u2028\\u2029"}')
    assert.equal(goJson(undefined), 'null')
    assert.equal(goJson({ x: 1 }), '{"x":1}')
  })

  it('compacts raw JSON outside strings only', () => {
    assert.equal(compactJson(' { "a b" : [ 1 , "c\\" d" ] } '), '{"a b":[1,"c\\" d"]}')
    assert.equal(compactJson('"<>"'), '"\\u003c\\u003e"')
    assert.equal(compactJson('1.50'), '1.50')
  })
})
