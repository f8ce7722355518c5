import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  isSensitiveEthMethod,
  LOOPBACK_ORIGINS,
  originMatcher,
  restrictEthMethods,
} from '../../../../../src/api/http/origin-policy.js'
import type { CallContext, EthMethod } from '../../../../../src/rpc/eth-types.js'

describe('origin policy', () => {
  it('the loopback default matches loopback pages on any port and nothing else', () => {
    const ok = originMatcher(LOOPBACK_ORIGINS)
    for (const o of [
      'http://localhost',
      'http://localhost:3000',
      'http://127.0.0.1:8545',
      'http://[::1]:80',
      'HTTP://LOCALHOST:1',
    ])
      assert.ok(ok(o), o)
    for (const o of ['https://evil.example', 'null', 'http://localhost.evil.example', 'http://127.0.0.2:80', 'file://'])
      assert.ok(!ok(o), o)
  })

  it('* and an empty list allow every origin (rs/cors)', () => {
    assert.ok(originMatcher(['*'])('https://evil.example'))
    assert.ok(originMatcher([])('https://evil.example'))
  })

  it('the account, signing, debug and admin methods are the sensitive ones', () => {
    for (const m of ['personal_unlockAccount', 'debug_traceCall', 'eth_accounts', 'eth_sendTransaction', 'eth_sign'])
      assert.ok(isSensitiveEthMethod(m), m)
    for (const m of ['eth_call', 'eth_sendRawTransaction', 'eth_getBalance', 'txpool_content', 'net_version'])
      assert.ok(!isSensitiveEthMethod(m), m)
  })

  it('restrictEthMethods keeps the table and makes the sensitive methods answer an error', () => {
    const answer: EthMethod = () => 'ran'
    const table = new Map([
      ['eth_chainId', answer],
      ['personal_listAccounts', answer],
    ])
    const restricted = restrictEthMethods(table)
    const ctx = {} as CallContext
    assert.equal(restricted.get('eth_chainId')?.([], ctx), 'ran')
    assert.throws(() => restricted.get('personal_listAccounts')?.([], ctx), {
      code: -32000,
      message: /^personal_listAccounts is not available to web pages of other origins/,
    })
    assert.equal(table.get('personal_listAccounts')?.([], ctx), 'ran')
  })
})
