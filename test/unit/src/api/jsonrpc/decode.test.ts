import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { decodeRequest, echoRequest } from '../../../../../src/api/jsonrpc/decode.js'
import { goFoldName } from '../../../../../src/rpc/go-fold.js'

const ok = (body: string) => {
  const r = decodeRequest(body)
  assert.ok(r.ok, `expected success for ${body}`)
  return r.request
}
const fail = (body: string) => {
  const r = decodeRequest(body)
  assert.ok(!r.ok, `expected a parse error for ${body}`)
  return r
}

describe('decodeRequest', () => {
  it('decodes the four members and keeps params and id raw', () => {
    assert.deepEqual(ok('{"jsonrpc":"2.0","method":"info.getNodeID","params":{"a": [1, 2]},"id":"x"}'), {
      jsonrpc: '2.0',
      method: 'info.getNodeID',
      params: '{"a": [1, 2]}',
      id: '"x"',
    })
  })

  it('matches keys case-insensitively with Go folding, ignores unknown keys, last duplicate wins', () => {
    const r = ok('{"JSONRPC":"1.0","Method":"a.b","other":5,"jsonRpc":"2.0","ID":3,"Id":4,"PARAMS":[]}')
    assert.deepEqual(r, { jsonrpc: '2.0', method: 'a.b', params: '[]', id: '4' })
    // KELVIN SIGN and LONG S fold onto k and s
    assert.equal(ok('{"paramſ":{"x":1}}').params, '{"x":1}')
    assert.equal(goFoldName('\u212aey'), 'KEY')
  })

  it('treats null as absent: strings keep their value, raw members are cleared', () => {
    const r = ok('{"jsonrpc":"2.0","jsonrpc":null,"id":1,"id":null,"params":null,"method":null}')
    assert.deepEqual(r, { jsonrpc: '2.0', method: '', params: undefined, id: undefined })
  })

  it('decodes escaped keys and values', () => {
    const r = ok('{"\\u006aSONRPC":"2\\u002e0","method":"a\\u002eb","id":1}')
    assert.equal(r.jsonrpc, '2.0')
    assert.equal(r.method, 'a.b')
  })

  it('echoes the id the way Go re-encodes a RawMessage: compacted, HTML-escaped, numbers verbatim', () => {
    assert.equal(ok('{"id": { "a" : [ 1 , 2.50 ] } }').id, '{"a":[1,2.50]}')
    assert.equal(ok('{"id":"<a & b>"}').id, '"\\u003ca \\u0026 b\\u003e"')
    assert.equal(ok('{"id":12345678901234567890}').id, '12345678901234567890')
    assert.equal(ok('{"id":1e2}').id, '1e2')
    assert.equal(ok('{"id":" spaced string "}').id, '" spaced string "')
  })

  it('ignores anything after the first value', () => {
    assert.equal(ok('{"jsonrpc":"2.0","id":1} trailing {garbage').id, '1')
  })

  it('a top-level null decodes to an empty request without error', () => {
    assert.deepEqual(ok(' null '), { jsonrpc: '', method: '', params: undefined, id: undefined })
  })

  it('reports Go unmarshal errors for non-object tops', () => {
    const type = (body: string) => fail(body).message
    assert.equal(type('[{"jsonrpc":"2.0"}]'), 'json: cannot unmarshal array into Go value of type json2.serverRequest')
    assert.equal(type('5'), 'json: cannot unmarshal number into Go value of type json2.serverRequest')
    assert.equal(type('"x"'), 'json: cannot unmarshal string into Go value of type json2.serverRequest')
    assert.equal(type('true'), 'json: cannot unmarshal bool into Go value of type json2.serverRequest')
  })

  it('reports the first mistyped jsonrpc/method but keeps decoding the rest', () => {
    const r = fail('{"method":5,"jsonrpc":true,"id":7,"params":{"x":1}}')
    assert.equal(r.message, 'json: cannot unmarshal number into Go struct field serverRequest.method of type string')
    assert.deepEqual(r.request, { jsonrpc: '', method: '', params: '{"x":1}', id: '7' })
    assert.equal(
      fail('{"jsonrpc":["2.0"]}').message,
      'json: cannot unmarshal array into Go struct field serverRequest.jsonrpc of type string',
    )
    assert.equal(
      fail('{"jsonrpc":{}}').message,
      'json: cannot unmarshal object into Go struct field serverRequest.jsonrpc of type string',
    )
  })

  it('reports syntax errors with an empty request', () => {
    const r = fail('{"jsonrpc":"2.0","id":1')
    assert.equal(r.message, 'unexpected EOF')
    assert.deepEqual(r.request, { jsonrpc: '', method: '', params: undefined, id: undefined })
    assert.equal(fail('').message, 'EOF')
  })

  it('accepts a Buffer body', () => {
    assert.equal(decodeRequest(Buffer.from('{"method":"a.b"}')).request.method, 'a.b')
  })
})

describe('echoRequest', () => {
  it('marshals the request as Go does, params compacted', () => {
    const r = ok('{"jsonrpc":"1.0","method":"x<y","params":[ {"a" : 1} ],"id":2}')
    assert.equal(echoRequest(r), '{"jsonrpc":"1.0","method":"x\\u003cy","params":[{"a":1}],"id":2}')
    assert.equal(echoRequest(ok('{}')), '{"jsonrpc":"","method":"","params":null,"id":null}')
  })
})
