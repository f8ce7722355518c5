/** jsonUnsafePath: what a JSON round trip would not give back is found, with its path. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { isJsonSafe, jsonUnsafePath } from '../../../../src/node/snapshot-check.js'

describe('jsonUnsafePath', () => {
  it('accepts plain data', () => {
    const plain = { a: [1, 'x', null, true, { b: Object.create(null) }], c: -0.5 }
    assert.equal(jsonUnsafePath(plain), null)
    assert.equal(isJsonSafe(plain), true)
  })

  it('names the first value a round trip would lose', () => {
    assert.equal(jsonUnsafePath({ a: new Map() }), 'context.a (Map)')
    assert.equal(jsonUnsafePath({ a: [1, new Uint8Array(2)] }), 'context.a[1] (Uint8Array)')
    assert.equal(jsonUnsafePath({ a: { b: 1n } }), 'context.a.b (bigint)')
    assert.equal(jsonUnsafePath({ f: () => 1 }), 'context.f (function)')
    assert.equal(jsonUnsafePath({ u: undefined }), 'context.u (undefined)')
    assert.equal(jsonUnsafePath({ n: Number.NaN }), 'context.n')
    class Engine {}
    assert.equal(jsonUnsafePath({ core: new Engine() }), 'context.core (Engine)')
    for (const bad of [{ a: new Map() }, { a: [1n] }, { u: undefined }, { n: Infinity }, { core: new Engine() }]) {
      assert.equal(isJsonSafe(bad), false, JSON.stringify(Object.keys(bad)))
    }
  })
})
