import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { goMethodName, resolveMethod } from '../../../../../src/api/jsonrpc/method-name.js'

const services = new Map([
  [
    'info',
    new Map([
      ['GetNodeID', 'getNodeID'],
      ['1foo', 'digit'],
    ]),
  ],
  ['admin', new Map([['DbGet', 'dbGet']])],
])
const resolve = (name: string) => resolveMethod(name, services)
const message = (name: string) => {
  const r = resolve(name)
  assert.ok(!r.ok, `expected an error for ${name}`)
  return r.message
}

describe('goMethodName', () => {
  it('upper-cases the first character after the first dot', () => {
    assert.deepEqual(goMethodName('info.getNodeID'), { ok: true, name: 'info.GetNodeID' })
    assert.deepEqual(goMethodName('admin.dbGet'), { ok: true, name: 'admin.DbGet' })
    assert.deepEqual(goMethodName('a.éte'), { ok: true, name: 'a.Éte' })
    assert.deepEqual(goMethodName('a.ßx'), { ok: true, name: 'a.ßx' })
    assert.deepEqual(goMethodName('nodot'), { ok: true, name: 'nodot' })
    assert.deepEqual(goMethodName('info.'), { ok: true, name: 'info.' })
  })

  it('rejects an upper-case first letter', () => {
    assert.deepEqual(goMethodName('info.GetNodeID'), {
      ok: false,
      message: 'method must start with a non-uppercase letter',
    })
    assert.equal(goMethodName('info.Éx').ok, false)
  })
})

describe('resolveMethod', () => {
  it('finds methods by their Go-style names', () => {
    assert.deepEqual(resolve('info.getNodeID'), { ok: true, name: 'info.GetNodeID', method: 'getNodeID' })
    assert.deepEqual(resolve('admin.dbGet'), { ok: true, name: 'admin.DbGet', method: 'dbGet' })
    assert.deepEqual(resolve('info.1foo'), { ok: true, name: 'info.1foo', method: 'digit' })
  })

  it('uses the reference texts, names shown after upper-casing', () => {
    assert.equal(message('info.GetNodeID'), 'method must start with a non-uppercase letter')
    assert.equal(message(''), 'rpc: service/method request ill-formed: ""')
    assert.equal(message('info'), 'rpc: service/method request ill-formed: "info"')
    assert.equal(message('info.getX.y'), 'rpc: service/method request ill-formed: "info.GetX.y"')
    assert.equal(message('x.y'), `rpc: can't find service "x.Y"`)
    assert.equal(message('Info.getNodeID'), `rpc: can't find service "Info.GetNodeID"`)
    assert.equal(message('info.foo'), `rpc: can't find method "info.Foo"`)
    assert.equal(message('info.'), `rpc: can't find method "info."`)
    assert.equal(message('.foo'), `rpc: can't find service ".Foo"`)
    assert.equal(message('info.a"b'), `rpc: can't find method "info.A\\"b"`)
  })

  it('never finds inherited object properties', () => {
    assert.equal(message('info.constructor'), `rpc: can't find method "info.Constructor"`)
    assert.equal(message('__proto__.x'), `rpc: can't find service "__proto__.X"`)
  })
})
