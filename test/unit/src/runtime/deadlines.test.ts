import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { Deadlines } from '../../../../src/runtime/deadlines.js'

interface Thing {
  name: string
}
const response = (name: string): Thing => ({ name })

describe('Deadlines', () => {
  it('expires a request unanswered at its deadline, not one answered before, and stops its timer when idle', async () => {
    const expired: unknown[] = []
    const d = new Deadlines<Thing>(50, (res) => expired.push(res))
    const slow = response('slow')
    const quick = response('quick')
    d.add(slow)
    d.add(quick)
    d.delete(quick)
    await sleep(30)
    assert.deepEqual(expired, [], 'not before the deadline')
    await sleep(60)
    assert.deepEqual(expired, [slow])
    assert.equal(d.size, 0)
    await sleep(20)
    // an idle sweep stopped the timer; a new request starts it again
    const late = response('late')
    d.add(late)
    await sleep(90)
    assert.deepEqual(expired, [slow, late])
    d.close()
  })
})
