/**
 * The request-timeout and benchlist flags (reference/consensus.md 4.5-4.6, node-api.md 9): defaults, Go duration
 * syntax, and the ConfigErrors of their validation. Lives next to the network code it configures; the style is
 * test/unit/src/config/node-config.test.ts's.
 */
import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { loadNodeConfig } from '../../../../src/config/node-config.js'

const env = { HOME: '/home/u' }
const load = (argv: string[], e: NodeJS.ProcessEnv = env) => loadNodeConfig(argv, e)
const fails = (argv: string[], message: string, e: NodeJS.ProcessEnv = env) =>
  assert.throws(() => load(argv, e), { name: 'ConfigError', message })

describe('network timeout and benchlist flags', () => {
  it('use the reference defaults', () => {
    const c = load([])
    assert.deepEqual(c.networkTimeout, {
      initialMs: 5_000,
      minMs: 2_000,
      maxMs: 10_000,
      halflifeMs: 300_000,
      coefficient: 2,
    })
    assert.deepEqual(c.benchlist, {
      halflifeMs: 60_000,
      benchProbability: 0.5,
      unbenchProbability: 0.2,
      benchDurationMs: 300_000,
    })
    assert.ok(Object.isFrozen(c.networkTimeout) && Object.isFrozen(c.benchlist))
  })

  it('read Go durations and floats from flags and env vars', () => {
    const c = load(
      [
        '--network-initial-timeout=1500ms',
        '--network-minimum-timeout=1s',
        '--network-maximum-timeout=1m',
        '--network-timeout-halflife=2m30s',
        '--network-timeout-coefficient=1.5',
        '--benchlist-halflife=30s',
        '--benchlist-bench-probability=0.6',
        '--benchlist-unbench-probability=0.1',
      ],
      { ...env, FIRN_BENCHLIST_DURATION: '10s' },
    )
    assert.deepEqual(c.networkTimeout, {
      initialMs: 1_500,
      minMs: 1_000,
      maxMs: 60_000,
      halflifeMs: 150_000,
      coefficient: 1.5,
    })
    assert.deepEqual(c.benchlist, {
      halflifeMs: 30_000,
      benchProbability: 0.6,
      unbenchProbability: 0.1,
      benchDurationMs: 10_000,
    })
  })

  it('min <= initial <= max', () => {
    fails(['--network-minimum-timeout=0s'], '--network-minimum-timeout must be positive')
    fails(
      ['--network-minimum-timeout=5s', '--network-maximum-timeout=4s', '--network-initial-timeout=4s'],
      '--network-maximum-timeout must be at least --network-minimum-timeout',
    )
    fails(
      ['--network-initial-timeout=1s'],
      '--network-initial-timeout must be in the range [--network-minimum-timeout, --network-maximum-timeout]',
    )
    fails(
      ['--network-initial-timeout=11s'],
      '--network-initial-timeout must be in the range [--network-minimum-timeout, --network-maximum-timeout]',
    )
    assert.equal(load(['--network-initial-timeout=2s']).networkTimeout.initialMs, 2_000)
    assert.equal(load(['--network-initial-timeout=10s']).networkTimeout.initialMs, 10_000)
  })

  it('halflife > 0 and coefficient >= 1', () => {
    fails(['--network-timeout-halflife=0s'], '--network-timeout-halflife must be positive')
    fails(['--network-timeout-coefficient=0.9'], '--network-timeout-coefficient must be >= 1')
    assert.equal(load(['--network-timeout-coefficient=1']).networkTimeout.coefficient, 1)
  })

  it('probabilities in (0, 1), unbench < bench, positive halflife and duration', () => {
    fails(['--benchlist-bench-probability=1'], '--benchlist-bench-probability must be in the range (0, 1), got 1')
    fails(['--benchlist-unbench-probability=0'], '--benchlist-unbench-probability must be in the range (0, 1), got 0')
    fails(
      ['--benchlist-bench-probability=0.3', '--benchlist-unbench-probability=0.3'],
      '--benchlist-unbench-probability must be less than --benchlist-bench-probability',
    )
    fails(['--benchlist-halflife=0s'], '--benchlist-halflife must be positive')
    fails(['--benchlist-duration=0s'], '--benchlist-duration must be positive')
  })

  it('refuses a bad duration with the Go text', () =>
    assert.throws(() => load(['--benchlist-duration=soon']), /time: invalid duration "soon"/))
})
