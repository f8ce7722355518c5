import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ewmaCreate, ewmaDecay, ewmaObserve, ewmaValue } from '../../../../actors/peers/ewma.js'

const close = (a: number, b: number, eps = 1e-12) => assert.ok(Math.abs(a - b) < eps, `${a} != ${b}`)

describe('ewma', () => {
  it('starts at its prior', () => {
    assert.equal(ewmaValue(ewmaCreate(5_000, 0, 1_000)), 5_000)
    assert.equal(ewmaValue(ewmaCreate(0.3, 0, 1_000, 4)), 0.3)
  })

  it('observations at the same instant are a plain weighted mean with the prior', () => {
    let s = ewmaCreate(0, 1_000, 60_000)
    s = ewmaObserve(s, 1, 1_000)
    close(ewmaValue(s), 1 / 2)
    s = ewmaObserve(s, 1, 1_000)
    close(ewmaValue(s), 2 / 3)
  })

  it('halves the old weight after one halflife', () => {
    close(ewmaDecay(60_000, 60_000), 0.5)
    const s = ewmaObserve(ewmaCreate(0, 0, 60_000), 1, 60_000)
    // sum = 1 + 0.5 * 0, norm = 1 + 0.5 * 1
    close(s.sum, 1)
    close(s.norm, 1.5)
    close(ewmaValue(s), 2 / 3)
    assert.equal(s.lastMs, 60_000)
  })

  it('forgets the past after a long silence', () => {
    const s = ewmaObserve(ewmaCreate(0, 0, 60_000), 1, 60 * 60_000)
    assert.ok(ewmaValue(s) > 0.999)
  })

  it('a clock that went backwards does not decay nor move lastMs back', () => {
    const s = ewmaObserve(ewmaCreate(0, 10_000, 60_000), 1, 5_000)
    close(ewmaValue(s), 1 / 2)
    assert.equal(s.lastMs, 10_000)
  })

  it('is JSON-safe and rejects a non-positive halflife', () => {
    const s = ewmaObserve(ewmaCreate(2, 0, 1_000), 4, 500)
    assert.deepEqual(JSON.parse(JSON.stringify(s)), s)
    assert.throws(() => ewmaCreate(0, 0, 0), RangeError)
  })
})
