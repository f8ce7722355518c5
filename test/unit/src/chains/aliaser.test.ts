import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Aliaser } from '../../../../src/chains/aliaser.js'

describe('Aliaser', () => {
  it('maps aliases to IDs, keeps insertion order and the primary alias', () => {
    const a = new Aliaser()
    a.alias('id1', 'X')
    a.alias('id1', 'avm')
    assert.equal(a.lookup('avm'), 'id1')
    assert.deepEqual(a.aliases('id1'), ['X', 'avm'])
    assert.equal(a.primaryAlias('id1'), 'X')
    assert.equal(a.aliases('nope'), undefined)
  })
  it('uses the reference error texts', () => {
    const a = new Aliaser()
    a.alias('id1', 'X')
    assert.throws(() => a.lookup('Q'), { message: 'there is no ID with alias: Q' })
    assert.throws(() => a.alias('id2', 'X'), { message: 'alias already mapped to an ID: X' })
    assert.throws(() => a.primaryAlias('id2'), { message: 'there is no alias for ID: id2' })
  })
})
