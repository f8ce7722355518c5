/**
 * Issue 14, item 4: WebSocket connections, subscriptions and filters have caps in all and per client, and
 * coreth's `ws-cpu-refill-rate` / `ws-cpu-max-stored` budget works. A real `firn --dev` with small caps; each
 * client is a 127.x address of its own: the hog is refused with a clear error while other addresses are served.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type WebSocket from 'ws'
import { call, devNodeWithConfig, openWs, wsRpc } from '../helpers/clients.js'
import type { FirnProcess } from '../helpers/firn-process.js'

const CONFIG = {
  'ws-max-connections-per-ip': 3,
  'ws-max-subscriptions': 120,
  'ws-max-subscriptions-per-ip': 50,
  'max-filters': 60,
  'max-filters-per-ip': 20,
}

describe('per-client WebSocket, subscription and filter caps', () => {
  let node: FirnProcess
  let wsUrl = ''
  let rpcUrl = ''
  const sockets: WebSocket[] = []
  const open = async (from: string) => {
    const ws = await openWs(wsUrl, from)
    sockets.push(ws)
    return ws
  }

  before(async () => {
    node = await devNodeWithConfig(CONFIG)
    wsUrl = `${node.url.replace('http', 'ws')}/ext/bc/C/ws`
    rpcUrl = `${node.url}/ext/bc/C/rpc`
  })
  after(async () => {
    for (const ws of sockets) ws.terminate()
    await node?.cleanup()
  })

  it('WebSocket connections per IP: the fourth from one address gets 429, another address connects', async () => {
    for (let i = 0; i < 3; i++) await open('127.0.0.2')
    await assert.rejects(open('127.0.0.2'), (err: Error & { status?: number }) => {
      assert.equal(err.status, 429)
      assert.match(err.message, /too many WebSocket connections from 127\.0\.0\.2: the limit is 3 per IP address/)
      return true
    })
    await open('127.0.0.3')
  })

  it('subscriptions: one address is capped at 50 over its connections; the node at 120', async () => {
    const [a, b] = [wsRpc(sockets[0]!), wsRpc(sockets[1]!)]
    const first = await Promise.all(Array.from({ length: 30 }, () => a('eth_subscribe', ['newHeads'])))
    const second = await Promise.all(Array.from({ length: 30 }, () => b('eth_subscribe', ['newHeads'])))
    const taken = [...first, ...second].filter((m) => typeof m?.result === 'string')
    const refused = [...first, ...second].filter((m) => m?.error !== undefined)
    assert.equal(taken.length, 50)
    assert.equal(refused.length, 10)
    assert.deepEqual(refused[0]?.error, {
      code: -32000,
      message: 'too many subscriptions from this client: the limit is 50 per IP address (ws-max-subscriptions-per-ip)',
    })
    // unsubscribing gives a slot back
    assert.equal((await a('eth_unsubscribe', [taken[0]?.result]))?.result, true)
    assert.equal(typeof (await a('eth_subscribe', ['newHeads']))?.result, 'string')
    // another address is served, up to the node's cap
    const other = wsRpc(sockets[3]!)
    const more = await Promise.all(Array.from({ length: 50 }, () => other('eth_subscribe', ['newHeads'])))
    assert.equal(more.filter((m) => typeof m?.result === 'string').length, 50)
    const third = wsRpc(await open('127.0.0.4'))
    const rest = await Promise.all(Array.from({ length: 25 }, () => third('eth_subscribe', ['logs', {}])))
    assert.equal(rest.filter((m) => typeof m?.result === 'string').length, 20)
    assert.equal(
      rest.find((m) => m?.error !== undefined)?.error?.message,
      'too many subscriptions on this node: the limit is 120 (ws-max-subscriptions)',
    )
  })

  it('filters: one address cannot take every slot', async () => {
    const hog = await Promise.all(Array.from({ length: 25 }, () => call(rpcUrl, 'eth_newBlockFilter', [], '127.0.0.5')))
    assert.equal(hog.filter((a) => typeof a.json?.result === 'string').length, 20)
    assert.deepEqual(hog.find((a) => a.json?.error !== undefined)?.json?.error, {
      code: -32000,
      message: 'too many filters from this client: the limit is 20 per IP address (max-filters-per-ip)',
    })
    const other = await call(rpcUrl, 'eth_newBlockFilter', [], '127.0.0.6')
    assert.equal(typeof other.json?.result, 'string')
    // uninstalling gives the hog a slot back
    const id = hog.find((a) => typeof a.json?.result === 'string')?.json?.result
    assert.equal((await call(rpcUrl, 'eth_uninstallFilter', [id], '127.0.0.5')).json?.result, true)
    assert.equal(typeof (await call(rpcUrl, 'eth_newBlockFilter', [], '127.0.0.5')).json?.result, 'string')
  })
})

describe("coreth's ws-cpu budget", () => {
  let node: FirnProcess
  after(async () => node?.cleanup())

  it('a connection that used its CPU time waits; another connection does not', { timeout: 60_000 }, async () => {
    // 1 s per call; a connection may store 1 s and gets 500 ms back per second
    node = await devNodeWithConfig({
      'api-max-duration': '1s',
      'ws-cpu-refill-rate': '500ms',
      'ws-cpu-max-stored': '1s',
      'rpc-gas-cap': 1_000_000_000_000_000,
    })
    const wsUrl = `${node.url.replace('http', 'ws')}/ext/bc/C/ws`
    const [hogWs, otherWs] = [await openWs(wsUrl, '127.0.0.2'), await openWs(wsUrl, '127.0.0.2')]
    const [hog, other] = [wsRpc(hogWs), wsRpc(otherWs)]
    const loop = `0x${'aa'.repeat(20)}`
    const spent = hog('eth_call', [{ to: loop }, 'latest', { [loop]: { code: '0x5b600056' } }])
    let hogNext = false
    const next = hog('eth_blockNumber').then((m) => {
      hogNext = true
      return m
    })
    // the request deadline and the EVM limit are both 1 s: either answers first
    assert.match(String((await spent)?.error?.message), /^(request timed out|execution aborted \(timeout = 1s\))$/)
    // the hog's bucket is empty now: its next call waits for the refill, the other connection's does not
    assert.match(String((await other('eth_blockNumber'))?.result), /^0x/)
    assert.equal(hogNext, false)
    assert.match(String((await next)?.result), /^0x/)
    hogWs.terminate()
    otherWs.terminate()
  })
})
