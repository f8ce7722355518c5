import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseDuration } from '../../../../src/config/values.js'

describe('parseDuration', () => {
  it('reads Go durations as milliseconds', () => {
    assert.equal(parseDuration('0'), 0)
    assert.equal(parseDuration('30s'), 30_000)
    assert.equal(parseDuration('1m30s'), 90_000)
    assert.equal(parseDuration('22.5s'), 22_500)
    assert.equal(parseDuration('500ms'), 500)
    assert.equal(parseDuration('1h'), 3_600_000)
  })
  it('refuses junk with the Go text', () => {
    assert.throws(() => parseDuration('10'), { message: 'time: invalid duration "10"' })
    assert.throws(() => parseDuration('5 s'), { message: 'time: invalid duration "5 s"' })
  })
})
