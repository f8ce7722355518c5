/**
 * The snow flags (reference/consensus.md 1.1, node-api.md 9): defaults, `--snow-quorum-size` setting both quorums,
 * the reference's validation texts as start-up errors, the frontier poll frequency, the app concurrency and
 * `--dev-speed`.
 */
import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DEFAULT_SNOW_PARAMS } from '../../../../actors/consensus/params.js'
import { loadNodeConfig } from '../../../../src/config/node-config.js'

const env = { HOME: '/home/u' }
const load = (argv: string[]) => loadNodeConfig(argv, env)
const fails = (argv: string[], message: string) => assert.throws(() => load(argv), { name: 'ConfigError', message })

describe('snow flags', () => {
  it('default to the reference parameters', () => {
    const c = load([])
    assert.deepEqual(c.snow, { ...DEFAULT_SNOW_PARAMS })
    assert.equal(c.frontierPollMs, 100)
    assert.equal(c.devSpeed, false)
  })

  it('read every flag, durations in Go syntax', () => {
    const c = load([
      '--snow-sample-size=30',
      '--snow-preference-quorum-size=18',
      '--snow-confidence-quorum-size=20',
      '--snow-commit-threshold=25',
      '--snow-concurrent-repolls=5',
      '--snow-optimal-processing=12',
      '--snow-max-processing=300',
      '--snow-max-time-processing=1m',
      '--consensus-frontier-poll-frequency=250ms',
    ])
    assert.deepEqual(c.snow, {
      k: 30,
      alphaPreference: 18,
      alphaConfidence: 20,
      beta: 25,
      concurrentRepolls: 5,
      optimalProcessing: 12,
      maxOutstandingItems: 300,
      maxItemProcessingTimeMs: 60_000,
    })
    assert.equal(c.frontierPollMs, 250)
  })

  it('--snow-quorum-size sets both quorums unless one is given itself', () => {
    const both = load(['--snow-quorum-size=17']).snow
    assert.equal(both.alphaPreference, 17)
    assert.equal(both.alphaConfidence, 17)
    const one = load(['--snow-quorum-size=12', '--snow-confidence-quorum-size=16']).snow
    assert.equal(one.alphaPreference, 12)
    assert.equal(one.alphaConfidence, 16)
  })

  it('refuse invalid parameters with the reference texts', () => {
    fails(
      ['--snow-sample-size=20', '--snow-quorum-size=10'],
      'parameters invalid: k = 20, alphaPreference = 10: fails the condition that: k/2 < alphaPreference',
    )
    fails(
      ['--snow-preference-quorum-size=16', '--snow-confidence-quorum-size=15'],
      'parameters invalid: alphaPreference = 16, alphaConfidence = 15: fails the condition that: alphaPreference <= alphaConfidence',
    )
    fails(
      ['--snow-concurrent-repolls=21'],
      'parameters invalid: concurrentRepolls = 21, beta = 20: fails the condition that: concurrentRepolls <= beta',
    )
    fails(
      ['--snow-concurrent-repolls=0'],
      'parameters invalid: concurrentRepolls = 0: fails the condition that: 0 < concurrentRepolls',
    )
    fails(
      ['--snow-optimal-processing=0'],
      'parameters invalid: optimalProcessing = 0: fails the condition that: 0 < optimalProcessing',
    )
  })

  it('--consensus-app-concurrency: 2 by default, at least 1', () => {
    assert.equal(load([]).appConcurrency, 2)
    assert.equal(load(['--consensus-app-concurrency=5']).appConcurrency, 5)
    fails(['--consensus-app-concurrency=0'], '--consensus-app-concurrency must be at least 1')
  })

  it('--dev-speed is for the local network only', () => {
    assert.equal(load(['--network-id=local', '--dev-speed']).devSpeed, true)
    fails(['--network-id=fuji', '--dev-speed'], '--dev-speed runs only on the local network')
  })
})
