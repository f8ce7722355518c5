import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import { cb58Encode } from '../../../../src/identity/cb58.js'
import { IdError } from '../../../../src/identity/errors.js'
import {
  EMPTY_NODE_ID,
  idFromAscii,
  idFromString,
  idToString,
  nodeIdBytesFromCertDer,
  nodeIdFromCertDer,
  nodeIdFromString,
  nodeIdToString,
  PRIMARY_NETWORK_ID,
  shortIdFromString,
  shortIdToString,
} from '../../../../src/identity/ids.js'
import { pemDecodeAll } from '../../../../src/identity/pem.js'
import { newStakingPems } from '../../../../src/identity/staking.js'

const throwsIdError = (fn: () => unknown, message: string): void => {
  assert.throws(fn, (err: unknown) => err instanceof IdError && err.message === message)
}

describe('ids', () => {
  it('has the zero ID and zero NodeID of the reference', () => {
    assert.equal(PRIMARY_NETWORK_ID, '11111111111111111111111111111111LpoYY')
    assert.equal(idToString(new Uint8Array(32)), PRIMARY_NETWORK_ID)
    assert.deepEqual(idFromString(PRIMARY_NETWORK_ID), new Uint8Array(32))
    assert.equal(EMPTY_NODE_ID, 'NodeID-111111111111111111116DBWJs')
    assert.equal(nodeIdToString(new Uint8Array(20)), EMPTY_NODE_ID)
    assert.deepEqual(nodeIdFromString(EMPTY_NODE_ID), new Uint8Array(20))
  })

  it('names VMs by their zero-padded ASCII name', () => {
    assert.equal(idToString(idFromAscii('evm')), 'mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6')
    assert.equal(idToString(idFromAscii('platformvm')), 'rWhpuQPF1kb72esV2momhMuTYGkEb1oL29pt2EBXWmSy4kxnT')
    assert.equal(idToString(idFromAscii('avm')), 'jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq')
    assert.deepEqual(idFromAscii(''), new Uint8Array(32))
    throwsIdError(() => idFromAscii('x'.repeat(33)), 'invalid hash length: expected at most 32 bytes but got 33')
    throwsIdError(() => idFromAscii('évm'), 'not an ASCII name: évm')
  })

  it('round-trips IDs, short IDs and NodeIDs', () => {
    const id = Uint8Array.from({ length: 32 }, (_, i) => 255 - i)
    assert.deepEqual(idFromString(idToString(id)), id)
    const short = Uint8Array.from({ length: 20 }, (_, i) => i * 11)
    assert.deepEqual(shortIdFromString(shortIdToString(short)), short)
    const nodeId = nodeIdToString(short)
    assert.ok(nodeId.startsWith('NodeID-'))
    assert.deepEqual(nodeIdFromString(nodeId), short)
  })

  it('rejects wrong lengths, bad CB58 and missing prefixes with the reference texts', () => {
    throwsIdError(() => idFromString(''), 'base58 decoding error: zero length string')
    throwsIdError(() => idFromString('0'), "base58 decoding error: invalid base58 digit ('0')")
    throwsIdError(() => idFromString('1'), 'input string is smaller than the checksum size')
    throwsIdError(() => idFromString('11111111111111111111111111111111LpoYZ'), 'invalid input checksum')
    throwsIdError(
      () => idFromString(cb58Encode(new Uint8Array(20))),
      'invalid hash length: expected 32 bytes but got 20',
    )
    throwsIdError(
      () => shortIdFromString(cb58Encode(new Uint8Array(32))),
      'invalid hash length: expected 20 bytes but got 32',
    )
    throwsIdError(() => idToString(new Uint8Array(31)), 'invalid hash length: expected 32 bytes but got 31')
    throwsIdError(() => nodeIdToString(new Uint8Array(21)), 'invalid hash length: expected 20 bytes but got 21')
    throwsIdError(
      () => nodeIdFromString('111111111111111111116DBWJs'),
      'ID: 111111111111111111116DBWJs is missing the prefix: NodeID-',
    )
    throwsIdError(() => nodeIdFromString(''), 'ID:  is missing the prefix: NodeID-')
    throwsIdError(() => nodeIdFromString('NodeID-'), 'base58 decoding error: zero length string')
    throwsIdError(
      () => nodeIdFromString(`NodeID-${cb58Encode(new Uint8Array(32))}`),
      'invalid hash length: expected 20 bytes but got 32',
    )
  })

  it('derives the NodeID as RIPEMD-160(SHA-256(cert DER)), checked with node:crypto', () => {
    const der = pemDecodeAll(newStakingPems().certPem)[0]?.bytes
    assert.ok(der)
    const sha = createHash('sha256').update(der).digest()
    const expected = new Uint8Array(createHash('ripemd160').update(sha).digest())
    assert.deepEqual(nodeIdBytesFromCertDer(der), expected)
    assert.equal(nodeIdFromCertDer(der), `NodeID-${cb58Encode(expected)}`)
  })
})
