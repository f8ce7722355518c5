/** geth's message reading (rpc/json.go) and Content-Type rule (rpc/http.go), without a server. */
import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isAcceptedContentType, parseMediaType } from '../../../../../src/api/ethrpc/media-type.js'
import {
  isCall,
  isIgnored,
  isNotification,
  isResponse,
  type RpcMessage,
  readMessages,
} from '../../../../../src/api/ethrpc/message.js'
import { newSubscriptionId } from '../../../../../src/api/ethrpc/subscriptions.js'

function read(text: string): RpcMessage[] {
  const outcome = readMessages(Buffer.from(text))
  assert.equal(outcome.kind, 'messages', text)
  return outcome.kind === 'messages' ? outcome.messages : []
}
const one = (text: string): RpcMessage => read(text)[0]!

describe('readMessages', () => {
  it('reads a call with raw id and params, ignoring bytes after the value', () => {
    const m = one('{"jsonrpc":"2.0","id":12345678901234567890,"method":"eth_call","params":[{"a":1}, "latest"]} junk')
    assert.equal(m.id, '12345678901234567890')
    assert.equal(m.params, '[{"a":1}, "latest"]')
    assert.ok(isCall(m))
  })

  it('matches keys case-insensitively with Go folding; the last duplicate wins', () => {
    const m = one('{"JSONRPC":"2.0","Id":1,"ID":2,"ME\u017fTHOD":"x","Method":"eth_chainId"}')
    assert.equal(m.id, '2')
    assert.equal(m.method, 'eth_chainId')
    assert.ok(isCall(m))
    // escaped keys, mixed case, LONG S folding onto 'S'; a digit is not a letter
    const e = one('{"jsonrpc":"2.0","\\u0069d":7,"mEtHoD":"a","PARAM\u017f":[1],"meth0d":"b","\\u017ftop":1}')
    assert.equal(e.id, '7')
    assert.equal(e.method, 'a')
    assert.equal(e.params, '[1]')
  })

  it('keeps a string field when a later duplicate has another type', () => {
    const m = one('{"jsonrpc":"2.0","jsonrpc":1,"id":1,"method":"a"}')
    assert.equal(m.version, '2.0')
  })

  it('treats id null as a call and objects or arrays as invalid ids', () => {
    assert.ok(isCall(one('{"jsonrpc":"2.0","id":null,"method":"a"}')))
    assert.ok(!isCall(one('{"jsonrpc":"2.0","id":[],"method":"a"}')))
    assert.ok(!isCall(one('{"jsonrpc":"2.0","id":{},"method":"a"}')))
  })

  it('re-encodes the id as Go does (compact, HTML-escaped)', () => {
    assert.equal(one('{"id": "<a & b>" }').id, '"\\u003ca \\u0026 b\\u003e"')
  })

  it('tells notifications, responses and ignored messages apart', () => {
    assert.ok(isNotification(one('{"jsonrpc":"2.0","method":"eth_x"}')))
    assert.ok(isResponse(one('{"jsonrpc":"2.0","id":1,"result":null}')))
    assert.ok(!isResponse(one('{"jsonrpc":"2.0","id":1,"error":null}')))
    assert.ok(isResponse(one('{"jsonrpc":"2.0","id":1,"error":5}')))
    assert.ok(isIgnored(one('{"jsonrpc":"2.0","method":"eth_subscription","params":{}}')))
    assert.ok(!isIgnored(one('{"jsonrpc":"2.0","id":1,"method":"eth_subscription"}')))
  })

  it('reads batches element by element; non-objects are zero messages', () => {
    const msgs = read(' [ {"jsonrpc":"2.0","id":1,"method":"a"} , 55 , null,"x",[1]]')
    assert.equal(msgs.length, 5)
    assert.ok(isCall(msgs[0]!))
    for (const m of msgs.slice(1)) assert.deepEqual(m, one('{}'))
    assert.deepEqual(read('[ ]'), [])
  })

  it('reports EOF, a cut-off value and syntax errors with Go texts', () => {
    assert.deepEqual(readMessages(Buffer.from(' \n')), { kind: 'eof' })
    assert.deepEqual(readMessages(Buffer.from('{"id":1')), { kind: 'truncated' })
    assert.deepEqual(readMessages(Buffer.from("'f")), {
      kind: 'syntax',
      message: "invalid character '\\'' looking for beginning of value",
    })
    assert.deepEqual(readMessages(Buffer.from('[1,]')), {
      kind: 'syntax',
      message: "invalid character ']' looking for beginning of value",
    })
  })
})

describe('Content-Type (Go mime.ParseMediaType)', () => {
  it('accepts the three JSON types with any case and valid parameters', () => {
    for (const ct of [
      'application/json',
      'Application/JSON ; charset=utf-8',
      'application/json-rpc',
      'application/jsonrequest',
      'application/json;',
      'application/json; charset="utf-8"',
    ]) {
      assert.ok(isAcceptedContentType(ct), ct)
    }
  })

  it('rejects other types, bad syntax and duplicate parameters', () => {
    for (const ct of [
      undefined,
      '',
      'text/plain',
      'application/json/x',
      'application/json; charset',
      'application/json; a=1; A=2',
      'application/json; a="x',
      'application/json;;',
    ]) {
      assert.ok(!isAcceptedContentType(ct), String(ct))
    }
    assert.equal(parseMediaType('form-data'), 'form-data')
  })
})

describe('subscription ids', () => {
  it('are 0x quantities of at most 32 hex digits without leading zeros', () => {
    for (let i = 0; i < 50; i++) assert.match(newSubscriptionId(), /^0x(0|[1-9a-f][0-9a-f]{0,31})$/)
  })
})
