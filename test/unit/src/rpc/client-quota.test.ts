import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { WsCpuLimiter } from '../../../../src/api/ethrpc/ws-cpu-limiter.js'
import { ClientQuota, ClientRateLimiter, clientKey } from '../../../../src/rpc/client-quota.js'

describe('clientKey', () => {
  it('an IPv4-mapped address is its IPv4 address', () => {
    assert.equal(clientKey('::ffff:127.0.0.2'), '127.0.0.2')
    assert.equal(clientKey('127.0.0.2'), '127.0.0.2')
    assert.equal(clientKey('::1'), '::1')
    assert.equal(clientKey(undefined), 'unknown')
  })
})

describe('ClientQuota', () => {
  it('says which cap is full and gives slots back', () => {
    const q = new ClientQuota(3, 2)
    assert.equal(q.take('a'), undefined)
    assert.equal(q.take('a'), undefined)
    assert.equal(q.take('a'), 'client')
    assert.equal(q.take('b'), undefined)
    assert.equal(q.take('c'), 'total')
    q.release('a')
    assert.equal(q.count('a'), 1)
    assert.equal(q.take('c'), undefined)
    assert.equal(q.total, 3)
    q.release('nobody')
    assert.equal(q.total, 3)
  })

  it('0 is no cap', () => {
    const q = new ClientQuota(0, 0)
    for (let i = 0; i < 1000; i++) assert.equal(q.take('a'), undefined)
  })
})

describe('ClientRateLimiter', () => {
  it('allows a burst, then the rate; says how long to wait', () => {
    let now = 0
    const r = new ClientRateLimiter(10, 10, () => now)
    for (let i = 0; i < 10; i++) assert.equal(r.take('a'), 0)
    assert.equal(r.take('a'), 100)
    assert.equal(r.take('b'), 0)
    now = 100
    assert.equal(r.take('a'), 0)
    assert.equal(r.take('a'), 100)
  })

  it('forgets refilled clients when the table is full; an untracked client is not limited', () => {
    let now = 0
    const r = new ClientRateLimiter(1, 1, () => now, 2)
    assert.equal(r.take('a'), 0)
    assert.equal(r.take('b'), 0)
    assert.equal(r.take('c'), 0)
    assert.equal(r.take('c'), 0)
    now = 5000
    assert.equal(r.take('d'), 0)
    assert.equal(r.take('d'), 1000)
  })
})

describe('WsCpuLimiter (coreth addLimiter)', () => {
  it('is absent when its settings make it trivial', () => {
    assert.equal(WsCpuLimiter.create(0, 1000, 100), undefined)
    assert.equal(WsCpuLimiter.create(100, 1000, 0), undefined)
    assert.equal(WsCpuLimiter.create(100, 50, 100), undefined)
  })

  it('waits for a whole deadline of CPU time; time used is taken out, at most the deadline', () => {
    let now = 0
    const l = WsCpuLimiter.create(500, 1000, 1000, () => now)!
    assert.equal(l.delay(), 0)
    l.consume(5000)
    assert.equal(l.delay(), 2000)
    now = 1000
    assert.equal(l.delay(), 1000)
    now = 2000
    assert.equal(l.delay(), 0)
    l.consume(200)
    assert.equal(l.delay(), 400)
  })
})
