import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import {
  CHAIN_ID_DOMAIN,
  canonicalJson,
  chainIdPreimage,
  deriveChainId,
} from '../../../../../src/chains/genesis/chain-id.js'
import { idFromString } from '../../../../../src/identity/ids.js'

/** The example chain D (docs/operations.md shows the same declaration and ID). */
const D_GENESIS = { config: { chainId: 99999 }, gasLimit: '0x7A1200', alloc: {} }

describe('canonicalJson (RFC 8785)', () => {
  it('sorts members by UTF-16 code units at every depth and writes no whitespace', () => {
    assert.equal(
      canonicalJson({ b: 1, a: [{ z: null, y: true }], A: 'x' }),
      '{"A":"x","a":[{"y":true,"z":null}],"b":1}',
    )
    assert.equal(
      canonicalJson({ '\u00e9': 1, z: 2, '\ud83d\ude00': 3, '\uffff': 4 }),
      '{"z":2,"é":1,"😀":3,"\uffff":4}',
    )
  })

  it('writes strings and numbers as JSON.stringify does', () => {
    assert.equal(canonicalJson(['a"\\\n\u0001', 1e21, 0.1, -0, 100]), '["a\\"\\\\\\n\\u0001",1e+21,0.1,0,100]')
  })

  it('refuses what JSON cannot hold', () => {
    assert.throws(() => canonicalJson(Number.NaN), TypeError)
    assert.throws(() => canonicalJson({ a: undefined }), TypeError)
  })
})

describe('deriveChainId', () => {
  it('is CB58(SHA-256(canonical JSON of [domain, networkId, name, vm, genesis]))', () => {
    const text = `["${CHAIN_ID_DOMAIN}",12345,"D","evm",{"alloc":{},"config":{"chainId":99999},"gasLimit":"0x7A1200"}]`
    assert.equal(new TextDecoder().decode(chainIdPreimage(12345, 'D', 'evm', D_GENESIS)), text)
    const id = deriveChainId(12345, 'D', 'evm', D_GENESIS)
    assert.deepEqual(idFromString(id), new Uint8Array(createHash('sha256').update(text).digest()))
  })

  it('pins the ID of the documented example', () => {
    assert.equal(deriveChainId(12345, 'D', 'evm', D_GENESIS), PINNED_D_ID)
  })

  it('does not depend on member order or whitespace, and changes with every input', () => {
    const reordered = JSON.parse('{ "gasLimit": "0x7A1200", "alloc": {}, "config": { "chainId": 99999 } }')
    const id = deriveChainId(12345, 'D', 'evm', D_GENESIS)
    assert.equal(deriveChainId(12345, 'D', 'evm', reordered), id)
    assert.notEqual(deriveChainId(1337, 'D', 'evm', D_GENESIS), id)
    assert.notEqual(deriveChainId(12345, 'E', 'evm', D_GENESIS), id)
    assert.notEqual(deriveChainId(12345, 'D', 'kvvm', D_GENESIS), id)
    assert.notEqual(deriveChainId(12345, 'D', 'evm', { ...D_GENESIS, gasLimit: '0x7a1200' }), id)
  })
})

const PINNED_D_ID = '2mtHQgbwXWYYW3PNuDEywtbJhFJdRnJndbvLX1yqkVa3dXdUhf'
