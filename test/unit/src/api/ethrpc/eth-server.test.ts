import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { runCall } from '../../../../../src/api/ethrpc/calls.js'
import { createEthServer } from '../../../../../src/api/ethrpc/eth-server.js'
import { readMessages } from '../../../../../src/api/ethrpc/message.js'
import { CallProc, type Session } from '../../../../../src/api/ethrpc/session.js'
import type { EthMethod } from '../../../../../src/rpc/eth-types.js'
import { FirnError } from '../../../../../src/runtime/errors.js'

const server = createEthServer({
  methods: new Map<string, EthMethod>([
    ['eth_chainId', () => '0xa868'],
    ['net_version', async () => '43112'],
    ['test_args', (params: unknown[]) => params.length],
    [
      'test_fail',
      () => {
        throw new FirnError('execution reverted', 3, '0x01')
      },
    ],
  ]),
  subscriptions: { newHeads: () => () => {} },
})

const session: Session = {
  transport: 'http',
  write: () => {},
  subscriptions: undefined,
  remoteAddress: '127.0.0.1',
  connection: undefined,
  timeoutMs: 0,
  procs: new Set(),
}

/** One message through the jayson server, as the dispatcher runs it; the answer text. */
async function call(body: string): Promise<string | undefined> {
  const read = readMessages(Buffer.from(body))
  assert.equal(read.kind, 'messages')
  const msg = read.kind === 'messages' ? read.messages[0]! : assert.fail()
  const proc = new CallProc(session, () => {})
  const answer = await runCall(server, msg, proc, session)
  proc.finish()
  return answer?.text
}

describe('the eth endpoints’ jayson server', () => {
  it('answers a synchronous method synchronously, echoing the raw id jayson carried', () => {
    const read = readMessages(Buffer.from('{"jsonrpc":"2.0","id":1.50,"method":"eth_chainId"}'))
    const msg = read.kind === 'messages' ? read.messages[0]! : assert.fail()
    const proc = new CallProc(session, () => {})
    const answer = runCall(server, msg, proc, session)
    assert.ok(!(answer instanceof Promise))
    // the id is the raw text as sent (a float64 would have printed 1.5)
    assert.equal(answer?.text, '{"jsonrpc":"2.0","id":1.50,"result":"0xa868"}')
  })

  it('routes by namespace and answers unknown names with geth’s text', async () => {
    assert.equal(
      await call('{"jsonrpc":"2.0","id":"x","method":"net_version"}'),
      '{"jsonrpc":"2.0","id":"x","result":"43112"}',
    )
    assert.equal(
      await call('{"jsonrpc":"2.0","id":1,"method":"net_nope"}'),
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method net_nope does not exist/is not available"}}',
    )
    assert.equal(
      await call('{"jsonrpc":"2.0","id":1,"method":"rpc_modules"}'),
      '{"jsonrpc":"2.0","id":1,"result":{"eth":"1.0","net":"1.0","rpc":"1.0","test":"1.0"}}',
    )
  })

  it('gives a method its positional params, and geth’s error for params that are not an array', async () => {
    assert.equal(
      await call('{"jsonrpc":"2.0","id":1,"method":"test_args","params":[1,2]}'),
      '{"jsonrpc":"2.0","id":1,"result":2}',
    )
    assert.equal(
      await call('{"jsonrpc":"2.0","id":1,"method":"test_args","params":null}'),
      '{"jsonrpc":"2.0","id":1,"result":0}',
    )
    assert.equal(
      await call('{"jsonrpc":"2.0","id":1,"method":"test_args","params":{}}'),
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"non-array args"}}',
    )
    // the name is resolved first, as geth does
    assert.equal(
      await call('{"jsonrpc":"2.0","id":1,"method":"test_nope","params":{}}'),
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method test_nope does not exist/is not available"}}',
    )
  })

  it('keeps a FirnError’s code and data', async () => {
    assert.equal(
      await call('{"jsonrpc":"2.0","id":1,"method":"test_fail"}'),
      '{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted","data":"0x01"}}',
    )
  })

  it('answers <ns>_subscribe in any namespace itself; without a connection there are no notifications', async () => {
    for (const method of ['eth_subscribe', 'foo_subscribe']) {
      assert.equal(
        await call(`{"jsonrpc":"2.0","id":1,"method":"${method}","params":["newHeads"]}`),
        '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"notifications not supported"}}',
      )
    }
  })

  it('runs a notification and answers nothing', async () => {
    assert.equal(await call('{"jsonrpc":"2.0","method":"net_version"}'), undefined)
  })
})
