import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type AvaHeader, BLACKHOLE, EMPTY_EXT_DATA_HASH, headerHash } from '../../../../../../src/chains/evm/header.js'
import { encodeFeeState } from '../../../../../../src/chains/evm/rules/acp176.js'
import { EMPTY_TRIE_ROOT, EMPTY_UNCLE_HASH } from '../../../../../../src/chains/evm/rules/genesis.js'
import { blockJson, headerJson } from '../../../../../../src/chains/evm/rules/header-json.js'

const Z32 = '0x' + '00'.repeat(32)

function localBlock(): AvaHeader {
  return {
    parentHash: new Uint8Array(32).fill(0xab),
    uncleHash: EMPTY_UNCLE_HASH,
    coinbase: BLACKHOLE,
    stateRoot: new Uint8Array(32).fill(1),
    txRoot: EMPTY_TRIE_ROOT,
    receiptRoot: EMPTY_TRIE_ROOT,
    bloom: new Uint8Array(256),
    difficulty: 1n,
    number: 3n,
    gasLimit: 10_000_000n,
    gasUsed: 21_000n,
    time: 1_763_600_000n,
    extra: encodeFeeState({ capacity: 9_979_000n, excess: 21_000n, targetExcess: 0n }),
    mixDigest: new Uint8Array(32),
    nonce: new Uint8Array(8),
    extDataHash: EMPTY_EXT_DATA_HASH,
    baseFee: 1n,
    extDataGasUsed: 0n,
    blockGasCost: 0n,
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    parentBeaconRoot: new Uint8Array(32),
    timeMilliseconds: 1_763_600_000_123n,
    minDelayExcess: 7_970_124n,
  }
}

describe('header JSON', () => {
  it('newHeads: the header encoding with hash, no totalDifficulty/size/blockExtraData', () => {
    const h = localBlock()
    const j = headerJson(h, headerHash(h))
    assert.equal(j.hash, '0x' + Buffer.from(headerHash(h)).toString('hex'))
    assert.equal(j.miner, '0x0100000000000000000000000000000000000000')
    assert.equal(j.baseFeePerGas, '0x1')
    assert.equal(j.gasLimit, '0x989680')
    assert.equal(j.minDelayExcess, '0x799d4c')
    assert.equal(j.timestampMilliseconds, '0x19a9ec0647b')
    assert.equal(j.parentBeaconBlockRoot, Z32)
    assert.equal(j.nonce, '0x0000000000000000')
    assert.equal(j.extraData?.length, 2 + 48)
    for (const k of ['totalDifficulty', 'size', 'blockExtraData', 'withdrawalsRoot']) assert.ok(!(k in j), k)
  })

  it('newHeads: absent optional fields are explicit nulls', () => {
    const {
      baseFee,
      extDataGasUsed,
      blockGasCost,
      blobGasUsed,
      excessBlobGas,
      parentBeaconRoot,
      timeMilliseconds,
      minDelayExcess,
      ...old
    } = localBlock()
    const j = headerJson(old, headerHash(old))
    for (const k of [
      'baseFeePerGas',
      'extDataGasUsed',
      'blockGasCost',
      'blobGasUsed',
      'excessBlobGas',
      'parentBeaconBlockRoot',
      'timestampMilliseconds',
      'minDelayExcess',
    ]) {
      assert.equal(j[k], null, k)
    }
  })

  it('eth_getBlockBy*: sorted keys, Avalanche fields, totalDifficulty = number, no withdrawals', () => {
    const h = localBlock()
    const j = blockJson(h, headerHash(h), 700n, ['0x' + '12'.repeat(32)], new Uint8Array(0))
    const keys = Object.keys(j)
    assert.deepEqual(keys, [...keys].sort())
    assert.equal(j.totalDifficulty, '0x3')
    assert.equal(j.size, '0x2bc')
    assert.equal(j.blockExtraData, '0x')
    assert.equal(j.extDataHash, '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421')
    assert.equal(j.blockGasCost, '0x0')
    assert.equal(j.extDataGasUsed, '0x0')
    assert.equal(j.difficulty, '0x1')
    assert.deepEqual(j.uncles, [])
    assert.deepEqual(j.transactions, ['0x' + '12'.repeat(32)])
    assert.ok(!('withdrawals' in j) && !('withdrawalsRoot' in j))
    assert.equal(keys.length, 30)
    const {
      baseFee,
      extDataGasUsed,
      blockGasCost,
      blobGasUsed,
      excessBlobGas,
      parentBeaconRoot,
      timeMilliseconds,
      minDelayExcess,
      ...old
    } = h
    const o = blockJson(old, headerHash(old), 1n, [], Uint8Array.of(1))
    assert.ok(!('baseFeePerGas' in o) && !('minDelayExcess' in o), 'absent fields are omitted')
    assert.equal(o.blockExtraData, '0x01')
  })
})
