import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  adaptiveTimeoutCreate,
  averageLatencyMs,
  currentTimeoutMs,
  DEFAULT_ADAPTIVE_TIMEOUT,
  observeLatency,
  observeTimeout,
} from '../../../../actors/peers/adaptive-timeout.js'

/** deterministic PRNG (mulberry32) */
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

describe('adaptive timeout', () => {
  it("has the reference's defaults and starts at the initial timeout", () => {
    assert.deepEqual(
      { ...DEFAULT_ADAPTIVE_TIMEOUT },
      { initialMs: 5_000, minMs: 2_000, maxMs: 10_000, halflifeMs: 300_000, coefficient: 2 },
    )
    const s = adaptiveTimeoutCreate(0)
    assert.equal(currentTimeoutMs(s), 5_000)
    assert.equal(averageLatencyMs(s), 5_000)
  })

  it('is coefficient x EWMA(latency), the EWMA seeded with the initial timeout', () => {
    const s = observeLatency(adaptiveTimeoutCreate(0), 100, 0)
    assert.equal(averageLatencyMs(s), 2_550)
    assert.equal(currentTimeoutMs(s), 5_100)
  })

  it('fast responses bring it down to the minimum, never below', () => {
    let s = adaptiveTimeoutCreate(0)
    for (let t = 1; t <= 200; t++) s = observeLatency(s, 5, t * 1_000)
    assert.equal(currentTimeoutMs(s), 2_000)
  })

  it('timeouts count as the full timeout and push it up to the maximum, never above', () => {
    let s = adaptiveTimeoutCreate(0)
    s = observeTimeout(s, 0)
    // (5000 + 5000) / 2 * 2
    assert.equal(currentTimeoutMs(s), 10_000)
    for (let t = 1; t <= 50; t++) s = observeTimeout(s, t * 1_000)
    assert.equal(currentTimeoutMs(s), 10_000)
    // a request sent with an older, shorter timeout observes that one
    const t = observeTimeout(adaptiveTimeoutCreate(0), 0, 3_000)
    assert.equal(currentTimeoutMs(t), 8_000)
  })

  it('old latencies fade with the halflife', () => {
    let s = adaptiveTimeoutCreate(0)
    s = observeLatency(s, 1_500, 5 * 300_000)
    // prior weight 2^-5: (1500 + 5000/32) / (1 + 1/32)
    assert.equal(currentTimeoutMs(s), Math.floor((2 * (1_500 + 5_000 / 32)) / (1 + 1 / 32)))
  })

  it('stays within [2 s, 10 s] over random responses and timeouts', () => {
    const r = rng(42)
    let s = adaptiveTimeoutCreate(0)
    let now = 0
    const seen = new Set<number>()
    for (let i = 0; i < 5_000; i++) {
      now += Math.floor(r() * 20_000)
      // phases of fast, slow and failing peers
      const phase = Math.floor(i / 500) % 3
      const latency = Math.floor(r() * [1_000, 8_000, 30_000][phase]!)
      s = r() < 0.05 * phase ? observeTimeout(s, now) : observeLatency(s, latency, now)
      const t = currentTimeoutMs(s)
      assert.ok(t >= 2_000 && t <= 10_000, `timeout ${t}`)
      assert.ok(Number.isInteger(t))
      seen.add(t)
    }
    assert.ok(seen.size > 100, `distinct timeouts ${seen.size}`)
    assert.ok(seen.has(2_000) && seen.has(10_000), 'reaches both bounds')
    assert.deepEqual(JSON.parse(JSON.stringify(s)), s)
  })
})
