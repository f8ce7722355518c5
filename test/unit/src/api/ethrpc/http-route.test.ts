/**
 * /ext/bc/C/rpc on a real server: geth's answers byte for byte (coreth graft/evm/rpc testdata), its limits
 * (batch size, response size, body size, deadline) and HTTP rules, and ethers' JsonRpcProvider end to end.
 */
import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { request } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { JsonRpcProvider, Network } from 'ethers'
import WebSocket from 'ws'
import { sendRaw } from '../../../../helpers/http-request.js'
import { post, REVERT_DATA, startEthServer } from './fixture.js'

type Server = Awaited<ReturnType<typeof startEthServer>>

const call = (id: number | string, method: string, params?: unknown[]) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })

describe('eth JSON-RPC over HTTP', () => {
  let s: Server
  before(async () => {
    s = await startEthServer()
  })
  after(() => s.close())

  it('answers a single call with a newline-terminated JSON body', async () => {
    const r = await post(s.rpcUrl, call(1, 'eth_chainId'))
    assert.equal(r.status, 200)
    assert.equal(r.type, 'application/json')
    assert.equal(r.text, '{"jsonrpc":"2.0","id":1,"result":"0xa868"}\n')
  })

  it('echoes ids as sent, including null, strings and big numbers', async () => {
    const r = await post(s.rpcUrl, '{"jsonrpc":"2.0","id":123456789012345678901234,"method":"test_async","params":[7]}')
    assert.equal(r.text, '{"jsonrpc":"2.0","id":123456789012345678901234,"result":7}\n')
    const n = await post(s.rpcUrl, '{"jsonrpc":"2.0","id":null,"method":"eth_chainId"}')
    assert.equal(n.text, '{"jsonrpc":"2.0","id":null,"result":"0xa868"}\n')
  })

  it('answers a batch in order, skipping notifications', async () => {
    const body = `[${call(1, 'eth_chainId')},{"jsonrpc":"2.0","method":"eth_chainId"},${call('b', 'eth_blockNumber')}]`
    const r = await post(s.rpcUrl, body)
    assert.equal(r.text, '[{"jsonrpc":"2.0","id":1,"result":"0xa868"},{"jsonrpc":"2.0","id":"b","result":"0x10"}]\n')
  })

  it('gives no answer to a notification or an all-notification batch', async () => {
    for (const body of ['{"jsonrpc":"2.0","method":"eth_chainId"}', '[{"jsonrpc":"2.0","method":"eth_chainId"}]']) {
      const r = await post(s.rpcUrl, body)
      assert.equal(r.status, 200)
      assert.equal(r.type, 'application/json')
      assert.equal(r.text, '')
    }
  })

  it('drops responses sent to the server', async () => {
    const r = await post(s.rpcUrl, '{"jsonrpc":"2.0","id":1,"result":"0x1"}')
    assert.equal(r.text, '')
  })

  it('answers an empty batch with a single error object', async () => {
    const r = await post(s.rpcUrl, '[]')
    assert.equal(r.text, '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}')
  })

  it('answers a batch over the default limit of 1000 with the first call id', async () => {
    const items = ['{"jsonrpc":"2.0","method":"eth_chainId"}']
    for (let i = 0; i < 1000; i++) items.push(call(i + 7, 'eth_chainId'))
    const r = await post(s.rpcUrl, `[${items.join(',')}]`)
    assert.equal(r.text, '[{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"batch too large"}}]')
  })

  it('runs a batch of exactly 1000', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => call(i, 'eth_chainId'))
    const r = await post(s.rpcUrl, `[${items.join(',')}]`)
    assert.equal((JSON.parse(r.text) as unknown[]).length, 1000)
  })

  it('parse error: bad JSON and a cut-off value', async () => {
    for (const body of ["'f", '{"jsonrpc":"2.0"', '[1,]']) {
      const r = await post(s.rpcUrl, body)
      assert.equal(r.text, '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}', body)
    }
  })

  it('answers an empty body with nothing', async () => {
    const r = await post(s.rpcUrl, '  ')
    assert.equal(r.status, 200)
    assert.equal(r.text, '')
  })

  it('unknown method text', async () => {
    const r = await post(s.rpcUrl, call(2, 'invalid_method', [2, 3]))
    assert.equal(
      r.text,
      '{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"the method invalid_method does not exist/is not available"}}\n',
    )
  })

  it('a FirnError keeps its code and data (revert, code 3)', async () => {
    const r = await post(s.rpcUrl, call(1, 'test_revert'))
    assert.equal(
      r.text,
      `{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted: test","data":"${REVERT_DATA}"}}\n`,
    )
  })

  it('a plain error is -32000 with its message, escaped as Go does', async () => {
    const r = await post(s.rpcUrl, call(1, 'test_fail'))
    assert.equal(r.text, '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"boom \\u003c\\u0026\\u003e"}}\n')
  })

  it('a result JSON cannot encode is -32603', async () => {
    const r = await post(s.rpcUrl, call(1, 'test_bigint'))
    assert.match(r.text, /^\{"jsonrpc":"2.0","id":1,"error":\{"code":-32603,"message":".+"\}\}\n$/)
  })

  it('params: absent or null are [], an object is "non-array args"', async () => {
    assert.equal((await post(s.rpcUrl, call(1, 'test_echo'))).text, '{"jsonrpc":"2.0","id":1,"result":[]}\n')
    const nul = await post(s.rpcUrl, '{"jsonrpc":"2.0","id":1,"method":"test_echo","params":null}')
    assert.equal(nul.text, '{"jsonrpc":"2.0","id":1,"result":[]}\n')
    const obj = await post(s.rpcUrl, '{"jsonrpc":"2.0","method":"test_echo","params":{"int":23},"id":3}')
    assert.equal(obj.text, '{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"non-array args"}}\n')
  })

  it('invalid requests as geth answers them', async () => {
    const cases: Array<[string, string]> = [
      [
        '{"jsonrpc":"2.1","id":1,"method":"test_echo"}',
        '{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request"}}\n',
      ],
      ['{"id":1}', '{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request"}}\n'],
      [
        '{"id":[],"method":"test_foo"}',
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}\n',
      ],
      ['1', '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}\n'],
      ['null', '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}\n'],
      [
        `[${call(1, 'test_echo', ['foo', 1])},55,${call(2, 'unknown_method')},{"foo":"bar"}]`,
        '[{"jsonrpc":"2.0","id":1,"result":["foo",1]},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}},{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"the method unknown_method does not exist/is not available"}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}]\n',
      ],
    ]
    for (const [body, expected] of cases) assert.equal((await post(s.rpcUrl, body)).text, expected, body)
  })

  it('refuses eth_subscribe: notifications not supported', async () => {
    const r = await post(s.rpcUrl, call(1, 'eth_subscribe', ['ticks']))
    assert.equal(r.text, '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"notifications not supported"}}\n')
    const u = await post(s.rpcUrl, call(2, 'eth_unsubscribe', ['0x1']))
    assert.equal(u.text, '{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"subscription not found"}}\n')
  })

  it('rpc_modules lists the namespaces', async () => {
    const r = await post(s.rpcUrl, call(1, 'rpc_modules'))
    assert.equal(r.text, '{"jsonrpc":"2.0","id":1,"result":{"eth":"1.0","rpc":"1.0","test":"1.0"}}\n')
  })

  it('GET without body or query is a health check; PUT/DELETE 405; other content types 415', async () => {
    const get = await sendRaw(s.rpcUrl, 'GET', {})
    assert.equal(get.status, 200)
    assert.equal(get.text, '')
    const put = await sendRaw(s.rpcUrl, 'PUT', { 'Content-Type': 'application/json' }, call(1, 'eth_chainId'))
    assert.deepEqual([put.status, put.text], [405, 'method not allowed\n'])
    const text = await sendRaw(s.rpcUrl, 'POST', { 'Content-Type': 'text/plain' }, call(1, 'eth_chainId'))
    assert.deepEqual([text.status, text.text], [415, 'invalid content type, only application/json is supported\n'])
    const query = await sendRaw(s.rpcUrl + '?x=1', 'GET', {})
    assert.equal(query.status, 415)
    const rpcType = await sendRaw(s.rpcUrl, 'POST', { 'Content-Type': 'application/json-rpc' }, call(1, 'eth_chainId'))
    assert.equal(rpcType.text, '{"jsonrpc":"2.0","id":1,"result":"0xa868"}\n')
  })

  it('413 for a declared body over 5 MiB', async () => {
    const body = Buffer.alloc(5 * 1024 * 1024 + 1, 0x20)
    const r = await sendRaw(s.rpcUrl, 'POST', { 'Content-Type': 'application/json' }, body)
    assert.equal(r.status, 413)
    assert.equal(r.text, 'content length too large (5242881>5242880)\n')
  })

  it('ethers JsonRpcProvider reads the chain id and block number', async () => {
    const provider = new JsonRpcProvider(s.rpcUrl, undefined, { polling: false })
    try {
      assert.equal((await provider.getNetwork()).chainId, 43112n)
      assert.equal(await provider.getBlockNumber(), 16)
    } finally {
      provider.destroy()
    }
    const fixed = new JsonRpcProvider(s.rpcUrl, Network.from(43112), { staticNetwork: true })
    try {
      const [a, b] = await Promise.all([fixed.send('eth_blockNumber', []), fixed.send('test_async', ['x'])])
      assert.deepEqual([a, b], ['0x10', 'x'])
    } finally {
      fixed.destroy()
    }
  })
})

/** A chunked (undeclared length) body: Go's LimitReader cuts it at the limit. */
function postChunked(url: string, chunks: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (c: Buffer) => parts.push(c))
      res.on('end', () => resolve(Buffer.concat(parts).toString()))
    })
    req.on('error', reject)
    for (const c of chunks) req.write(c)
    req.end()
  })
}

describe('eth JSON-RPC limits', () => {
  it('batch-request-limit and batch-response-max-size from options', async (t) => {
    const s = await startEthServer({ batchRequestLimit: 2, batchResponseMaxSize: 14 })
    t.after(() => s.close())
    const tooMany = await post(s.rpcUrl, `[{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.0","method":"y"},"z"]`)
    assert.equal(tooMany.text, '[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}]')
    // two results of 7 bytes: 14 is not over the limit
    const big = await post(s.rpcUrl, `[${call(1, 'test_big', [5])},${call(2, 'test_big', [5])}]`)
    assert.equal(big.text, '[{"jsonrpc":"2.0","id":1,"result":"xxxxx"},{"jsonrpc":"2.0","id":2,"result":"xxxxx"}]\n')
    // one byte more passes it after the last call: geth's error path writes the answers without a newline
    const over = await post(s.rpcUrl, `[${call(1, 'test_big', [5])},${call(2, 'test_big', [6])}]`)
    assert.equal(over.text, '[{"jsonrpc":"2.0","id":1,"result":"xxxxx"},{"jsonrpc":"2.0","id":2,"result":"xxxxxx"}]')
  })

  it('response too large: the call that passes the limit is kept, the rest get -32003', async (t) => {
    const s = await startEthServer({ batchRequestLimit: 10, batchResponseMaxSize: 10 })
    t.after(() => s.close())
    const body = `[${call(1, 'test_big', [5])},${call(2, 'test_big', [5])},{"jsonrpc":"2.0","method":"eth_chainId"},${call(3, 'eth_chainId')}]`
    const r = await post(s.rpcUrl, body)
    assert.equal(
      r.text,
      '[{"jsonrpc":"2.0","id":1,"result":"xxxxx"},{"jsonrpc":"2.0","id":2,"result":"xxxxx"},' +
        '{"jsonrpc":"2.0","id":3,"error":{"code":-32003,"message":"response too large"}}]',
    )
  })

  it('limits are off unless both are > 0', async (t) => {
    const s = await startEthServer({ batchRequestLimit: 1, batchResponseMaxSize: 0 })
    t.after(() => s.close())
    const r = await post(s.rpcUrl, `[${call(1, 'eth_chainId')},${call(2, 'eth_chainId')}]`)
    assert.equal((JSON.parse(r.text) as unknown[]).length, 2)
  })

  it('api-max-duration: -32002 request timed out, and the call is aborted', async (t) => {
    const s = await startEthServer({ apiMaxDurationMs: 50 })
    t.after(() => s.close())
    const aborted = once(s.hub, 'aborted')
    const r = await post(s.rpcUrl, call(1, 'test_block'))
    assert.equal(r.text, '{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"request timed out"}}')
    await aborted
    const batch = await post(s.rpcUrl, `[${call(1, 'eth_chainId')},${call(2, 'test_block')},${call(3, 'eth_chainId')}]`)
    assert.equal(
      batch.text,
      '[{"jsonrpc":"2.0","id":1,"result":"0xa868"},' +
        '{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"request timed out"}},' +
        '{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"request timed out"}}]',
    )
  })

  it('the HTTP write timeout gives the same error 100 ms early', async (t) => {
    const s = await startEthServer({ httpWriteTimeoutMs: 150 })
    t.after(() => s.close())
    const r = await post(s.rpcUrl, call(1, 'test_block'))
    assert.equal(r.text, '{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"request timed out"}}')
  })

  it('http-body-limit: 413 when declared, a streamed body is cut at the limit', async (t) => {
    const s = await startEthServer({ httpBodyLimit: 60 })
    t.after(() => s.close())
    const declared = await post(s.rpcUrl, call(1, 'test_echo', ['x'.repeat(60)]))
    assert.equal(declared.status, 413)
    assert.equal(declared.text, `content length too large (${call(1, 'test_echo', ['x'.repeat(60)]).length}>60)\n`)
    const fits = call(1, 'eth_chainId') // 47 bytes, then junk past the limit
    assert.equal(
      await postChunked(s.rpcUrl, [fits, ' '.repeat(10), 'junk'.repeat(100)]),
      '{"jsonrpc":"2.0","id":1,"result":"0xa868"}\n',
    )
    const cut = await postChunked(s.rpcUrl, [call(1, 'test_echo', ['x'.repeat(20)]), 'more'])
    assert.equal(cut, '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}')
  })
})

describe('a failure inside the dispatch', () => {
  it('answers the HTTP request empty and logs it; the WebSocket connection logs it and goes on', async (t) => {
    // a call observer that throws: it runs inside the dispatch of every call, synchronously for a synchronous one
    const s = await startEthServer({
      observer: {
        called() {
          throw new Error('observer broke')
        },
      },
    })
    t.after(() => s.close())
    const r = await post(s.rpcUrl, call(1, 'eth_chainId'))
    assert.equal(r.status, 200)
    assert.equal(r.text, '')
    assert.ok(
      s.logs.some((l) => l.msg === 'eth JSON-RPC request failed' && /observer broke/.test(JSON.stringify(l.fields))),
    )
    assert.ok(s.logs.find((l) => l.msg === 'eth JSON-RPC request failed')?.level === 'warn')
    const ws = new WebSocket(s.wsUrl)
    t.after(() => ws.close())
    await once(ws, 'open')
    const failures = () => s.logs.filter((l) => l.msg === 'eth JSON-RPC message failed').length
    for (const id of [1, 2]) {
      ws.send(call(id, 'eth_chainId'))
      await once(s.hub, 'warn')
      assert.equal(failures(), id, 'each message is logged, and the connection reads the next')
    }
    assert.equal(ws.readyState, WebSocket.OPEN)
  })
})
