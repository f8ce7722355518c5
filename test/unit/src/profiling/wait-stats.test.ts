import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createKeyedWaitStats, createWaitRecorder, percentile } from '../../../../src/profiling/wait-stats.js'

describe('wait stats', () => {
  it('nearest-rank percentiles', () => {
    assert.equal(percentile([], 0.5), 0)
    assert.equal(percentile([7], 0.99), 7)
    assert.equal(percentile([1, 2, 3, 4], 0.5), 2)
    assert.equal(percentile([1, 2, 3, 4], 0.99), 4)
  })

  it('count, mean and max over all samples; percentiles over the recent window', () => {
    const all = createWaitRecorder(1000)
    const recent = createWaitRecorder(10)
    for (let i = 100; i >= 1; i--) {
      all.record(i)
      recent.record(i)
    }
    assert.deepEqual(all.summary(), { count: 100, meanMs: 50.5, p50Ms: 50, p99Ms: 99, maxMs: 100 })
    // the last ten samples were 10..1
    assert.deepEqual(recent.summary(), { count: 100, meanMs: 50.5, p50Ms: 5, p99Ms: 10, maxMs: 100 })
  })

  it('an empty recorder reports zeros; bad samples count as 0', () => {
    const r = createWaitRecorder()
    assert.deepEqual(r.summary(), { count: 0, meanMs: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 })
    r.record(Number.NaN)
    r.record(-3)
    r.record(0.0004)
    assert.deepEqual(r.summary(), { count: 3, meanMs: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 })
  })

  it('caps the number of keys; the rest share (other)', () => {
    const keyed = createKeyedWaitStats(2, 16)
    keyed.record('b', 1)
    keyed.record('a', 3)
    keyed.record('c', 5)
    keyed.record('d', 7)
    keyed.record('a', 5)
    const s = keyed.summaries()
    assert.deepEqual(Object.keys(s), ['(other)', 'a', 'b'])
    assert.deepEqual(s['(other)'], { count: 2, meanMs: 6, p50Ms: 5, p99Ms: 7, maxMs: 7 })
    assert.deepEqual(s['a'], { count: 2, meanMs: 4, p50Ms: 3, p99Ms: 5, maxMs: 5 })
  })

  it('a key named __proto__ is just a key', () => {
    const keyed = createKeyedWaitStats()
    keyed.record('__proto__', 2)
    const s = keyed.summaries()
    assert.ok(Object.hasOwn(s, '__proto__'))
    assert.equal(Object.getPrototypeOf(s), Object.prototype)
  })
})
