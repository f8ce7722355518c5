import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createJsonRpcEndpoint } from '../../../../../src/api/jsonrpc/service.js'
import { ARGUMENT_ERROR, fields, noParams, optional, str } from '../../../../../src/rpc/params.js'
import { type CallInfo, defineMethod } from '../../../../../src/rpc/service.js'
import { FirnError } from '../../../../../src/runtime/errors.js'

const call: CallInfo = { remoteAddress: '127.0.0.1' }

function testEndpoint() {
  const calls: string[] = []
  const errors: Array<[string, unknown]> = []
  const endpoint = createJsonRpcEndpoint(
    [
      {
        name: 'test',
        methods: {
          Echo: defineMethod(fields({ text: str, extra: optional(str) }), (p) => p),
          Record: defineMethod(fields({ text: str }), ({ text }) => {
            calls.push(text)
            return {}
          }),
          Fail: defineMethod(noParams, () => {
            throw new FirnError('there is no ID with alias: Q')
          }),
          Reject: defineMethod(noParams, async () => {
            throw { code: -32000, message: 'cpu profiler already running' }
          }),
          Crash: defineMethod(noParams, () => {
            throw new TypeError('boom')
          }),
          Caller: defineMethod(noParams, (_p, c) => ({ from: c.remoteAddress })),
          Big: defineMethod(noParams, () => ({ n: 1n })),
        },
      },
    ],
    { onError: (method, err) => errors.push([method, err]) },
  )
  const rpc = (body: string) => endpoint.respond(body, call)
  return { endpoint, rpc, calls, errors }
}

const argumentErrorBody = (id: string) =>
  `{"jsonrpc":"2.0","error":{"code":-32000,"message":"${ARGUMENT_ERROR}","data":null},"id":${id}}\n`

describe('JSON-RPC endpoint', () => {
  it('answers success with keys in Go order and a trailing newline, echoing the raw id', async () => {
    const { rpc } = testEndpoint()
    const r = await rpc('{"id":{"k" : [1, "<"]},"method":"test.echo","params":{"text":"hi"},"jsonrpc":"2.0"}')
    assert.deepEqual(r, {
      body: '{"jsonrpc":"2.0","result":{"text":"hi"},"id":{"k":[1,"\\u003c"]}}\n',
      handlerRan: true,
    })
  })

  it('passes the caller to the handler', async () => {
    const { rpc } = testEndpoint()
    const r = await rpc('{"jsonrpc":"2.0","id":1,"method":"test.caller"}')
    assert.equal(r.body, '{"jsonrpc":"2.0","result":{"from":"127.0.0.1"},"id":1}\n')
  })

  it('turns handler errors into -32000 with data null, through jayson', async () => {
    const { rpc, errors } = testEndpoint()
    assert.deepEqual(await rpc('{"jsonrpc":"2.0","id":1,"method":"test.fail"}'), {
      body: '{"jsonrpc":"2.0","error":{"code":-32000,"message":"there is no ID with alias: Q","data":null},"id":1}\n',
      handlerRan: true,
    })
    const rejected = await rpc('{"jsonrpc":"2.0","id":"a","method":"test.reject"}')
    assert.equal(
      rejected.body,
      '{"jsonrpc":"2.0","error":{"code":-32000,"message":"cpu profiler already running","data":null},"id":"a"}\n',
    )
    const crashed = await rpc('{"jsonrpc":"2.0","id":2,"method":"test.crash"}')
    assert.equal(crashed.body, '{"jsonrpc":"2.0","error":{"code":-32000,"message":"boom","data":null},"id":2}\n')
    assert.deepEqual(
      errors.map(([m]) => m),
      ['test.Fail', 'test.Reject', 'test.Crash'],
    )
  })

  it('reports a result JSON cannot carry as an error instead of throwing', async () => {
    const { rpc, errors } = testEndpoint()
    const r = await rpc('{"jsonrpc":"2.0","id":1,"method":"test.big"}')
    assert.match(
      r.body ?? '',
      /^\{"jsonrpc":"2.0","error":\{"code":-32000,"message":"[^"]*BigInt[^"]*","data":null\},"id":1\}\n$/,
    )
    assert.equal(errors.length, 1)
  })

  describe('params forms', () => {
    const forms: Array<[string, string]> = [
      ['{"text":"a"}', '{"text":"a"}'],
      ['[{"text":"a"}]', '{"text":"a"}'],
      ['[{"text":"a"}, 5, "x"]', '{"text":"a"}'],
      ['[]', '{"text":""}'],
      ['null', '{"text":""}'],
      ['[null]', '{"text":""}'],
      ['{"TEXT":"b","Text":"c"}', '{"text":"c"}'],
      ['{"text":"a","unknown":[1,2]}', '{"text":"a"}'],
    ]
    for (const [params, result] of forms) {
      it(`params ${params}`, async () => {
        const { rpc } = testEndpoint()
        const r = await rpc(`{"jsonrpc":"2.0","id":1,"method":"test.echo","params":${params}}`)
        assert.equal(r.body, `{"jsonrpc":"2.0","result":${result},"id":1}\n`)
      })
    }
    it('absent params', async () => {
      const { rpc } = testEndpoint()
      const r = await rpc('{"jsonrpc":"2.0","id":1,"method":"test.echo"}')
      assert.equal(r.body, '{"jsonrpc":"2.0","result":{"text":""},"id":1}\n')
    })
    for (const params of ['5', '"x"', 'true', '[5]', '["x"]', '[[{}]]', '{"text":5}', '[{"text":[]}]']) {
      it(`rejects params ${params} before the handler runs`, async () => {
        const { rpc } = testEndpoint()
        const r = await rpc(`{"jsonrpc":"2.0","id":1,"method":"test.echo","params":${params}}`)
        assert.deepEqual(r, { body: argumentErrorBody('1'), handlerRan: false })
      })
    }
    it('rejects scalar params for no-arg methods too', async () => {
      const { rpc } = testEndpoint()
      const r = await rpc('{"jsonrpc":"2.0","id":1,"method":"test.caller","params":5}')
      assert.equal(r.body, argumentErrorBody('1'))
    })
  })

  describe('notifications', () => {
    it('run the method and answer with an empty body (id missing or null)', async () => {
      const { rpc, calls } = testEndpoint()
      assert.deepEqual(await rpc('{"jsonrpc":"2.0","method":"test.record","params":{"text":"one"}}'), {
        body: undefined,
        handlerRan: true,
      })
      assert.deepEqual(await rpc('{"jsonrpc":"2.0","id":null,"method":"test.record","params":{"text":"two"}}'), {
        body: undefined,
        handlerRan: true,
      })
      assert.deepEqual(calls, ['one', 'two'])
    })

    it('errors are silent too, except parse errors', async () => {
      const { rpc } = testEndpoint()
      assert.equal((await rpc('{"jsonrpc":"2.0","method":"test.fail"}')).body, undefined)
      assert.equal((await rpc('{"jsonrpc":"2.0","method":"test.nope"}')).body, undefined)
      assert.equal((await rpc('{"jsonrpc":"1.0","method":"test.echo"}')).body, undefined)
      assert.equal((await rpc('{"jsonrpc":"2.0","method":"test.echo","params":5}')).body, undefined)
      assert.equal((await rpc('null')).body, undefined)
      assert.equal(
        (await rpc('{"jsonrpc":"2.0","method":')).body,
        '{"jsonrpc":"2.0","error":{"code":-32700,"message":"unexpected EOF","data":{"jsonrpc":"","method":"","params":null,"id":null}},"id":null}\n',
      )
    })
  })

  describe('the reference error table (section 2.3)', () => {
    const rows: Array<[string, string]> = [
      [
        '',
        '{"jsonrpc":"2.0","error":{"code":-32700,"message":"EOF","data":{"jsonrpc":"","method":"","params":null,"id":null}},"id":null}\n',
      ],
      [
        '{"jsonrpc":"2.0","id":1,"method":"test.echo"',
        '{"jsonrpc":"2.0","error":{"code":-32700,"message":"unexpected EOF","data":{"jsonrpc":"","method":"","params":null,"id":null}},"id":null}\n',
      ],
      [
        'xyz',
        `{"jsonrpc":"2.0","error":{"code":-32700,"message":"invalid character 'x' looking for beginning of value","data":{"jsonrpc":"","method":"","params":null,"id":null}},"id":null}\n`,
      ],
      [
        '[{"jsonrpc":"2.0","id":1,"method":"test.echo"}]',
        '{"jsonrpc":"2.0","error":{"code":-32700,"message":"json: cannot unmarshal array into Go value of type json2.serverRequest","data":{"jsonrpc":"","method":"","params":null,"id":null}},"id":null}\n',
      ],
      [
        '{"jsonrpc":2,"id":1,"method":"test.echo"}',
        '{"jsonrpc":"2.0","error":{"code":-32700,"message":"json: cannot unmarshal number into Go struct field serverRequest.jsonrpc of type string","data":{"jsonrpc":"","method":"test.echo","params":null,"id":1}},"id":1}\n',
      ],
      [
        '{"jsonrpc":"2.0","id":1,"method":["test.echo"]}',
        '{"jsonrpc":"2.0","error":{"code":-32700,"message":"json: cannot unmarshal array into Go struct field serverRequest.method of type string","data":{"jsonrpc":"2.0","method":"","params":null,"id":1}},"id":1}\n',
      ],
      [
        '{"id":1,"method":"test.echo","params":{"text":"a"}}',
        '{"jsonrpc":"2.0","error":{"code":-32600,"message":"jsonrpc must be 2.0","data":{"jsonrpc":"","method":"test.echo","params":{"text":"a"},"id":1}},"id":1}\n',
      ],
      [
        '{"jsonrpc":"1.0","id":"x","method":"test.echo"}',
        '{"jsonrpc":"2.0","error":{"code":-32600,"message":"jsonrpc must be 2.0","data":{"jsonrpc":"1.0","method":"test.echo","params":null,"id":"x"}},"id":"x"}\n',
      ],
      [
        '{"jsonrpc":"2.0","id":1,"method":"test.Echo"}',
        '{"jsonrpc":"2.0","error":{"code":-32000,"message":"method must start with a non-uppercase letter","data":null},"id":1}\n',
      ],
      [
        '{"jsonrpc":"2.0","id":1,"method":"testecho"}',
        '{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: service/method request ill-formed: \\"testecho\\"","data":null},"id":1}\n',
      ],
      [
        '{"jsonrpc":"2.0","id":1,"method":"test.echo.x"}',
        '{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: service/method request ill-formed: \\"test.Echo.x\\"","data":null},"id":1}\n',
      ],
      [
        '{"jsonrpc":"2.0","id":1}',
        '{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: service/method request ill-formed: \\"\\"","data":null},"id":1}\n',
      ],
      [
        '{"jsonrpc":"2.0","id":1,"method":"x.y"}',
        '{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: can\'t find service \\"x.Y\\"","data":null},"id":1}\n',
      ],
      [
        '{"jsonrpc":"2.0","id":1,"method":"test.foo"}',
        '{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: can\'t find method \\"test.Foo\\"","data":null},"id":1}\n',
      ],
      ['{"jsonrpc":"2.0","id":1,"method":"test.echo","params":5}', argumentErrorBody('1')],
    ]
    for (const [body, expected] of rows) {
      it(JSON.stringify(body), async () => {
        const { rpc } = testEndpoint()
        const r = await rpc(body)
        assert.equal(r.body, expected)
        assert.equal(r.handlerRan, false)
      })
    }
  })

  it('handle() gives just the body', async () => {
    const { endpoint } = testEndpoint()
    assert.equal(
      await endpoint.handle(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"test.echo"}'), call),
      '{"jsonrpc":"2.0","result":{"text":""},"id":1}\n',
    )
    assert.equal(await endpoint.handle('{"jsonrpc":"2.0","method":"test.echo"}', call), undefined)
  })

  it('refuses two services with one name', () => {
    assert.throws(() =>
      createJsonRpcEndpoint([
        { name: 'a', methods: {} },
        { name: 'a', methods: {} },
      ]),
    )
  })
})
