import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createActor } from 'xstate'
import { benchlistMachine } from '../../../../actors/peers/benchlist.machine.js'
import { type RequestFailedError, RequestTracker } from '../../../../src/network/request-tracker.js'

/** A simulated clock with timers. */
function simClock() {
  let now = 1_000_000
  let seq = 0
  const timers = new Map<number, { at: number; fn: () => void }>()
  return {
    now: () => now,
    setTimer: (fn: () => void, ms: number) => {
      const id = ++seq
      timers.set(id, { at: now + ms, fn })
      return id
    },
    clearTimer: (h: unknown) => {
      timers.delete(h as number)
    },
    /** move time forward, firing due timers in order */
    async advance(ms: number) {
      const end = now + ms
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0]
        if (due === undefined) break
        timers.delete(due[0])
        now = due[1].at
        due[1].fn()
        await new Promise((resolve) => setImmediate(resolve))
      }
      now = end
    },
  }
}

const WEIGHTS: Record<string, number> = { silent: 1, b: 100, c: 100, d: 100 }

function setup() {
  const clock = simClock()
  const bench = createActor(benchlistMachine, {
    input: { chainId: 'C', validators: Object.entries(WEIGHTS).map(([nodeId, weight]) => ({ nodeId, weight })) },
  }).start()
  const tracker = new RequestTracker({
    now: clock.now,
    benchlist: (chainId) => (chainId === 'C' ? bench : undefined),
    weight: (id) => WEIGHTS[id] ?? 0,
    setTimer: clock.setTimer,
    clearTimer: clock.clearTimer,
  })
  const never = (signal: AbortSignal) =>
    new Promise<string>((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))))
  return { clock, bench, tracker, never }
}

describe('RequestTracker', () => {
  it('answers pass through and pull the adaptive timeout toward coefficient x latency, not below the minimum', async () => {
    const { clock, tracker } = setup()
    assert.equal(tracker.currentTimeoutMs, 5_000)
    for (let i = 0; i < 50; i++) {
      const p = tracker.request({ nodeId: 'b', chainId: 'C', op: 'echo' }, async () => {
        await clock.advance(100)
        return 'pong'
      })
      assert.equal(await p, 'pong')
      await clock.advance(10_000)
    }
    assert.ok(tracker.currentTimeoutMs < 5_000)
    assert.ok(tracker.currentTimeoutMs >= 2_000)
  })

  it('a peer that stops answering is benched after two timeouts, then fails at once, and is unbenched after the bench duration', async () => {
    const { clock, tracker, never } = setup()
    for (let i = 0; i < 2; i++) {
      const p = tracker.request({ nodeId: 'silent', chainId: 'C', op: 'echo' }, never)
      const rejected = assert.rejects(p, (e: RequestFailedError) => e.reason === 'timeout')
      await clock.advance(tracker.currentTimeoutMs + 1)
      await rejected
    }
    assert.equal(tracker.isBenched('silent', 'C'), true)
    let sent = false
    await assert.rejects(
      tracker.request({ nodeId: 'silent', chainId: 'C', op: 'echo' }, async () => {
        sent = true
        return 'x'
      }),
      (e: RequestFailedError) => e.reason === 'benched',
    )
    assert.equal(sent, false)
    await clock.advance(5 * 60_000 + 1)
    assert.equal(tracker.isBenched('silent', 'C'), false)
  })

  it('equal big validators are never benched; app requests never count', async () => {
    const { clock, tracker, never } = setup()
    for (let i = 0; i < 5; i++) {
      const p = tracker.request({ nodeId: 'b', chainId: 'C', op: 'echo' }, never)
      const rejected = assert.rejects(p)
      await clock.advance(tracker.currentTimeoutMs + 1)
      await rejected
    }
    assert.equal(tracker.isBenched('b', 'C'), false, 'b holds a third of the stake: over the cap')
    for (let i = 0; i < 3; i++) {
      const p = tracker.request({ nodeId: 'silent', chainId: 'C', op: 'appRequest', app: true }, never)
      const rejected = assert.rejects(p)
      await clock.advance(tracker.currentTimeoutMs + 1)
      await rejected
    }
    assert.equal(tracker.isBenched('silent', 'C'), false)
  })

  it('a failed send is reported, not counted', async () => {
    const { tracker } = setup()
    for (let i = 0; i < 3; i++) {
      await assert.rejects(
        tracker.request({ nodeId: 'silent', chainId: 'C', op: 'echo' }, async () => {
          throw new Error('stream reset')
        }),
        (e: RequestFailedError) => e.reason === 'failed' && e.message === 'echo to silent failed: stream reset',
      )
    }
    assert.equal(tracker.isBenched('silent', 'C'), false)
  })
})
