/**
 * /ext/bc/C/ws on a real node:http server with real `ws` and raw TCP clients: calls answered as over HTTP,
 * geth's subscriptions (shape, ordering, unsubscribe, stop on disconnect), and the per-connection limits
 * (subscriptions, read limit, pending calls, slow readers, pings), the plain-GET 400 and `close()`.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { sendRaw } from '../../../../helpers/http-request.js'
import { post, REVERT_DATA } from './fixture.js'
import { clientFrame, events, startWsServer, type TestSub, type WsServer, waitFor } from './ws-fixture.js'

const call = (id: number | string, method: string, params?: unknown[]) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })

const answer = (id: number | string, result: unknown) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${JSON.stringify(result)}}\n`

const notification = (subscription: string, result: unknown) =>
  `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${subscription}","result":${JSON.stringify(result)}}}\n`

const SUB_ID = /^\{"jsonrpc":"2\.0","id":(\d+),"result":"(0x[1-9a-f][0-9a-f]{0,31})"\}\n$/

/** The id in an `eth_subscribe` answer. */
function subscriptionId(text: string): string {
  const m = SUB_ID.exec(text)
  assert.ok(m, `not a subscription answer: ${text}`)
  return m[2]!
}

/** No message arrives within `ms` (for "the server did not read it" checks). */
async function quiet(c: { queued: number }, ms = 50): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms))
  assert.equal(c.queued, 0, 'no message expected')
}

describe('eth JSON-RPC over WebSocket', { timeout: 20_000 }, () => {
  let s: WsServer
  before(async () => {
    s = await startWsServer()
  })
  after(() => s.close())

  it('answers calls and batches as the HTTP route does, one message each, newline-terminated', async () => {
    const c = await s.client()
    try {
      const bodies = [
        call(1, 'eth_chainId'),
        '{"jsonrpc":"2.0","id":123456789012345678901234,"method":"test_async","params":[7]}',
        call('abc', 'eth_blockNumber'),
        `[${call(1, 'eth_chainId')},{"jsonrpc":"2.0","method":"eth_chainId"},${call('b', 'eth_blockNumber')}]`,
        call(2, 'invalid_method', [2, 3]),
        call(3, 'test_revert'),
        call(4, 'test_fail'),
        '{"jsonrpc":"2.0","method":"test_echo","params":{"int":23},"id":3}',
        `[${call(1, 'test_echo', ['foo', 1])},55,${call(2, 'unknown_method')},{"foo":"bar"}]`,
        call(5, 'rpc_modules'),
      ]
      for (const body of bodies) {
        const http = (await post(s.rpcUrl, body)).text
        const ws = await c.call(body)
        assert.equal(ws, http.endsWith('\n') ? http : `${http}\n`, body)
      }
      // the same texts as the HTTP tests pin
      assert.equal(await c.call(call(1, 'eth_chainId')), '{"jsonrpc":"2.0","id":1,"result":"0xa868"}\n')
      assert.equal(
        await c.call(call(2, 'invalid_method', [2, 3])),
        '{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"the method invalid_method does not exist/is not available"}}\n',
      )
      assert.equal(
        await c.call(call(1, 'test_revert')),
        `{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted: test","data":"${REVERT_DATA}"}}\n`,
      )
      assert.equal(await c.call('[]'), '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}\n')
    } finally {
      c.destroy()
    }
  })

  it('gives no answer to a notification; binary frames are read as text', async () => {
    const c = await s.client()
    try {
      c.send('{"jsonrpc":"2.0","method":"eth_chainId"}')
      c.ws.send(Buffer.from(call(7, 'eth_chainId')), { binary: true })
      assert.equal(await c.next(), '{"jsonrpc":"2.0","id":7,"result":"0xa868"}\n')
    } finally {
      c.destroy()
    }
  })

  it('answers a message that is not JSON with -32700 and Go syntax text, then closes', async () => {
    const c = await s.client()
    assert.equal(
      await c.call("'f"),
      `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"invalid character '\\\\'' looking for beginning of value"}}\n`,
    )
    await c.closed
  })

  it('serves messages concurrently: a later fast call is answered before an earlier slow one', async () => {
    const c = await s.client()
    try {
      const started = events(s.hub, 'waiting', 1)
      c.send(call(1, 'test_wait'))
      await started
      assert.equal(await c.call(call(2, 'eth_chainId')), answer(2, '0xa868'))
      s.hub.waiting.shift()?.('done')
      assert.equal(await c.next(), answer(1, 'done'))
    } finally {
      c.destroy()
    }
  })

  it('eth_subscribe: geth notification shape, pushes before the answer follow it, unsubscribe true then not found', async () => {
    const c = await s.client()
    try {
      const started = events(s.hub, 'sub', 1)
      const id = subscriptionId(await c.call(call(1, 'eth_subscribe', ['ticks', 'early'])))
      const [[sub]] = (await started) as [[TestSub]]
      assert.deepEqual(sub.params, ['early'])
      assert.equal(typeof sub.connection, 'number')
      // pushed inside start, sent right after the answer
      assert.equal(await c.next(), notification(id, 'early'))
      sub.push({ number: '0x1', hash: '0xab' })
      sub.push(null)
      sub.push('<&>')
      assert.equal(
        await c.next(),
        `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":{"number":"0x1","hash":"0xab"}}}\n`,
      )
      assert.equal(await c.next(), notification(id, null))
      assert.equal(
        await c.next(),
        `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":"\\u003c\\u0026\\u003e"}}\n`,
      )
      const stopped = events(s.hub, 'stop', 1)
      assert.equal(await c.call(call(2, 'eth_unsubscribe', [id])), answer(2, true))
      await stopped
      assert.equal(sub.stopped, true)
      sub.push('after') // ignored: the next message is the answer below
      assert.equal(
        await c.call(call(3, 'eth_unsubscribe', [id])),
        '{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"subscription not found"}}\n',
      )
      assert.equal(c.queued, 0)
    } finally {
      c.destroy()
    }
  })

  it('subscription ids are distinct quantities; each subscription gets only its own results', async () => {
    const c = await s.client()
    try {
      const started = events(s.hub, 'sub', 2)
      const a = subscriptionId(await c.call(call(1, 'eth_subscribe', ['ticks'])))
      const b = subscriptionId(await c.call(call(2, 'eth_subscribe', ['ticks'])))
      assert.notEqual(a, b)
      const [[subA], [subB]] = (await started) as [[TestSub], [TestSub]]
      subB.push(2)
      subA.push(1)
      assert.equal(await c.next(), notification(b, 2))
      assert.equal(await c.next(), notification(a, 1))
    } finally {
      c.destroy()
    }
  })

  it('eth_subscribe inside a batch: the answer comes first, then the notifications', async () => {
    const c = await s.client()
    try {
      const started = events(s.hub, 'sub', 1)
      const text = await c.call(`[${call(1, 'eth_subscribe', ['ticks', 'early'])},${call(2, 'eth_chainId')}]`)
      const m =
        /^\[\{"jsonrpc":"2\.0","id":1,"result":"(0x[0-9a-f]+)"\},\{"jsonrpc":"2\.0","id":2,"result":"0xa868"\}\]\n$/.exec(
          text,
        )
      assert.ok(m, text)
      await started
      assert.equal(await c.next(), notification(m[1]!, 'early'))
    } finally {
      c.destroy()
    }
  })

  it('stop runs for every subscription when the client disconnects', async () => {
    const c = await s.client()
    const started = events(s.hub, 'sub', 2)
    subscriptionId(await c.call(call(1, 'eth_subscribe', ['ticks'])))
    subscriptionId(await c.call(call(2, 'eth_subscribe', ['ticks'])))
    const subs = (await started).map(([sub]) => sub as TestSub)
    const stopped = events(s.hub, 'stop', 2)
    c.ws.close()
    const stops = (await stopped).map(([sub]) => sub)
    assert.deepEqual(new Set(stops), new Set(subs))
    await waitFor(() => s.route.connections === 0, 'the connection to go')
    // pushing after the end is harmless
    subs[0]!.push('late')
  })

  it('subscription errors: unknown kind, other namespace, bad params, a failing start', async () => {
    const c = await s.client()
    try {
      assert.equal(
        await c.call(call(1, 'eth_subscribe', ['x'])),
        '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no \\"x\\" subscription in eth namespace"}}\n',
      )
      assert.equal(
        await c.call(call(2, 'foo_subscribe', ['ticks'])),
        '{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no \\"ticks\\" subscription in foo namespace"}}\n',
      )
      assert.equal(
        await c.call(call(3, 'eth_subscribe')),
        '{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"non-array args"}}\n',
      )
      assert.equal(
        await c.call(call(4, 'eth_subscribe', [1])),
        '{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"expected subscription name as first argument"}}\n',
      )
      assert.equal(
        await c.call(call(5, 'eth_subscribe', ['failing'])),
        '{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"bad filter"}}\n',
      )
      assert.equal(
        await c.call(call(6, 'eth_unsubscribe', ['0x1'])),
        '{"jsonrpc":"2.0","id":6,"error":{"code":-32000,"message":"subscription not found"}}\n',
      )
    } finally {
      c.destroy()
    }
  })

  it('a plain GET to the route is gorilla 400 with Sec-Websocket-Version', async () => {
    const r = await sendRaw(s.wsUrl.replace('ws:', 'http:'), 'GET', {})
    assert.equal(r.status, 400)
    assert.equal(r.text, 'Bad Request\n')
    assert.equal(r.headers['sec-websocket-version'], '13')
  })

  it('refused upgrades: gorilla status on the raw socket', async () => {
    const upgrade = async (method: string, version: string): Promise<string> => {
      const socket = connect(s.port, '127.0.0.1')
      const chunks: Buffer[] = []
      socket.on('data', (b: Buffer) => chunks.push(b))
      socket.write(
        `${method} /ext/bc/C/ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
          `Sec-WebSocket-Version: ${version}\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
      )
      await once(socket, 'close')
      return Buffer.concat(chunks).toString()
    }
    assert.match(
      await upgrade('GET', '8'),
      /^HTTP\/1\.1 400 Bad Request\r\nSec-Websocket-Version: 13\r\n[\s\S]*\r\n\r\nBad Request\n$/,
    )
    assert.match(await upgrade('POST', '13'), /^HTTP\/1\.1 405 Method Not Allowed\r\n[\s\S]*Method Not Allowed\n$/)
  })
})

describe('eth WebSocket limits', { timeout: 30_000 }, () => {
  it('maxSubscriptions: the one past the limit fails, and frees up after an unsubscribe', async (t) => {
    const s = await startWsServer({ maxSubscriptions: 2 })
    t.after(() => s.close())
    const c = await s.client()
    const a = subscriptionId(await c.call(call(1, 'eth_subscribe', ['ticks'])))
    subscriptionId(await c.call(call(2, 'eth_subscribe', ['ticks'])))
    assert.equal(
      await c.call(call(3, 'eth_subscribe', ['ticks'])),
      '{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"too many subscriptions on this connection"}}\n',
    )
    assert.equal(s.hub.subs.length, 2, 'the refused one never started')
    // the limit is per connection
    const other = await s.client()
    subscriptionId(await other.call(call(1, 'eth_subscribe', ['ticks'])))
    assert.equal(await c.call(call(4, 'eth_unsubscribe', [a])), answer(4, true))
    subscriptionId(await c.call(call(5, 'eth_subscribe', ['ticks'])))
  })

  it('a client that stops reading is dropped once maxQueuedBytes would be passed; others go on', async (t) => {
    const limit = 64 * 1024
    const s = await startWsServer({ maxQueuedBytes: limit })
    t.after(() => s.close())
    const good = await s.client()
    const slow = await s.raw()
    const started = events(s.hub, 'sub', 2)
    subscriptionId(await good.call(call(1, 'eth_subscribe', ['ticks'])))
    slow.sendText(call(1, 'eth_subscribe', ['ticks']))
    subscriptionId(await slow.text())
    const [[goodSub], [slowSub]] = (await started) as [[TestSub], [TestSub]]
    assert.equal(s.route.connections, 2)

    slow.stopReading()
    const dropped = once(s.hub, 'warn')
    const big = 'x'.repeat(16 * 1024)
    let pushes = 0
    // push until the server gives up on it (kernel buffers first absorb a few MB on loopback)
    while (!slowSub.stopped) {
      assert.ok(pushes < 5000, 'the slow client was never dropped')
      slowSub.push(big)
      pushes++
      await new Promise(setImmediate)
    }
    const [msg, fields] = (await dropped) as [string, { queued: number; next: number; limit: number }]
    assert.equal(msg, 'dropping slow WebSocket client: outbound queue over limit')
    assert.equal(fields.limit, limit)
    // what is queued in the process never passes the limit
    assert.ok(fields.queued <= limit, `queued ${fields.queued}`)
    assert.ok(fields.queued + fields.next > limit)
    await waitFor(() => s.route.connections === 1, 'the slow connection to go')
    assert.equal(goodSub.stopped, false)
    slowSub.push(big) // a no-op now

    // the other connection still works, its subscription too
    assert.equal(await good.call(call(2, 'eth_chainId')), answer(2, '0xa868'))
    goodSub.push('still here')
    assert.match(await good.next(), /"result":"still here"\}\}\n$/)
  })

  it('readLimit: a larger message closes the connection with 1009; one of exactly the limit is served', async (t) => {
    const s = await startWsServer({ readLimit: 1024 })
    t.after(() => s.close())
    const c = await s.client()
    const prefix = call(1, 'test_echo', [''])
    const fits = call(1, 'test_echo', ['y'.repeat(1024 - prefix.length)])
    assert.equal(fits.length, 1024)
    assert.equal(await c.call(fits), answer(1, ['y'.repeat(1024 - prefix.length)]))
    c.send(call(2, 'test_echo', ['y'.repeat(1025 - prefix.length)]))
    const { code } = await c.closed
    assert.equal(code, 1009)
    await waitFor(() => s.route.connections === 0, 'the connection to go')
  })

  it('maxPendingCalls: reading stops while that many calls run; every call is answered', async (t) => {
    const s = await startWsServer({ maxPendingCalls: 2 })
    t.after(() => s.close())
    const c = await s.client()
    const two = events(s.hub, 'waiting', 2)
    c.send(call(1, 'test_wait', ['a']))
    c.send(call(2, 'test_wait', ['b']))
    await two
    c.send(call(3, 'eth_chainId'))
    await quiet(c) // not read while two calls run
    s.hub.waiting.shift()?.('a')
    assert.equal(await c.next(), answer(1, 'a'))
    assert.equal(await c.next(), answer(3, '0xa868'))
    s.hub.waiting.shift()?.('b')
    assert.equal(await c.next(), answer(2, 'b'))
    assert.equal(s.hub.maxRunning, 2)
  })

  it('maxPendingCalls holds for messages that arrive in one read', async (t) => {
    const s = await startWsServer({ maxPendingCalls: 2 })
    t.after(() => s.close())
    const c = await s.raw()
    const two = events(s.hub, 'waiting', 2)
    // five calls in one TCP write: the server reads them together
    c.socket.write(Buffer.concat([1, 2, 3, 4, 5].map((i) => clientFrame(call(i, 'test_wait', [i])))))
    await two
    await new Promise((resolve) => setTimeout(resolve, 20))
    assert.equal(s.hub.running, 2)
    const answered: string[] = []
    for (let i = 0; i < 5; i++) {
      const next = i < 3 ? events(s.hub, 'waiting', 1) : undefined
      s.hub.waiting.shift()?.(`r${i}`)
      answered.push(await c.text())
      await next
      assert.ok(s.hub.running <= 2, `running ${s.hub.running}`)
    }
    assert.equal(s.hub.maxRunning, 2)
    assert.deepEqual(
      answered.map((a) => (JSON.parse(a) as { id: number }).id),
      [1, 2, 3, 4, 5],
    )
  })

  it('pings an idle client: one that answers stays, one that does not is dropped', async (t) => {
    const s = await startWsServer({ pingIntervalMs: 30, pongTimeoutMs: 50 })
    t.after(() => s.close())
    const good = await s.client()
    const mute = await s.raw() // reads frames but never answers a ping
    const pinged = once(good.ws, 'ping')
    const frame = await mute.frame()
    assert.equal(frame.opcode, 9)
    await pinged
    await mute.closed
    await waitFor(() => s.route.connections === 1, 'the mute connection to go')
    assert.ok(s.logs.some((l) => l.msg === 'WebSocket pong timeout'))
    // the good one answered its pings and still works
    await once(good.ws, 'ping')
    assert.equal(await good.call(call(1, 'eth_chainId')), answer(1, '0xa868'))
  })

  it('route.close() drops every connection and ends their subscriptions', async (t) => {
    const s = await startWsServer()
    t.after(() => s.close())
    const clients = [await s.client(), await s.client(), await s.client()]
    const started = events(s.hub, 'sub', 3)
    for (const c of clients) subscriptionId(await c.call(call(1, 'eth_subscribe', ['ticks'])))
    await started
    assert.equal(s.route.connections, 3)
    const stopped = events(s.hub, 'stop', 3)
    s.route.close()
    const codes = await Promise.all(clients.map((c) => c.closed.then((r) => r.code)))
    assert.deepEqual(codes, [1006, 1006, 1006]) // dropped without a close frame, as geth's codec close
    await stopped
    await waitFor(() => s.route.connections === 0, 'the connections to go')
    assert.ok(s.hub.subs.every((sub) => sub.stopped))
    // the route still accepts new connections
    const again = await s.client()
    assert.equal(await again.call(call(1, 'eth_chainId')), answer(1, '0xa868'))
  })
})
