/**
 * JSON-RPC over a real HTTP server on 127.0.0.1 port 0: the HTTP-level outcomes of reference/node-api.md
 * 1.2 and the JSON-RPC outcomes of 2.2/2.3, with `fetch` and raw `node:http` requests.
 */
import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { request } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { createHttpServer, type HttpApiServer } from '../../../../../src/api/http/server.js'
import { createJsonRpcEndpoint } from '../../../../../src/api/jsonrpc/service.js'
import { ARGUMENT_ERROR, fields, noParams, str } from '../../../../../src/rpc/params.js'
import { defineMethod } from '../../../../../src/rpc/service.js'
import { FirnError } from '../../../../../src/runtime/errors.js'
import { type Deferred, deferred } from '../../../../helpers/deferred.js'
import { type RawReply, sendRaw } from '../../../../helpers/http-request.js'

const NODE_ID = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg'

const send = sendRaw

describe('JSON-RPC routes over HTTP', () => {
  let server: HttpApiServer
  let base: string
  let chainReady = false
  const recorded: string[] = []
  let hang: Deferred | undefined
  const entered: Array<Deferred> = []

  before(async () => {
    server = createHttpServer({
      host: '127.0.0.1',
      port: 0,
      allowedHosts: ['localhost'],
      allowedOrigins: ['*'],
      nodeId: NODE_ID,
      maxBodyBytes: 1024,
      timeouts: { writeMs: 300 },
    })
    const endpoint = createJsonRpcEndpoint([
      {
        name: 'test',
        methods: {
          Echo: defineMethod(fields({ text: str }), ({ text }) => ({ text })),
          Record: defineMethod(fields({ text: str }), ({ text }) => {
            recorded.push(text)
            return {}
          }),
          Fail: defineMethod(noParams, () => {
            throw new FirnError('there is no ID with alias: Q')
          }),
          Hang: defineMethod(noParams, async () => {
            entered.shift()?.resolve()
            hang = deferred()
            await hang.promise
            return {}
          }),
        },
      },
    ])
    server.router.addRoute('test', '', { kind: 'jsonrpc', endpoint })
    server.router.addRoute('bc/chain', '/rpc', { kind: 'jsonrpc', endpoint, ready: () => chainReady })
    server.router.addRoute('big', '', { kind: 'jsonrpc', endpoint, maxBodyBytes: 4096 })
    await server.listen()
    base = server.url
  })
  after(async () => {
    hang?.resolve()
    await server.close()
  })

  const post = (path: string, body: string, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
    send(base + path, 'POST', headers, body)

  describe('HTTP-level outcomes (section 1.2)', () => {
    it('a method other than POST gets 405 with gorilla text', async () => {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const r = await send(base + '/ext/test', method, {})
        assert.equal(r.status, 405)
        assert.equal(r.text, `rpc: POST method required, received ${method}`)
        assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8')
        assert.equal(r.headers['x-content-type-options'], undefined)
        assert.equal(r.headers['node-id'], NODE_ID)
      }
    })

    it('a missing Content-Type gets 415 with an empty value', async () => {
      const r = await post('/ext/test', '{}', {})
      assert.equal(r.status, 415)
      assert.equal(r.text, 'rpc: unrecognized Content-Type: ')
    })

    it('other Content-Types get 415 with the value cut at the first ;', async () => {
      const r = await post('/ext/test', '{}', { 'Content-Type': 'text/plain; charset=utf-8' })
      assert.equal(r.status, 415)
      assert.equal(r.text, 'rpc: unrecognized Content-Type: text/plain')
      const r2 = await post('/ext/test', '{}', { 'Content-Type': 'application/json-rpc' })
      assert.equal(r2.text, 'rpc: unrecognized Content-Type: application/json-rpc')
    })

    it('Content-Type parameters and case do not matter', async () => {
      for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'application/json;x=y']) {
        const r = await post('/ext/test', '{"jsonrpc":"2.0","id":1,"method":"test.echo"}', { 'Content-Type': type })
        assert.equal(r.status, 200, type)
        assert.equal(r.text, '{"jsonrpc":"2.0","result":{"text":""},"id":1}\n')
      }
    })

    it('a chain route that is not ready gets 503 before any other check', async () => {
      const r = await post('/ext/bc/chain/rpc', '{"jsonrpc":"2.0","id":1,"method":"test.echo"}')
      assert.equal(r.status, 503)
      assert.equal(r.text, 'API call rejected because chain is not done bootstrapping\n')
      assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8')
      assert.equal(r.headers['x-content-type-options'], 'nosniff')
      assert.equal((await send(base + '/ext/bc/chain/rpc', 'GET', {})).status, 503)
      chainReady = true
      const ok = await post('/ext/bc/chain/rpc', '{"jsonrpc":"2.0","id":1,"method":"test.echo"}')
      assert.equal(ok.status, 200)
      chainReady = false
    })
  })

  describe('JSON-RPC replies (sections 2.2 and 2.3)', () => {
    it('success: HTTP 200, JSON type, nosniff, exact body', async () => {
      const r = await fetch(base + '/ext/test', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":"a","method":"test.echo","params":[{"TEXT":"hi"}]}',
      })
      assert.equal(r.status, 200)
      assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8')
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff')
      assert.equal(r.headers.get('node-id'), NODE_ID)
      assert.equal(await r.text(), '{"jsonrpc":"2.0","result":{"text":"hi"},"id":"a"}\n')
    })

    it('handler errors are HTTP 200 with nosniff', async () => {
      const r = await post('/ext/test', '{"jsonrpc":"2.0","id":1,"method":"test.fail"}')
      assert.equal(r.status, 200)
      assert.equal(r.headers['x-content-type-options'], 'nosniff')
      assert.equal(
        r.text,
        '{"jsonrpc":"2.0","error":{"code":-32000,"message":"there is no ID with alias: Q","data":null},"id":1}\n',
      )
    })

    const rows: Array<[string, string]> = [
      [
        '',
        '{"jsonrpc":"2.0","error":{"code":-32700,"message":"EOF","data":{"jsonrpc":"","method":"","params":null,"id":null}},"id":null}\n',
      ],
      [
        '[{"jsonrpc":"2.0","id":1,"method":"test.echo"}]',
        '{"jsonrpc":"2.0","error":{"code":-32700,"message":"json: cannot unmarshal array into Go value of type json2.serverRequest","data":{"jsonrpc":"","method":"","params":null,"id":null}},"id":null}\n',
      ],
      [
        '{"jsonrpc":"2.0","id":1,"method":"test.echo"',
        '{"jsonrpc":"2.0","error":{"code":-32700,"message":"unexpected EOF","data":{"jsonrpc":"","method":"","params":null,"id":null}},"id":null}\n',
      ],
      [
        '{"jsonrpc":"1.0","id":1,"method":"test.echo"}',
        '{"jsonrpc":"2.0","error":{"code":-32600,"message":"jsonrpc must be 2.0","data":{"jsonrpc":"1.0","method":"test.echo","params":null,"id":1}},"id":1}\n',
      ],
      [
        '{"jsonrpc":"2.0","id":1,"method":"test.Echo"}',
        '{"jsonrpc":"2.0","error":{"code":-32000,"message":"method must start with a non-uppercase letter","data":null},"id":1}\n',
      ],
      [
        '{"jsonrpc":"2.0","id":1,"method":"test.foo"}',
        '{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: can\'t find method \\"test.Foo\\"","data":null},"id":1}\n',
      ],
      [
        '{"jsonrpc":"2.0","id":1,"method":"nope.foo"}',
        '{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: can\'t find service \\"nope.Foo\\"","data":null},"id":1}\n',
      ],
      [
        '{"jsonrpc":"2.0","id":1,"method":"test"}',
        '{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: service/method request ill-formed: \\"test\\"","data":null},"id":1}\n',
      ],
      [
        '{"jsonrpc":"2.0","id":1,"method":"test.echo","params":5}',
        `{"jsonrpc":"2.0","error":{"code":-32000,"message":"${ARGUMENT_ERROR}","data":null},"id":1}\n`,
      ],
    ]
    for (const [body, expected] of rows) {
      it(`${JSON.stringify(body)} -> HTTP 200, no nosniff`, async () => {
        const r = await post('/ext/test', body)
        assert.equal(r.status, 200)
        assert.equal(r.headers['content-type'], 'application/json; charset=utf-8')
        assert.equal(r.headers['x-content-type-options'], undefined)
        assert.equal(r.text, expected)
      })
    }

    it('notifications run the method and get an empty 200', async () => {
      const r = await post('/ext/test', '{"jsonrpc":"2.0","method":"test.record","params":{"text":"n1"}}')
      assert.equal(r.status, 200)
      assert.equal(r.text, '')
      assert.equal(r.headers['content-length'], '0')
      assert.equal(r.headers['content-type'], undefined)
      assert.equal(r.headers['x-content-type-options'], 'nosniff')
      const r2 = await post('/ext/test', '{"jsonrpc":"2.0","id":null,"method":"test.fail"}')
      assert.equal(r2.text, '')
      assert.deepEqual(recorded, ['n1'])
    })
  })

  describe('limits', () => {
    it('a declared body over the cap gets 413 and a closed connection', async () => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test.echo', params: { text: 'x'.repeat(2000) } })
      const r = await post('/ext/test', body)
      assert.equal(r.status, 413)
      assert.equal(r.text, 'http: request body too large\n')
      assert.equal(r.headers.connection, 'close')
    })

    it('a chunked body over the cap gets 413 too', async () => {
      const r = await new Promise<RawReply>((resolve, reject) => {
        const req = request(
          base + '/ext/test',
          { method: 'POST', headers: { 'Content-Type': 'application/json' } },
          (res) => {
            const chunks: Buffer[] = []
            res.on('data', (c: Buffer) => chunks.push(c))
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }),
            )
          },
        )
        req.on('error', reject)
        req.write('{"jsonrpc":"2.0","id":1,"method":"test.echo","params":{"text":"')
        req.write('y'.repeat(1500))
        req.end('"}}')
      })
      assert.equal(r.status, 413)
    })

    it('a body at the cap is fine, and routes can raise the cap', async () => {
      const prefix = '{"jsonrpc":"2.0","id":1,"method":"test.echo","params":{"text":"'
      const fill = 'z'.repeat(1024 - prefix.length - 3)
      const r = await post('/ext/test', prefix + fill + '"}}')
      assert.equal(r.status, 200)
      assert.equal(r.text, `{"jsonrpc":"2.0","result":{"text":"${fill}"},"id":1}\n`)
      const big = await post('/ext/big', prefix + 'w'.repeat(3000) + '"}}')
      assert.equal(big.status, 200)
    })

    it('a handler past the write deadline gets its connection closed', async () => {
      const ready = deferred()
      entered.push(ready)
      const pending = post('/ext/test', '{"jsonrpc":"2.0","id":1,"method":"test.hang"}')
      await ready.promise
      await assert.rejects(pending, /socket hang up|ECONNRESET/)
      hang?.resolve()
    })
  })
})
