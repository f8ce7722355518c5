/**
 * The signed block container: round trips, strict bounded decoding, and the proposer signature binding the block
 * ID and the chain ID to the staking certificate's NodeID (the reference's local staker keys).
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import {
  decodeSignedBlock,
  encodeSignedBlock,
  SignedBlockError,
  signBlock,
  signerOf,
} from '../../../../../src/chains/snowman/signed-block.js'
import { stakingIdentityFromPem } from '../../../../../src/identity/staking.js'
import { LOCAL_GENESIS_VALIDATORS } from '../../../../../src/network/validators.js'

const FIXTURES = join(import.meta.dirname, '../../../../fixtures/staking')
const staker = (i: number) =>
  stakingIdentityFromPem(
    readFileSync(join(FIXTURES, `staker${i}.key`), 'utf8'),
    readFileSync(join(FIXTURES, `staker${i}.crt`), 'utf8'),
  )
const chainA = new Uint8Array(32).fill(7)
const chainB = new Uint8Array(32).fill(8)
const blockId = new Uint8Array(32).fill(1)
const inner = Uint8Array.from([0xc0, 1, 2, 3])

describe('signed block container', () => {
  it('round trips signed and unsigned containers', () => {
    const signed = signBlock(staker(1), chainA, blockId, inner)
    const back = decodeSignedBlock(encodeSignedBlock(signed))
    assert.deepEqual(back.block, inner)
    assert.deepEqual(back.certificate, signed.certificate)
    assert.deepEqual(back.signature, signed.signature)
    const empty = new Uint8Array(0)
    const unsigned = decodeSignedBlock(encodeSignedBlock({ block: inner, certificate: empty, signature: empty }))
    assert.equal(signerOf(unsigned, chainA, blockId), undefined)
  })

  it('names the signing staker', () => {
    for (const i of [1, 3]) {
      const signed = signBlock(staker(i), chainA, blockId, inner)
      assert.equal(signerOf(signed, chainA, blockId), LOCAL_GENESIS_VALIDATORS[i - 1])
    }
  })

  it('refuses a signature over another block or another chain, and a swapped certificate', () => {
    const signed = signBlock(staker(1), chainA, blockId, inner)
    assert.throws(() => signerOf(signed, chainB, blockId), SignedBlockError)
    assert.throws(() => signerOf(signed, chainA, new Uint8Array(32).fill(2)), SignedBlockError)
    const swapped = { ...signed, certificate: staker(2).certDer }
    assert.throws(() => signerOf(swapped, chainA, blockId), /invalid proposer signature/)
    const junkCert = { ...signed, certificate: Uint8Array.from([1, 2, 3]) }
    assert.throws(() => signerOf(junkCert, chainA, blockId), /invalid proposer certificate/)
  })

  it('decodes strictly', () => {
    const good = encodeSignedBlock(signBlock(staker(1), chainA, blockId, inner))
    assert.throws(() => decodeSignedBlock(new Uint8Array(0)), SignedBlockError)
    assert.throws(() => decodeSignedBlock(Uint8Array.from([9, ...good.subarray(1)])), /version/)
    assert.throws(() => decodeSignedBlock(good.subarray(0, good.length - 1)), /truncated/)
    assert.throws(() => decodeSignedBlock(Uint8Array.from([...good, 0])), /trailing/)
    // a certificate without a signature
    const half = encodeSignedBlock({ block: inner, certificate: staker(1).certDer, signature: new Uint8Array(0) })
    assert.throws(() => decodeSignedBlock(half), /both a certificate and a signature/)
    // a length prefix claiming more than the cap
    assert.throws(() => decodeSignedBlock(Uint8Array.from([0, 0xff, 0xff, 0xff, 0x7f])), /too large|truncated/)
  })
})
