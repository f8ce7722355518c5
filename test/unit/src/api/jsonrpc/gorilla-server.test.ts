import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type jayson from 'jayson'
import { createGorillaServer, type GorillaContext } from '../../../../../src/api/jsonrpc/gorilla-server.js'
import { ARGUMENT_ERROR, fields, str } from '../../../../../src/rpc/params.js'
import { defineMethod } from '../../../../../src/rpc/service.js'

const server = createGorillaServer(
  [{ name: 'test', methods: { Echo: defineMethod(fields({ text: str }), ({ text }) => ({ text })) } }],
  { underscoreNames: true },
)

/** One call straight into the jayson server; resolves with jayson's response object and the context. */
function call(method: string, params: Record<string, unknown> | undefined, id: string | undefined, badParams = false) {
  const ctx: GorillaContext = { call: { remoteAddress: '' }, badParams, handlerRan: false, method: undefined }
  return new Promise<{ response: unknown; ctx: GorillaContext }>((resolve) =>
    server.call({ jsonrpc: '2.0', method, params, id } as jayson.JSONRPCRequestLike, ctx, (err, res) =>
      resolve({ response: err ?? res, ctx }),
    ),
  )
}

describe('the node APIs’ jayson server', () => {
  it('routes the reference’s spellings to one method and carries the raw id through', async () => {
    for (const name of ['test.echo', 'test_echo']) {
      const { response, ctx } = await call(name, { text: 'hi' }, '"x"')
      assert.deepEqual(response, { jsonrpc: '2.0', id: '"x"', result: { text: 'hi' } })
      assert.equal(ctx.method, 'test.Echo')
      assert.equal(ctx.handlerRan, true)
    }
  })

  it('answers names that do not resolve with the reference’s texts, not jayson’s', async () => {
    const cases: Array<[string, string]> = [
      ['test.nope', 'rpc: can\'t find method "test.Nope"'],
      ['nope.echo', 'rpc: can\'t find service "nope.Echo"'],
      ['test', 'rpc: service/method request ill-formed: "test"'],
      ['test.Éx', 'method must start with a non-uppercase letter'],
    ]
    for (const [name, message] of cases) {
      const { response, ctx } = await call(name, undefined, '7')
      assert.deepEqual(response, { jsonrpc: '2.0', id: '7', error: { code: -32000, message, data: null } })
      assert.equal(ctx.handlerRan, false)
    }
  })

  it('answers params Firn could not normalise with the argument error once the name resolved', async () => {
    const { response, ctx } = await call('test.echo', undefined, '1', true)
    assert.deepEqual(response, {
      jsonrpc: '2.0',
      id: '1',
      error: { code: -32000, message: ARGUMENT_ERROR, data: null },
    })
    assert.equal(ctx.handlerRan, false)
  })

  it('runs a notification and answers nothing', async () => {
    const { response, ctx } = await call('test.echo', { text: 'x' }, undefined)
    assert.equal(response, undefined)
    assert.equal(ctx.handlerRan, true)
  })
})
