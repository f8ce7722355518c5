/**
 * The HTTP server on 127.0.0.1 port 0: handler stack (node-id, CORS, Host filter, paths), aliases, raw
 * and upgrade routes, slow clients, graceful close. Real `fetch`, `node:http` and `node:net` clients.
 */
import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { after, describe, it } from 'node:test'
import { createHttpServer, type HttpServerOptions } from '../../../../../src/api/http/server.js'
import { writeAtTurnEnd } from '../../../../../src/api/http/turn-writes.js'
import { createJsonRpcEndpoint } from '../../../../../src/api/jsonrpc/service.js'
import { noParams } from '../../../../../src/rpc/params.js'
import { defineMethod } from '../../../../../src/rpc/service.js'
import { type Deferred, deferred } from '../../../../helpers/deferred.js'
import { sendRaw } from '../../../../helpers/http-request.js'

const NODE_ID = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg'
const CALL = '{"jsonrpc":"2.0","id":1,"method":"test.ping"}'
const PONG = '{"jsonrpc":"2.0","result":{"pong":true},"id":1}\n'

/** A server with `test.ping` (and `test.wait`, which blocks until released) at /ext/test and aliases. */
async function startServer(overrides: Partial<HttpServerOptions> = {}) {
  const waiting: Array<Deferred> = []
  const entered: Array<Deferred> = []
  const server = createHttpServer({
    host: '127.0.0.1',
    port: 0,
    allowedHosts: ['localhost'],
    allowedOrigins: ['*'],
    nodeId: NODE_ID,
    ...overrides,
  })
  const endpoint = createJsonRpcEndpoint([
    {
      name: 'test',
      methods: {
        Ping: defineMethod(noParams, () => ({ pong: true })),
        Wait: defineMethod(noParams, async () => {
          const gate = deferred()
          waiting.push(gate)
          entered.shift()?.resolve()
          await gate.promise
          return { waited: true }
        }),
      },
    },
  ])
  server.router.addRoute('test', '', { kind: 'jsonrpc', endpoint })
  const bound = await server.listen()
  const base = server.url
  /** resolves when the next `test.wait` call has started */
  const nextWait = () => {
    const e = deferred()
    entered.push(e)
    return e.promise
  }
  return { server, base, port: bound.port, endpoint, waiting, nextWait }
}

/** `url` is sent as written: the path is not normalised the way `new URL` would. */
const send = sendRaw

const postJson = (url: string, body = CALL, headers: Record<string, string> = {}) =>
  send(url, 'POST', { 'Content-Type': 'application/json', ...headers }, body)

/** Raw bytes over a socket; resolves with everything received once the server closes the connection. */
async function raw(port: number, text: string): Promise<string> {
  const socket = connect(port, '127.0.0.1')
  const chunks: Buffer[] = []
  socket.on('data', (c: Buffer) => chunks.push(c))
  socket.write(text)
  await once(socket, 'close')
  return Buffer.concat(chunks).toString()
}

describe('HTTP server', () => {
  it('listens on a free port and reports its url', async (t) => {
    const { server, base, port } = await startServer()
    t.after(() => server.close())
    assert.ok(port > 0)
    assert.equal(base, `http://127.0.0.1:${port}`)
    const r = await fetch(base + '/ext/test', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: CALL,
    })
    assert.equal(await r.text(), PONG)
  })

  it('listen rejects when the port is taken', async (t) => {
    const { server, port } = await startServer()
    t.after(() => server.close())
    const second = createHttpServer({ host: '127.0.0.1', port, allowedHosts: [], allowedOrigins: [], nodeId: NODE_ID })
    await assert.rejects(second.listen(), { code: 'EADDRINUSE' })
    await second.close()
  })

  describe('paths (section 1.2)', () => {
    const ctx = startServer()
    after(async () => (await ctx).server.close())

    it('unknown path and trailing slash: 404 "404 page not found\\n" with node-id', async () => {
      const { base } = await ctx
      for (const path of ['/ext/nope', '/ext/test/', '/', '/ext/TEST', '/ext/test/rpc']) {
        const r = await postJson(base + path)
        assert.equal(r.status, 404, path)
        assert.equal(r.text, '404 page not found\n')
        assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8')
        assert.equal(r.headers['x-content-type-options'], 'nosniff')
        assert.equal(r.headers['node-id'], NODE_ID)
      }
    })

    it('non-canonical paths: 301 to the cleaned path, query kept', async () => {
      const { base } = await ctx
      const cases: Array<[string, string]> = [
        ['//ext/test', '/ext/test'],
        ['/ext//test', '/ext/test'],
        ['/ext/./test', '/ext/test'],
        ['/ext/x/../test', '/ext/test'],
        ['/ext/x/../test?a=1', '/ext/test?a=1'],
        ['/ext//test/', '/ext/test/'],
      ]
      for (const [path, location] of cases) {
        const r = await postJson(base + path)
        assert.equal(r.status, 301, path)
        assert.equal(r.headers.location, location, path)
        assert.equal(r.text, '')
        assert.equal(r.headers['node-id'], NODE_ID)
      }
    })

    it('percent-encoded paths route on the decoded path; bad escapes are 400', async () => {
      const { base } = await ctx
      assert.equal((await postJson(base + '/ext/%74est')).text, PONG)
      assert.equal((await postJson(base + '/ext/te%zzst')).status, 400)
    })

    it('a query string does not change the route', async () => {
      const { base } = await ctx
      assert.equal((await postJson(base + '/ext/test?x=1')).text, PONG)
    })
  })

  describe('CORS (section 1.1)', () => {
    it('adds Vary: Origin always, and allow headers for an Origin on GET/POST/HEAD', async (t) => {
      const { server, base } = await startServer()
      t.after(() => server.close())
      const plain = await postJson(base + '/ext/test')
      assert.equal(plain.headers.vary, 'Origin')
      assert.equal(plain.headers['node-id'], NODE_ID)
      assert.equal(plain.headers['access-control-allow-origin'], undefined)
      // the plain-POST fast path still sets both headers on its error answers
      for (const [path, type, status] of [
        ['/ext/nope', 'application/json', 404],
        ['/ext/test', 'text/plain', 415],
      ] as const) {
        const e = await fetch(base + path, { method: 'POST', headers: { 'content-type': type }, body: CALL })
        assert.equal(e.status, status)
        assert.equal(e.headers.get('vary'), 'Origin', path)
        assert.equal(e.headers.get('node-id'), NODE_ID, path)
      }
      // a raw route (a chain's /rpc) owes both to its head too, written once each with the route's own
      server.router.addRoute('raw', '', {
        kind: 'raw',
        handle(_req, res) {
          writeAtTurnEnd(res, 200, { 'Content-Type': 'application/json', 'Content-Length': 2 }, '{}')
        },
      })
      const rawAnswer = await postJson(base + '/ext/raw')
      assert.equal(rawAnswer.text, '{}')
      assert.equal(rawAnswer.headers.vary, 'Origin')
      assert.equal(rawAnswer.headers['node-id'], NODE_ID)
      const r = await fetch(base + '/ext/test', {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'http://app.example' },
        body: CALL,
      })
      assert.equal(r.headers.get('access-control-allow-origin'), '*')
      assert.equal(r.headers.get('access-control-allow-credentials'), 'true')
      assert.equal(r.headers.get('vary'), 'Origin')
      assert.equal(await r.text(), PONG)
      const notFound = await send(base + '/nope', 'GET', { Origin: 'http://app.example' })
      assert.equal(notFound.headers['access-control-allow-origin'], '*')
    })

    it('answers a preflight with 200 without reaching the router', async (t) => {
      const { server, base } = await startServer()
      t.after(() => server.close())
      for (const path of ['/ext/test', '/not/a/route']) {
        const r = await send(base + path, 'OPTIONS', {
          Origin: 'http://app.example',
          'Access-Control-Request-Method': 'post',
          'Access-Control-Request-Headers': 'content-type, x-requested-with',
        })
        assert.equal(r.status, 200)
        assert.equal(r.text, '')
        assert.equal(r.headers['access-control-allow-origin'], '*')
        assert.equal(r.headers['access-control-allow-methods'], 'POST')
        assert.equal(r.headers['access-control-allow-headers'], 'Content-Type, X-Requested-With')
        assert.equal(r.headers['access-control-allow-credentials'], 'true')
        assert.equal(r.headers.vary, 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers')
        assert.equal(r.headers['node-id'], NODE_ID)
      }
      // a disallowed method or header: still 200, but no allow headers
      const denied = await send(base + '/ext/test', 'OPTIONS', {
        Origin: 'http://app.example',
        'Access-Control-Request-Method': 'DELETE',
      })
      assert.equal(denied.status, 200)
      assert.equal(denied.headers['access-control-allow-origin'], undefined)
      const badHeader = await send(base + '/ext/test', 'OPTIONS', {
        Origin: 'http://app.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'Authorization',
      })
      assert.equal(badHeader.headers['access-control-allow-origin'], undefined)
      // OPTIONS without Access-Control-Request-Method is an ordinary request (405 from the JSON-RPC route)
      assert.equal((await send(base + '/ext/test', 'OPTIONS', {})).status, 405)
    })

    it('with an origin list: echoes a listed origin (exact or wildcard), ignores others', async (t) => {
      const { server, base } = await startServer({
        allowedOrigins: ['https://Wallet.example', 'https://*.dapp.example'],
      })
      t.after(() => server.close())
      const origin = async (o: string) => (await postJson(base + '/ext/test', CALL, { Origin: o })).headers
      assert.equal((await origin('https://wallet.example'))['access-control-allow-origin'], 'https://wallet.example')
      assert.equal((await origin('https://a.dapp.example'))['access-control-allow-origin'], 'https://a.dapp.example')
      const other = await origin('https://evil.example')
      assert.equal(other['access-control-allow-origin'], undefined)
      assert.equal(other['access-control-allow-credentials'], undefined)
      assert.equal(other.vary, 'Origin')
    })
  })

  describe('Host filter (section 1.1)', () => {
    const ctx = startServer()
    after(async () => (await ctx).server.close())

    it('rejects other host names with 403 "invalid host specified\\n"', async () => {
      const { base } = await ctx
      for (const host of ['evil.example', 'evil.example:9650', 'localhost.evil']) {
        const r = await postJson(base + '/ext/test', CALL, { Host: host })
        assert.equal(r.status, 403, host)
        assert.equal(r.text, 'invalid host specified\n')
        assert.equal(r.headers['x-content-type-options'], 'nosniff')
        assert.equal(r.headers['node-id'], NODE_ID)
      }
    })

    it('accepts listed names in any case, IP literals and an empty Host', async () => {
      const { base, port } = await ctx
      for (const host of ['localhost', 'LocalHost:9650', '10.0.0.1:9650', '[::1]:9650', '127.0.0.1']) {
        assert.equal((await postJson(base + '/ext/test', CALL, { Host: host })).text, PONG, host)
      }
      const reply = await raw(
        port,
        `POST /ext/test HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: ${CALL.length}\r\n\r\n${CALL}`,
      )
      assert.match(reply, /^HTTP\/1\.1 200 OK/)
      assert.ok(reply.endsWith(PONG))
    })

    it('checks the host before the path', async () => {
      const { base } = await ctx
      assert.equal((await postJson(base + '/nope', CALL, { Host: 'evil.example' })).status, 403)
    })

    it('is off with "*"', async (t) => {
      const { server, base } = await startServer({ allowedHosts: ['*'] })
      t.after(() => server.close())
      assert.equal((await postJson(base + '/ext/test', CALL, { Host: 'evil.example' })).text, PONG)
    })
  })

  describe('aliases (section 1.3)', () => {
    it('both paths answer, for routes added before and after the alias', async (t) => {
      const { server, base, endpoint } = await startServer()
      t.after(() => server.close())
      server.router.addRoute('bc/chainid', '/rpc', { kind: 'jsonrpc', endpoint })
      server.router.addAliases('bc/chainid', 'C', 'bc/C')
      server.router.addRoute('bc/chainid', '/avax', { kind: 'jsonrpc', endpoint })
      for (const path of ['/ext/bc/chainid/rpc', '/ext/C/rpc', '/ext/bc/C/rpc', '/ext/C/avax', '/ext/bc/C/avax']) {
        assert.equal((await postJson(base + path)).text, PONG, path)
      }
      assert.equal((await postJson(base + '/ext/C')).status, 404)
      assert.throws(() => server.router.addAliases('test', 'C'), {
        message: 'route is either already aliased or already maps to a handle: /ext/C',
      })
    })
  })

  describe('raw and upgrade routes', () => {
    it('a raw route owns the response; a throwing one gets a 500', async (t) => {
      const { server, base } = await startServer()
      t.after(() => server.close())
      server.router.addRoute('health', '', {
        kind: 'raw',
        handle: (req, res) => {
          res.writeHead(200, { 'Content-Type': 'application/json' })
          res.end(JSON.stringify({ method: req.method }))
        },
      })
      server.router.addRoute('broken', '', {
        kind: 'raw',
        handle: () => {
          throw new Error('broken handler')
        },
      })
      const r = await send(base + '/ext/health', 'GET', {})
      assert.equal(r.text, '{"method":"GET"}')
      assert.equal(r.headers['node-id'], NODE_ID)
      const broken = await send(base + '/ext/broken', 'GET', {})
      assert.equal(broken.status, 500)
    })

    it('upgrade requests reach the route through aliases; others get an error and a closed socket', async (t) => {
      const { server, port } = await startServer()
      t.after(() => server.close())
      server.router.addRoute('bc/cid', '/ws', {
        kind: 'raw',
        handle: (_req, res) => {
          res.writeHead(426)
          res.end()
        },
        upgrade: (req, socket) => {
          socket.end(
            `HTTP/1.1 101 Switching Protocols\r\nUpgrade: test\r\nConnection: Upgrade\r\nX-Path: ${req.url}\r\n\r\n`,
          )
        },
      })
      server.router.addAliases('bc/cid', 'bc/C')
      const upgrade = (path: string, host = 'localhost') =>
        raw(port, `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: test\r\n\r\n`)
      const ok = await upgrade('/ext/bc/C/ws')
      assert.match(ok, /^HTTP\/1\.1 101 Switching Protocols\r\n/)
      assert.match(ok, /X-Path: \/ext\/bc\/C\/ws/)
      assert.match(await upgrade('/ext/nope'), /^HTTP\/1\.1 404 Not Found\r\n[\s\S]*404 page not found\n$/)
      assert.match(await upgrade('/ext/bc/C/ws', 'evil.example'), /^HTTP\/1\.1 403 Forbidden\r\n/)
      assert.match(await upgrade('/ext/test'), /^HTTP\/1\.1 405 Method Not Allowed\r\n/)
    })
  })

  describe('slow and large requests', () => {
    it('a slow-loris client does not block others and is cut off at the header deadline', async (t) => {
      const { server, base, port } = await startServer({ timeouts: { headersMs: 200, requestMs: 200 } })
      t.after(() => server.close())
      const loris = connect(port, '127.0.0.1')
      await once(loris, 'connect')
      loris.write('POST /ext/test HTTP/1.1\r\nHost: localhost\r\n')
      // read (and drop) what the server sends, so its closing the connection is seen
      loris.resume()
      const closed = once(loris, 'close')
      loris.on('error', () => undefined)
      assert.equal((await postJson(base + '/ext/test')).text, PONG)
      await closed
    })

    it('a body that never completes is cut off at the request deadline', async (t) => {
      const { server, base, port } = await startServer({ timeouts: { headersMs: 200, requestMs: 200 } })
      t.after(() => server.close())
      const slow: Socket = connect(port, '127.0.0.1')
      await once(slow, 'connect')
      slow.on('error', () => undefined)
      slow.resume()
      slow.write(
        'POST /ext/test HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"json',
      )
      const closed = once(slow, 'close')
      assert.equal((await postJson(base + '/ext/test')).text, PONG)
      await closed
    })

    it('a huge declared body is refused before it is read', async (t) => {
      const { server, port } = await startServer({ maxBodyBytes: 64 })
      t.after(() => server.close())
      const reply = await raw(
        port,
        'POST /ext/test HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{',
      )
      assert.match(reply, /^HTTP\/1\.1 413 Payload Too Large\r\n/)
      assert.match(reply, /\r\nConnection: close\r\n/i)
    })
  })

  describe('close()', () => {
    it('lets an in-flight request finish, refuses new connections, then resolves', async () => {
      const { server, base, port, waiting, nextWait } = await startServer()
      const started = nextWait()
      const inFlight = postJson(base + '/ext/test', '{"jsonrpc":"2.0","id":9,"method":"test.wait"}')
      await started
      const closed = server.close()
      const refused = connect(port, '127.0.0.1')
      const [err] = (await once(refused, 'error')) as [NodeJS.ErrnoException]
      assert.equal(err.code, 'ECONNREFUSED')
      waiting.shift()?.resolve()
      const reply = await inFlight
      assert.equal(reply.status, 200)
      assert.equal(reply.text, '{"jsonrpc":"2.0","result":{"waited":true},"id":9}\n')
      await closed
      assert.equal(server.close(), closed)
    })

    it('closes idle keep-alive connections at once', async () => {
      const { server, port } = await startServer()
      const socket = connect(port, '127.0.0.1')
      const data = deferred()
      socket.on('data', () => data.resolve())
      socket.write(
        `POST /ext/test HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${CALL.length}\r\n\r\n${CALL}`,
      )
      await data.promise
      const socketClosed = once(socket, 'close')
      await server.close()
      await socketClosed
    })

    it('cuts requests that outlive the shutdown timeout', async () => {
      const { server, base, waiting, nextWait } = await startServer({ shutdownTimeoutMs: 100 })
      const started = nextWait()
      const inFlight = postJson(base + '/ext/test', '{"jsonrpc":"2.0","id":1,"method":"test.wait"}')
      await started
      await server.close()
      await assert.rejects(inFlight, /socket hang up|ECONNRESET/)
      waiting.shift()?.resolve()
    })

    it('is a no-op before listen', async () => {
      const server = createHttpServer({
        host: '127.0.0.1',
        port: 0,
        allowedHosts: [],
        allowedOrigins: [],
        nodeId: NODE_ID,
      })
      await server.close()
    })
  })
})
