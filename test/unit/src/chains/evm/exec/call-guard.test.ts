import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  type CallAborted,
  CallGuard,
  deadlineAfter,
  SliceLane,
} from '../../../../../../src/chains/evm/exec/call-guard.js'

const spin = (ms: number): void => {
  const end = performance.now() + ms
  while (performance.now() < end) {}
}

describe('CallGuard', () => {
  it('throws at the deadline and when the signal aborts', () => {
    assert.throws(
      () => new CallGuard({ deadline: performance.now() - 1 }).checkpoint(),
      (e: CallAborted) => e.reason === 'timeout',
    )
    const c = new AbortController()
    c.abort()
    assert.throws(
      () => new CallGuard({ deadline: deadlineAfter(0), signal: c.signal }).checkpoint(),
      (e: CallAborted) => e.reason === 'aborted',
    )
  })

  it('yields once a slice of work has passed, not before', async () => {
    const g = new CallGuard({ deadline: deadlineAfter(10_000) })
    assert.equal(g.checkpoint(), undefined)
    spin(6)
    const pause = g.checkpoint()
    assert.ok(pause instanceof Promise)
    await pause
    assert.equal(g.checkpoint(), undefined)
    assert.equal(g.yields, 1)
  })

  it('a lane resumes one waiting run per event-loop turn', async () => {
    const lane = new SliceLane()
    const order: string[] = []
    const a = lane.wait().then(() => order.push('a'))
    const b = lane.wait().then(() => order.push('b'))
    // an immediate queued now runs in the same turn as the first resume, before the second
    setImmediate(() => order.push('io'))
    await Promise.all([a, b])
    assert.deepEqual(order, ['a', 'io', 'b'])
    assert.equal(lane.waiting, 0)
  })
  it('a run begins at once on an idle lane, and behind the runs waiting on a busy one', async () => {
    const lane = new SliceLane()
    const order: string[] = []
    setImmediate(() => order.push('turn'))
    await new CallGuard({ deadline: deadlineAfter(10_000), lane }).begin()
    order.push('idle began')
    const waiter = lane.wait().then(() => order.push('waiter'))
    await new CallGuard({ deadline: deadlineAfter(10_000), lane }).begin()
    order.push('late began')
    await waiter
    assert.deepEqual(order, ['idle began', 'turn', 'waiter', 'late began'])
  })
})
