/**
 * The health checker (src/api/health/checker.ts): cached results with the reference's fields, failure counters
 * and the time of the first failure, tags (and application checks in every answer), monotonic readiness, the
 * deadline of a check that hangs, and the stall rule of a chain (chain-check.ts) and the network texts.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { chainCheck } from '../../../../../src/api/health/chain-check.js'
import { APPLICATION_TAG, HealthChecker } from '../../../../../src/api/health/checker.js'
import { minPercentConnectedHealthy, networkCheck } from '../../../../../src/api/health/node-checks.js'

describe('HealthChecker', () => {
  it('reports not yet run, then counts contiguous failures from their first time, and resets on success', async () => {
    let now = Date.parse('2026-11-27T00:00:00.000Z')
    let failing = true
    const checker = new HealthChecker({ now: () => now })
    checker.register('health', 'x', () => (failing ? { details: { n: 1 }, error: 'broken' } : { details: 'fine' }))
    assert.deepEqual(checker.results('health'), {
      checks: {
        x: {
          error: 'not yet run',
          timestamp: '0001-01-01T00:00:00Z',
          duration: 0,
          contiguousFailures: 0,
          timeOfFirstFailure: null,
        },
      },
      healthy: false,
    })
    await checker.runOnce()
    now += 1000
    await checker.runOnce()
    const r = checker.results('health').checks.x!
    assert.equal(r.error, 'broken')
    assert.deepEqual(r.message, { n: 1 })
    assert.equal(r.contiguousFailures, 2)
    assert.equal(r.timeOfFirstFailure, '2026-11-27T00:00:00.000Z')
    assert.equal(r.timestamp, '2026-11-27T00:00:01.000Z')
    assert.ok(Number.isInteger(r.duration) && r.duration > 0)
    failing = false
    await checker.runOnce()
    const ok = checker.results('health')
    assert.equal(ok.healthy, true)
    assert.deepEqual(
      { ...ok.checks.x, duration: 0 },
      {
        message: 'fine',
        timestamp: '2026-11-27T00:00:01.000Z',
        duration: 0,
        contiguousFailures: 0,
        timeOfFirstFailure: null,
      },
    )
  })

  it('selects by tag, always with application checks; an unknown tag gets only those', async () => {
    const checker = new HealthChecker()
    checker.register('health', 'app', () => ({ details: 1 }), [APPLICATION_TAG])
    checker.register('health', 'C', () => ({ details: 2 }), ['subnet-a'])
    checker.register('health', 'D', () => ({ details: 3, error: 'down' }), ['subnet-b'])
    await checker.runOnce()
    assert.deepEqual(Object.keys(checker.results('health').checks).sort(), ['C', 'D', 'app'])
    assert.equal(checker.results('health').healthy, false)
    const a = checker.results('health', ['subnet-a'])
    assert.deepEqual(Object.keys(a.checks).sort(), ['C', 'app'])
    assert.equal(a.healthy, true)
    assert.deepEqual(Object.keys(checker.results('health', ['nope']).checks), ['app'])
    assert.throws(() => checker.register('health', 'C', () => ({ details: 0 })), /duplicate check: "C"/)
    assert.throws(() => checker.register('health', 'E', () => ({ details: 0 }), ['all']), /restricted tag/)
  })

  it('keeps a readiness check passing once it passed; a thrown error or a hang is a failure', async () => {
    let ready = false
    const checker = new HealthChecker({ checkTimeoutMs: 50 })
    checker.register('readiness', 'boot', () => (ready ? { details: [] } : { details: ['s'], error: 'not yet' }))
    checker.register('liveness', 'throws', () => {
      throw new Error('exploded')
    })
    checker.register('liveness', 'hangs', () => new Promise(() => undefined))
    await checker.runOnce()
    assert.equal(checker.results('readiness').healthy, false)
    ready = true
    await checker.runOnce()
    ready = false
    await checker.runOnce()
    assert.equal(checker.results('readiness').healthy, true)
    const live = checker.results('liveness').checks
    assert.equal(live.throws?.error, 'exploded')
    assert.equal(live.hangs?.error, 'health check timed out after 50 ms')
    assert.equal(live.hangs?.contiguousFailures, 3)
  })
})

describe('chain and network checks', () => {
  const vm = (pending: boolean) => ({ health: async () => ({ ok: true }), hasPending: () => pending })
  const source = (o: { pending: boolean; processing: number; acceptedAt: number | null; now: number }) => ({
    snapshot: () => ({
      state: 'normalOp',
      error: null,
      lastAccepted: o.acceptedAt === null ? null : { height: 5, id: '0x05', at: o.acceptedAt },
    }),
    processing: () => o.processing,
    vm: () => vm(o.pending),
    maxTimeProcessingMs: 10_000,
    maxProcessing: 256,
    startedAt: 0,
    now: () => o.now,
  })

  it('turns a chain unhealthy only when work waits past the limit since its last accept', async () => {
    assert.equal(
      (await chainCheck(source({ pending: false, processing: 0, acceptedAt: 0, now: 60_000 }))).error,
      undefined,
    )
    assert.equal(
      (await chainCheck(source({ pending: true, processing: 0, acceptedAt: 55_000, now: 60_000 }))).error,
      undefined,
    )
    assert.equal(
      (await chainCheck(source({ pending: true, processing: 0, acceptedAt: 40_000, now: 60_000 }))).error,
      'no block accepted for 20s > 10s while work waits: transactions wait to be built',
    )
    assert.equal(
      (await chainCheck(source({ pending: false, processing: 2, acceptedAt: null, now: 12_500 }))).error,
      'no block accepted for 12.5s > 10s while work waits: 2 blocks processing',
    )
    const waiting = await chainCheck({
      ...source({ pending: false, processing: 0, acceptedAt: 0, now: 1 }),
      snapshot: () => ({ state: 'waitingForVm', error: null, lastAccepted: null }),
    })
    assert.equal(waiting.error, 'the chain is waiting for its VM')
  })

  it('words the network check as the reference', () => {
    const min = minPercentConnectedHealthy({ k: 20, alphaConfidence: 15 })
    assert.equal(min, 0.8)
    const five = ['A', 'B', 'C', 'D', 'E'].map((nodeId) => ({ nodeId, weight: 10n }))
    const lone = networkCheck({
      selfNodeId: 'A',
      validators: () => five,
      connectedPeers: () => ['B'],
      minConnectedPeers: 1,
      minPercentConnected: min,
    })
    assert.equal(
      lone.error,
      'network layer is unhealthy reason: not connected to enough stake: connected to 40.000000%; required at least 80.000000%',
    )
    assert.deepEqual(lone.details, {
      connectedPeers: 1,
      percentConnected: 0.4,
      disconnectedValidators: ['C', 'D', 'E'],
    })
    const dev = networkCheck({
      selfNodeId: 'A',
      validators: () => [five[0]!],
      connectedPeers: () => [],
      minConnectedPeers: 0,
      minPercentConnected: min,
    })
    assert.equal(dev.error, undefined)
    const none = networkCheck({
      selfNodeId: 'A',
      validators: () => [five[0]!],
      connectedPeers: () => [],
      minConnectedPeers: 1,
      minPercentConnected: min,
    })
    assert.equal(none.error, 'network layer is unhealthy reason: not connected to a minimum of 1 peer(s) only 0')
  })
})
