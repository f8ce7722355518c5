import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { tallyAcps } from '../../../../../src/api/info/acps.js'
import { rfc3339Local } from '../../../../../src/api/info/peers.js'
import { computeUptime } from '../../../../../src/api/info/uptime.js'

describe('computeUptime (the reference NodeUptime)', () => {
  it('a lone validator is 100 % up', () => {
    assert.deepEqual(computeUptime({ selfWeight: 100n, totalWeight: 100n, requirement: 0.8, peers: [] }), {
      rewardingStakePercentage: '100.0000',
      weightedAveragePercentage: '100.0000',
    })
  })

  it('weights observed uptimes by stake and divides by the total weight', () => {
    const r = computeUptime({
      selfWeight: 100n,
      totalWeight: 400n,
      requirement: 0.8,
      peers: [
        { weight: 100n, observedUptime: 90 },
        { weight: 100n, observedUptime: 50 },
        { weight: 0n, observedUptime: 100 },
      ],
    })
    // weighted = 100*100 + 90*100 + 50*100 = 24000 / 400 = 60; rewarding = 100 + 100 (90 >= 80) = 200 / 400
    assert.deepEqual(r, { rewardingStakePercentage: '50.0000', weightedAveragePercentage: '60.0000' })
  })

  it('a non-validator gets the reference error', () => {
    assert.throws(() => computeUptime({ selfWeight: 0n, totalWeight: 100n, requirement: 0.8, peers: [] }), {
      message: "couldn't get node uptime: node is not a validator",
    })
  })
})

describe('tallyAcps', () => {
  it('sums support and objection by weight; abstain is the rest', () => {
    const r = tallyAcps(
      [
        { nodeId: 'NodeID-B', weight: 30n, supported: [23, 103], objected: [] },
        { nodeId: 'NodeID-A', weight: 20n, supported: [23], objected: [103] },
        { nodeId: 'NodeID-Z', weight: 0n, supported: [23], objected: [] },
      ],
      100n,
    )
    assert.deepEqual(Object.keys(r.acps).sort(), ['103', '23'])
    assert.deepEqual(r.acps['23'], {
      supportWeight: '50',
      supporters: ['NodeID-A', 'NodeID-B'],
      objectWeight: '0',
      objectors: [],
      abstainWeight: '50',
    })
    assert.deepEqual(r.acps['103'], {
      supportWeight: '30',
      supporters: ['NodeID-B'],
      objectWeight: '20',
      objectors: ['NodeID-A'],
      abstainWeight: '50',
    })
  })
  it('no votes give an empty map', () => assert.deepEqual(tallyAcps([], 10n), { acps: {} }))
})

describe('rfc3339Local', () => {
  it('prints whole seconds with the local offset', () => {
    const s = rfc3339Local(new Date('2026-11-22T10:20:30.456Z'))
    assert.match(s, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/)
    assert.equal(Date.parse(s), Date.parse('2026-11-22T10:20:30Z'))
  })
})
