/**
 * The pure parts of the chain router: the app queue (TaskQueue), the Ancestors cut (fitAncestors), and the request
 * tracker's `observeLatency: false` (Get -> Put never feeds the adaptive timeout), on a simulated clock.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MAX_ANCESTORS } from '../../../../protocols/bootstrap/service.js'
import { MAX_MESSAGE_SIZE } from '../../../../protocols/codec/frame.js'
import { fitAncestors, TaskQueue } from '../../../../src/network/chain-inbound.js'
import { RequestTracker } from '../../../../src/network/request-tracker.js'
import { deferred } from '../../../helpers/deferred.js'
import { requestFailure } from '../../../helpers/until.js'

describe('fitAncestors', () => {
  it('keeps at most MAX_ANCESTORS containers and stays under one frame', () => {
    const many = Array.from({ length: MAX_ANCESTORS + 5 }, () => new Uint8Array(10))
    assert.equal(fitAncestors(many).length, MAX_ANCESTORS)
    const big = Array.from({ length: 5 }, () => new Uint8Array(600_000))
    const kept = fitAncestors(big)
    assert.equal(kept.length, 3)
    assert.ok(kept.reduce((n, c) => n + c.byteLength, 0) < MAX_MESSAGE_SIZE)
    assert.deepEqual(fitAncestors([]), [])
    assert.equal(fitAncestors([new Uint8Array(MAX_MESSAGE_SIZE)]).length, 0)
  })
})

describe('RequestTracker observeLatency: false', () => {
  it('neither a response nor a timeout of such a request feeds the adaptive timeout', async () => {
    let now = 1_000
    const timers = new Map<number, () => void>()
    let seq = 0
    const tracker = new RequestTracker({
      now: () => now,
      benchlist: () => undefined,
      weight: () => 0,
      timeout: { initialMs: 5_000, minMs: 100, maxMs: 10_000 },
      setTimer: (fn) => {
        timers.set(++seq, fn)
        return seq
      },
      clearTimer: (handle) => timers.delete(handle as number),
    })
    const req = { nodeId: 'n', chainId: 'c', op: 'Get', observeLatency: false }
    now += 10
    assert.equal(await tracker.request(req, async () => 'put'), 'put')
    assert.equal(tracker.averageLatencyMs, 5_000)
    const pending = tracker.request(req, () => new Promise<never>(() => {}))
    await Promise.resolve()
    assert.equal(timers.size, 1)
    for (const fire of timers.values()) fire()
    assert.equal((await requestFailure(pending)).reason, 'timeout')
    assert.equal(tracker.averageLatencyMs, 5_000)
    assert.equal(tracker.currentTimeoutMs, 5_000)
    const started = now
    await tracker.request({ ...req, op: 'PushQuery', observeLatency: true }, async () => {
      now = started + 10
      return 'chits'
    })
    assert.ok(tracker.averageLatencyMs < 5_000)
  })
})

describe('TaskQueue', () => {
  it('runs at most `limit` tasks at once, the rest in arrival order', async () => {
    const q = new TaskQueue(2)
    const gates = [deferred(), deferred(), deferred(), deferred()]
    const order: number[] = []
    const runs = gates.map((g, i) =>
      q.run(async () => {
        order.push(i)
        await g.promise
        return i
      }),
    )
    await new Promise((r) => setImmediate(r))
    assert.deepEqual(order, [0, 1])
    assert.equal(q.size, 4)
    gates[1]?.resolve()
    await runs[1]
    await new Promise((r) => setImmediate(r))
    assert.deepEqual(order, [0, 1, 2])
    for (const g of gates) g.resolve()
    assert.deepEqual(await Promise.all(runs), [0, 1, 2, 3])
    assert.equal(q.size, 0)
    await assert.rejects(
      q.run(() => Promise.reject(new Error('x'))),
      /x/,
    )
    assert.equal(q.size, 0, 'a failed task frees its slot')
  })
})
