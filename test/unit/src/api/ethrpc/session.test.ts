import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ABORTED, CallProc, type Session } from '../../../../../src/api/ethrpc/session.js'

const session = (timeoutMs = 0): Session => ({
  transport: 'http',
  write: () => {},
  subscriptions: undefined,
  remoteAddress: '127.0.0.1',
  connection: undefined,
  timeoutMs,
  procs: new Set(),
})

describe('CallProc', () => {
  it('cancels a pending value without an AbortSignal, and a signal asked for later starts aborted', async () => {
    const s = session()
    const proc = new CallProc(s, () => {})
    assert.ok(s.procs.has(proc))
    assert.equal(proc.until(7), 7, 'a plain value as it is')
    const pending = proc.until(new Promise(() => {}))
    for (const p of s.procs) p.abort(new Error('client disconnected'))
    assert.equal(await pending, ABORTED)
    assert.equal(await proc.until(Promise.resolve(1)), ABORTED, 'once cancelled, at once')
    assert.ok(proc.ctx.signal.aborted)
    assert.equal((proc.ctx.signal.reason as Error).message, 'client disconnected')
    proc.finish()
    assert.equal(s.procs.size, 0)
  })

  it('aborts a signal made before the cancellation, and passes values that settle first', async () => {
    const proc = new CallProc(session(), () => {})
    assert.equal(await proc.until(Promise.resolve('v')), 'v')
    await assert.rejects(Promise.resolve(proc.until(Promise.reject(new Error('boom')))), /boom/)
    const signal = proc.ctx.signal
    assert.equal(signal.aborted, false)
    proc.abort(new Error('first'))
    proc.abort(new Error('second'))
    assert.equal((signal.reason as Error).message, 'first')
  })

  it('times out: the deadline cancels it and tells the dispatcher once', async () => {
    let told = 0
    const proc = new CallProc(session(20), () => told++)
    assert.equal(await proc.until(new Promise(() => {})), ABORTED)
    assert.ok(proc.timedOut)
    assert.equal(told, 1)
    assert.equal(proc.ctx.signal.aborted, true)
  })
})
