import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  ARGUMENT_ERROR,
  array,
  bool,
  custom,
  fields,
  float,
  noParams,
  normaliseParams,
  object,
  optional,
  str,
  uint32,
  uint64,
} from '../../../../src/rpc/params.js'
import { FirnError } from '../../../../src/runtime/errors.js'

const isArgumentError = (err: unknown): boolean => err instanceof FirnError && err.message === ARGUMENT_ERROR

describe('normaliseParams', () => {
  it('accepts the reference forms', () => {
    assert.equal(normaliseParams(undefined), undefined)
    assert.equal(normaliseParams(null), undefined)
    assert.equal(normaliseParams([]), undefined)
    assert.equal(normaliseParams([null]), undefined)
    assert.deepEqual(normaliseParams({ a: 1 }), { a: 1 })
    assert.deepEqual(normaliseParams([{ a: 1 }, 'ignored', 5]), { a: 1 })
  })

  it('rejects scalars and arrays of non-objects with the argument error', () => {
    for (const bad of [5, 'x', true, [5], ['x'], [[{}]]]) {
      assert.throws(() => normaliseParams(bad), isArgumentError, JSON.stringify(bad))
    }
  })
})

describe('fields', () => {
  const parse = fields({ chain: str, nodeIDs: optional(array(str)), verbose: bool })

  it('fills zeros for missing or null fields', () => {
    assert.deepEqual(parse(undefined), { chain: '', nodeIDs: undefined, verbose: false })
    assert.deepEqual(parse({ chain: null, nodeIDs: null }), { chain: '', nodeIDs: undefined, verbose: false })
  })

  it('matches keys case-insensitively, last match wins, unknown keys ignored', () => {
    assert.deepEqual(parse({ CHAIN: 'X', other: 1, Chain: 'C', nodeids: ['a', 'b'], VERBOSE: true }), {
      chain: 'C',
      nodeIDs: ['a', 'b'],
      verbose: true,
    })
    assert.deepEqual(parse({ nodeıds: ['x'] }).nodeIDs, undefined)
  })

  it('throws the argument error on any mistyped field', () => {
    for (const bad of [{ chain: 5 }, { nodeIDs: 'a' }, { nodeIDs: [1] }, { verbose: 'true' }]) {
      assert.throws(() => parse(bad), isArgumentError, JSON.stringify(bad))
    }
  })

  it('turns custom decoder failures into the argument error', () => {
    const nodeId = custom((v) => {
      if (typeof v !== 'string' || !v.startsWith('NodeID-')) throw new Error('bad id')
      return v
    }, '')
    const p = fields({ ids: optional(array(nodeId)) })
    assert.deepEqual(p({ ids: ['NodeID-1'] }), { ids: ['NodeID-1'] })
    assert.throws(() => p({ ids: ['nope'] }), isArgumentError)
  })

  it('decodes nested objects with the same rules', () => {
    const p = fields({ inner: object({ name: str }) })
    assert.deepEqual(p({ INNER: { NAME: 'n' } }), { inner: { name: 'n' } })
    assert.deepEqual(p({}), { inner: { name: '' } })
    assert.throws(() => p({ inner: [] }), isArgumentError)
  })

  it('noParams accepts anything normalised', () => {
    assert.equal(noParams(undefined), undefined)
    assert.equal(noParams({ x: 1 }), undefined)
  })
})

describe('number decoders', () => {
  it('uint64 takes decimal strings and exact non-negative integers', () => {
    assert.equal(uint64.decode('18446744073709551615'), 18446744073709551615n)
    assert.equal(uint64.decode('007'), 7n)
    assert.equal(uint64.decode(42), 42n)
    for (const bad of ['18446744073709551616', '-1', '1.0', '', ' 1', '+1', 1.5, -1, 2 ** 60, true, null]) {
      assert.throws(() => uint64.decode(bad), /param mismatch/, String(bad))
    }
    assert.equal(uint64.zero, 0n)
  })

  it('uint32 stops at 2^32-1', () => {
    assert.equal(uint32.decode('4294967295'), 4294967295)
    assert.throws(() => uint32.decode(4294967296))
  })

  it('float takes numbers and ParseFloat strings', () => {
    assert.equal(float.decode(1.5), 1.5)
    assert.equal(float.decode('100.25'), 100.25)
    assert.equal(float.decode('1e3'), 1000)
    assert.equal(float.decode('-Inf'), Number.NEGATIVE_INFINITY)
    assert.ok(Number.isNaN(float.decode('NaN')))
    assert.throws(() => float.decode('1.2.3'))
    assert.throws(() => float.decode(true))
  })
})
