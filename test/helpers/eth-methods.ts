/**
 * Calling the C chain's JSON-RPC method tables directly in unit tests: a call context, a caller by method name,
 * and the JSON-RPC error a failing call becomes.
 */
import assert from 'node:assert/strict'
import { toWireError } from '../../src/api/jsonrpc/errors.js'
import type { CallContext, EthMethod } from '../../src/rpc/eth-types.js'

/** An HTTP call that never times out. */
export const TEST_CTX: CallContext = {
  signal: new AbortController().signal,
  transport: 'http',
  remoteAddress: undefined,
  connection: undefined,
}

// results are arbitrary JSON that tests index freely
// biome-ignore lint/suspicious/noExplicitAny: JSON results
export type Call = (method: string, ...params: unknown[]) => Promise<any>

/** `call('eth_chainId')` runs the method of that name from `table` with positional params. */
export function caller(table: Iterable<[string, EthMethod]>): Call {
  const map = new Map(table)
  return async (method, ...params) => {
    const fn = map.get(method)
    if (fn === undefined) throw new Error(`no method ${method} in the table`)
    return await fn(params, TEST_CTX)
  }
}

/** The `{code, message}` a call that must fail answers with. */
export async function failure(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p
  } catch (err) {
    const { code, message } = toWireError(err, 'geth')
    return { code, message }
  }
  assert.fail('expected the call to fail')
}
