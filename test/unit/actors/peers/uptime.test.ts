import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  calcUptime,
  decodeUptimeRecord,
  deserializeUptime,
  encodeUptimeRecord,
  pingUptime,
  serializeUptime,
  type UptimeEvent,
  type UptimeState,
  uptimeCreate,
  uptimePercent,
  uptimeReducer,
  weightedUptime,
} from '../../../../actors/peers/uptime.js'

const SELF = 'NodeID-self'
const A = 'NodeID-A'
const B = 'NodeID-B'

/** Runs events; returns the state and every NodeID persisted, in order. */
function run(s0: UptimeState, events: UptimeEvent[]): [UptimeState, string[]] {
  let s = s0
  const persisted: string[] = []
  for (const e of events) {
    const r = uptimeReducer(s, e)
    s = r.state
    persisted.push(...r.persisted)
  }
  return [s, persisted]
}

/** A and B validators since t = 0, self too; not tracking yet; now = 0. */
const base = (): UptimeState =>
  run(uptimeCreate({ selfNodeId: SELF, nowMs: 0 }), [
    { type: 'addValidator', nodeId: SELF, startTimeMs: 0 },
    { type: 'addValidator', nodeId: A, startTimeMs: 0 },
    { type: 'addValidator', nodeId: B, startTimeMs: 0 },
  ])[0]

describe('uptime', () => {
  it('a new validator has nothing up, counted from its start', () => {
    const [s, persisted] = run(uptimeCreate({ selfNodeId: SELF, nowMs: 0 }), [
      { type: 'addValidator', nodeId: A, startTimeMs: 500 },
    ])
    assert.deepEqual(s.records[A], { upDurationMs: 0, lastUpdatedMs: 500, startTimeMs: 500 })
    assert.deepEqual(persisted, [A])
    assert.equal(calcUptime(s, 'unknown', 1_000), null)
    assert.equal(uptimePercent(s, 'unknown', 1_000), null)
    assert.equal(pingUptime(s, 'unknown', 1_000), 0)
  })

  it('not tracking: time is credited as up (our own downtime does not count)', () => {
    const s = base()
    assert.deepEqual(calcUptime(s, A, 100_000), { upDurationMs: 100_000, lastUpdatedMs: 100_000 })
    assert.equal(uptimePercent(s, A, 100_000), 1)
  })

  it('the period span 0 is 100 %', () => {
    assert.equal(uptimePercent(base(), A, 0), 1)
  })

  it('tracking and disconnected: nothing is added', () => {
    const [s, persisted] = run(base(), [{ type: 'startTracking', now: 100_000 }])
    // start persists every record (credited up to now); self included
    assert.deepEqual(persisted, [A, B, SELF].sort())
    assert.deepEqual(s.records[A], { upDurationMs: 100_000, lastUpdatedMs: 100_000, startTimeMs: 0 })
    assert.deepEqual(calcUptime(s, A, 200_000), { upDurationMs: 100_000, lastUpdatedMs: 200_000 })
    assert.equal(uptimePercent(s, A, 200_000), 0.5)
    assert.equal(pingUptime(s, A, 200_000), 50)
  })

  it('tracking and connected: up since max(connectedAt, lastUpdated)', () => {
    // connected after tracking started
    const [s1] = run(base(), [
      { type: 'startTracking', now: 100_000 },
      { type: 'connect', nodeId: A, now: 150_000 },
    ])
    assert.deepEqual(calcUptime(s1, A, 200_000), { upDurationMs: 150_000, lastUpdatedMs: 200_000 })
    // connected before tracking started: counts from lastUpdated
    const [s2] = run(base(), [
      { type: 'connect', nodeId: A, now: 50_000 },
      { type: 'startTracking', now: 100_000 },
    ])
    assert.deepEqual(calcUptime(s2, A, 200_000), { upDurationMs: 200_000, lastUpdatedMs: 200_000 })
    assert.equal(uptimePercent(s2, A, 200_000), 1)
    assert.equal(pingUptime(s2, A, 200_000), 100)
  })

  it('a clock that went backwards changes nothing', () => {
    const [s] = run(base(), [
      { type: 'startTracking', now: 100_000 },
      { type: 'connect', nodeId: A, now: 100_000 },
    ])
    assert.deepEqual(calcUptime(s, A, 90_000), { upDurationMs: 100_000, lastUpdatedMs: 100_000 })
    // percent uses calc's time, as the reference does
    assert.equal(uptimePercent(s, A, 90_000), 1)
    const [s2, persisted] = run(s, [{ type: 'disconnect', nodeId: A, now: 90_000 }])
    assert.deepEqual(persisted, [A])
    assert.deepEqual(s2.records[A], s.records[A])
  })

  it('disconnect persists calc while tracking, and only forgets the connection otherwise', () => {
    const [s1, p1] = run(base(), [
      { type: 'startTracking', now: 100_000 },
      { type: 'connect', nodeId: A, now: 120_000 },
      { type: 'disconnect', nodeId: A, now: 160_000 },
    ])
    assert.deepEqual(s1.records[A], { upDurationMs: 140_000, lastUpdatedMs: 160_000, startTimeMs: 0 })
    assert.equal(p1.at(-1), A)
    assert.equal(s1.connectedAt[A], undefined)
    // reconnect later: the gap is not counted
    const [s2] = run(s1, [{ type: 'connect', nodeId: A, now: 180_000 }])
    assert.deepEqual(calcUptime(s2, A, 200_000), { upDurationMs: 160_000, lastUpdatedMs: 200_000 })

    const [s3, p3] = run(base(), [
      { type: 'connect', nodeId: A, now: 10_000 },
      { type: 'disconnect', nodeId: A, now: 20_000 },
    ])
    assert.deepEqual(p3, [])
    assert.deepEqual(s3.records[A], base().records[A])
    assert.equal(s3.connectedAt[A], undefined)
  })

  it('the own node is always connected', () => {
    const [s, persisted] = run(base(), [
      { type: 'startTracking', now: 100_000 },
      { type: 'disconnect', nodeId: SELF, now: 150_000 },
    ])
    assert.ok(!persisted.slice(3).includes(SELF))
    assert.deepEqual(calcUptime(s, SELF, 200_000), { upDurationMs: 200_000, lastUpdatedMs: 200_000 })
  })

  it('stop tracking persists calc; a restart from the persisted state credits the downtime', () => {
    const [s1, p1] = run(base(), [
      { type: 'startTracking', now: 100_000 },
      { type: 'connect', nodeId: A, now: 100_000 },
      { type: 'stopTracking', now: 200_000 },
    ])
    assert.deepEqual(p1.slice(3), [A, B, SELF].sort())
    assert.deepEqual(s1.records[A], { upDurationMs: 200_000, lastUpdatedMs: 200_000, startTimeMs: 0 })
    assert.deepEqual(s1.records[B], { upDurationMs: 100_000, lastUpdatedMs: 200_000, startTimeMs: 0 })
    assert.equal(s1.tracking, false)

    // the process stops at 200 s and restarts at 500 s
    const text = serializeUptime(s1)
    const r = deserializeUptime(text, { selfNodeId: SELF, nowMs: 500_000 })
    assert.equal(r.tracking, false)
    assert.deepEqual(r.records, s1.records)
    assert.deepEqual(r.connectedAt, { [SELF]: 500_000 })
    // before tracking, the 300 s we were down are credited
    assert.deepEqual(calcUptime(r, B, 500_000), { upDurationMs: 400_000, lastUpdatedMs: 500_000 })
    const [r2, p2] = run(r, [
      { type: 'startTracking', now: 500_000 },
      { type: 'connect', nodeId: B, now: 550_000 },
    ])
    assert.deepEqual(p2, [A, B, SELF].sort())
    assert.deepEqual(r2.records[B], { upDurationMs: 400_000, lastUpdatedMs: 500_000, startTimeMs: 0 })
    assert.deepEqual(calcUptime(r2, B, 600_000), { upDurationMs: 450_000, lastUpdatedMs: 600_000 })
    assert.equal(uptimePercent(r2, B, 600_000), 0.75)
    assert.deepEqual(calcUptime(r2, A, 600_000), { upDurationMs: 500_000, lastUpdatedMs: 600_000 })
  })

  it('remove a validator forgets its record', () => {
    const [s, persisted] = run(base(), [{ type: 'removeValidator', nodeId: B }])
    assert.equal(s.records[B], undefined)
    assert.deepEqual(persisted, [B])
  })

  it('state is JSON-safe; persisted records round-trip and bad ones are refused', () => {
    const s = base()
    assert.deepEqual(JSON.parse(JSON.stringify(s)), s)
    const r = { upDurationMs: 1, lastUpdatedMs: 2, startTimeMs: 0 }
    assert.deepEqual(decodeUptimeRecord(encodeUptimeRecord(r)), r)
    assert.throws(() => decodeUptimeRecord('{"upDurationMs":-1,"lastUpdatedMs":2,"startTimeMs":0}'))
    assert.throws(() => decodeUptimeRecord('null'))
    assert.throws(() => decodeUptimeRecord('not json'))
    assert.throws(() => deserializeUptime('{"records":{}}', { selfNodeId: SELF, nowMs: 0 }))
    assert.throws(() =>
      deserializeUptime('{"version":1,"records":{"x":{"upDurationMs":"1"}}}', { selfNodeId: SELF, nowMs: 0 }),
    )
  })

  describe('weightedUptime (info.uptime)', () => {
    it('counts the own node as 100 % and divides by the total weight', () => {
      // self 100, peers 100 (95 %), 100 (50 %), 100 (weight 0 ignored), 200 disconnected
      const r = weightedUptime(
        [
          { weight: 100, percent: 95 },
          { weight: 100, percent: 50 },
          { weight: 0, percent: 100 },
        ],
        0.8,
        { selfWeight: 100, totalWeight: 500 },
      )
      assert.deepEqual(r, { rewardingStakePercentage: '40.0000', weightedAveragePercentage: '49.0000' })
    })

    it('the requirement is inclusive', () => {
      const r = weightedUptime([{ weight: 1, percent: 80 }], 0.8, { selfWeight: 1, totalWeight: 3 })
      assert.deepEqual(r, { rewardingStakePercentage: '66.6667', weightedAveragePercentage: '60.0000' })
    })

    it('a lone validator reports 100 %', () => {
      assert.deepEqual(weightedUptime([], 0.8, { selfWeight: 7, totalWeight: 7 }), {
        rewardingStakePercentage: '100.0000',
        weightedAveragePercentage: '100.0000',
      })
    })

    it('is null for a node that is not a validator', () => {
      assert.equal(weightedUptime([], 0.8, { selfWeight: 0, totalWeight: 7 }), null)
    })
  })
})
