/**
 * `--inspect-actors`: a real node relays its actor system on 127.0.0.1; a WebSocket client (what the browser page
 * does) sees the actors that exist and the events that move them.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import WebSocket from 'ws'
import { type FirnProcess, startFirn } from '../helpers/firn-process.js'

interface Seen {
  type: string
  sessionId?: string
  name?: string
  event?: { type?: string }
  snapshot?: { value?: unknown }
}

describe('--inspect-actors', () => {
  let node: FirnProcess
  let relay: string
  before(async () => {
    node = await startFirn({ args: ['--dev', '--db-type=memdb', '--inspect-actors', '--inspect-port=0'] })
    const m = /actor inspector: open this page.*url="(http:\/\/127\.0\.0\.1:\d+)"/.exec(node.output())
    assert.ok(m, node.output())
    relay = m[1]!
  })
  after(() => node?.cleanup())

  it('serves the page on loopback only', async () => {
    const page = await fetch(relay)
    assert.equal(page.status, 200)
    assert.match(await page.text(), /stately\.ai\/inspect/)
    assert.equal((await fetch(`${relay}/other`)).status, 404)
  })

  it('streams the actor tree and the events that move the profiler', async () => {
    const ws = new WebSocket(`${relay.replace('http', 'ws')}/events`)
    const seen: Seen[] = []
    let wake: (() => void) | undefined
    ws.on('message', (data) => {
      seen.push(JSON.parse(String(data)) as Seen)
      wake?.()
    })
    const waitFor = async (what: string, test: (e: Seen) => boolean) => {
      const deadline = Date.now() + 10_000
      while (!seen.some(test)) {
        assert.ok(Date.now() < deadline, `no ${what} in ${seen.length} events`)
        await new Promise<void>((r) => {
          wake = r
          setTimeout(r, 200)
        })
      }
    }
    try {
      await new Promise((r, j) => ws.once('open', r).once('error', j))
      // replayed: the actors registered before this page connected
      await waitFor('profiler actor', (e) => e.type === '@xstate.actor' && JSON.stringify(e).includes('profiler'))
      await waitFor('chain actor', (e) => e.type === '@xstate.actor' && JSON.stringify(e).includes('chain:C'))
      const r = await node.rpc('/ext/admin', 'admin.startCPUProfiler')
      assert.deepEqual(r.body.result, {})
      await waitFor('profiler.start event', (e) => e.type === '@xstate.event' && e.event?.type === 'profiler.start')
      await node.rpc('/ext/admin', 'admin.stopCPUProfiler')
      await waitFor('profiler.stop event', (e) => e.type === '@xstate.event' && e.event?.type === 'profiler.stop')
    } finally {
      ws.terminate()
    }
  })
})
