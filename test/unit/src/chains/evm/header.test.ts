import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { RLP } from '@ethereumjs/rlp'
import {
  type AvaHeader,
  BLACKHOLE,
  decodeBlock,
  decodeHeader,
  EMPTY_EXT_DATA_HASH,
  encodeBlock,
  encodeHeader,
  headerHash,
} from '../../../../../src/chains/evm/header.js'

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex')
const fill = (n: number, v: number): Uint8Array => new Uint8Array(n).fill(v)

function graniteHeader(): AvaHeader {
  return {
    parentHash: fill(32, 1),
    uncleHash: fill(32, 2),
    coinbase: BLACKHOLE,
    stateRoot: fill(32, 3),
    txRoot: fill(32, 4),
    receiptRoot: fill(32, 5),
    bloom: fill(256, 0),
    difficulty: 1n,
    number: 7n,
    gasLimit: 10_000_000n,
    gasUsed: 21_000n,
    time: 1_763_568_001n,
    extra: fill(24, 9),
    mixDigest: fill(32, 0),
    nonce: fill(8, 0),
    extDataHash: EMPTY_EXT_DATA_HASH,
    baseFee: 1n,
    extDataGasUsed: 0n,
    blockGasCost: 0n,
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    parentBeaconRoot: fill(32, 0),
    timeMilliseconds: 1_763_568_001_234n,
    minDelayExcess: 7_970_124n,
  }
}

function legacyHeader(): AvaHeader {
  const { baseFee, extDataGasUsed, blockGasCost, blobGasUsed, excessBlobGas, parentBeaconRoot, ...rest } =
    graniteHeader()
  const { timeMilliseconds, minDelayExcess, ...base } = rest
  return base
}

describe('header RLP', () => {
  it('has the reference constants', () => {
    assert.equal(hex(EMPTY_EXT_DATA_HASH), '56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421')
    assert.equal(hex(BLACKHOLE), '0100000000000000000000000000000000000000')
  })

  it('round-trips a Granite header with all 24 fields in the reference order', () => {
    const h = graniteHeader()
    const rlp = encodeHeader(h)
    const items = RLP.decode(rlp) as Uint8Array[]
    assert.equal(items.length, 24)
    assert.equal(hex(items[15]!), hex(EMPTY_EXT_DATA_HASH)) // extDataHash between nonce and baseFee
    assert.equal(hex(items[16]!), '01') // baseFee
    assert.equal(hex(items[23]!), '799d4c') // minDelayExcess
    assert.deepEqual(decodeHeader(rlp), h)
    assert.equal(hex(headerHash(h)), hex(headerHash(decodeHeader(rlp))))
  })

  it('round-trips a header without the optional tail (16 fields)', () => {
    const h = legacyHeader()
    const rlp = encodeHeader(h)
    assert.equal((RLP.decode(rlp) as Uint8Array[]).length, 16)
    assert.deepEqual(decodeHeader(rlp), h)
  })

  it('stops the optional tail at the first absent field', () => {
    const h: AvaHeader = { ...legacyHeader(), baseFee: 5n, blockGasCost: 3n }
    assert.equal((RLP.decode(encodeHeader(h)) as Uint8Array[]).length, 17)
  })

  it('rejects malformed header RLP with clear errors', () => {
    const good = encodeHeader(graniteHeader())
    assert.throws(() => decodeHeader(good.subarray(0, good.length - 1)), /invalid header RLP/)
    assert.throws(() => decodeHeader(Uint8Array.of(0x80)), /expected an RLP list/)
    assert.throws(() => decodeHeader(RLP.encode([1, 2, 3])), /3 fields, want 16 to 24/)
    const items = RLP.decode(good) as Uint8Array[]
    assert.throws(() => decodeHeader(RLP.encode([...items, Uint8Array.of(1)])), /25 fields/)
    const shortHash = [...items]
    shortHash[0] = fill(31, 1)
    assert.throws(() => decodeHeader(RLP.encode(shortHash)), /parentHash: length 31, want 32/)
    const nonCanonical = [...items]
    nonCanonical[8] = Uint8Array.of(0, 7)
    assert.throws(() => decodeHeader(RLP.encode(nonCanonical)), /number: non-canonical integer/)
    const bigU64 = [...items]
    bigU64[9] = fill(9, 1)
    assert.throws(() => decodeHeader(RLP.encode(bigU64)), /gasLimit: integer too large/)
    const nested = [...items] as unknown[]
    nested[12] = [Uint8Array.of(1)]
    assert.throws(() => decodeHeader(RLP.encode(nested as Uint8Array[])), /extra: expected bytes/)
  })

  it('refuses to encode out-of-range values', () => {
    assert.throws(() => encodeHeader({ ...graniteHeader(), gasUsed: 1n << 64n }), /gasUsed: out of range/)
    assert.throws(() => encodeHeader({ ...graniteHeader(), coinbase: fill(19, 0) }), /coinbase: length 19/)
  })
})

describe('block RLP', () => {
  const legacyTx = RLP.encode([1n, 2n, 21000n, fill(20, 7), 0n, new Uint8Array(0), 27n, 1n, 2n])
  const typedTx = Uint8Array.of(2, ...RLP.encode([43112n, 0n, 1n, 2n, 21000n, fill(20, 7), 0n, new Uint8Array(0), []]))

  it('round-trips [header, txs, [], 0, extData] with legacy txs inline and typed txs as byte strings', () => {
    const h = graniteHeader()
    const extData = Uint8Array.of(0, 0, 1, 2)
    const rlp = encodeBlock(h, [legacyTx, typedTx], extData)
    const items = RLP.decode(rlp) as unknown[]
    assert.equal(items.length, 5)
    const txs = items[1] as unknown[]
    assert.ok(Array.isArray(txs[0]), 'a legacy tx is an inline list')
    assert.ok(txs[1] instanceof Uint8Array, 'a typed tx is a byte string')
    assert.deepEqual(items[2], [])
    assert.equal((items[3] as Uint8Array).length, 0)
    const back = decodeBlock(rlp)
    assert.deepEqual(back.header, h)
    assert.deepEqual(back.txs, [legacyTx, typedTx])
    assert.deepEqual(back.extData, extData)
  })

  it('round-trips an empty block with a long header prefix', () => {
    const back = decodeBlock(encodeBlock(graniteHeader(), [], new Uint8Array(0)))
    assert.deepEqual(back.txs, [])
    assert.equal(back.extData.length, 0)
  })

  it('rejects malformed blocks', () => {
    const h = encodeHeader(graniteHeader())
    const hItems = RLP.decode(h) as Uint8Array[]
    assert.throws(() => decodeBlock(RLP.encode([hItems, [], [], 0])), /list of 5 items/)
    assert.throws(() => decodeBlock(RLP.encode([hItems, [], [], 1, new Uint8Array(0)])), /version must be 0/)
    assert.throws(() => decodeBlock(RLP.encode([hItems, [], [hItems], 0, new Uint8Array(0)])), /uncles/)
    assert.throws(() => decodeBlock(RLP.encode([hItems, Uint8Array.of(1), [], 0, new Uint8Array(0)])), /not a list/)
    assert.throws(() => decodeBlock(RLP.encode([hItems, [new Uint8Array(0)], [], 0, new Uint8Array(0)])), /transaction/)
    assert.throws(() => decodeBlock(Uint8Array.of(0xf9, 0xff)), /invalid block RLP/)
  })
})
