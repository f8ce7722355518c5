import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Hardfork } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { type AccessList, createTx, createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx'
import { concatBytes, type EOACode7702AuthorizationList } from '@ethereumjs/util'
import { decodeRawTransaction } from '../../../../../../src/chains/evm/api/exec-rawtx.js'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'
import { fastEcrecover } from '../../../../../../src/chains/evm/exec/native-crypto.js'
import { unsignedPart } from '../../../../../../src/chains/evm/exec/signing-message.js'
import { presetEncoding } from '../../../../../../src/chains/evm/exec/tx-sender.js'
import { countCalls } from '../../../../../helpers/count-calls.js'
import { addressOf, CHAIN_ID, key, transfer } from './fixtures.js'

describe('tx sender', () => {
  it('is recovered once per frozen tx, afresh for an unfrozen one, and callers get their own copy', () => {
    let recoveries = 0
    const common = createEvmCommon(CHAIN_ID, {
      ecrecover: (...args) => {
        recoveries++
        return fastEcrecover(...args)
      },
    })
    const raw = transfer(common, 2, 0n, addressOf(5).bytes).serialize()
    const frozen = createTxFromRLP(raw, { common })
    recoveries = 0
    const a = frozen.getSenderAddress()
    const b = frozen.getSenderAddress()
    assert.equal(recoveries, 1)
    assert.equal(a.toString(), addressOf(2).toString())
    a.bytes.fill(0)
    assert.equal(b.toString(), addressOf(2).toString())
    assert.equal(frozen.getSenderAddress().toString(), addressOf(2).toString(), 'a changed copy changes nothing')
    const open = createTxFromRLP(raw, { common, freeze: false })
    open.getSenderAddress()
    open.getSenderAddress()
    assert.equal(recoveries, 3)
  })
  it('encodes a frozen tx once, an unfrozen one afresh, and callers get their own copy', () => {
    const common = createEvmCommon(CHAIN_ID)
    const raw = transfer(common, 2, 0n, addressOf(5).bytes).serialize()
    const frozen = createTxFromRLP(raw, { common })
    // ethereumjs builds the field list (raw()) for every encoding it makes
    const encoded = countCalls(Object.getPrototypeOf(frozen), 'raw')
    try {
      for (let i = 0; i < 3; i++) frozen.serialize()
      assert.equal(encoded.count, 1)
    } finally {
      encoded.restore()
    }
    const a = frozen.serialize()
    assert.deepEqual(a, raw)
    a.fill(0)
    assert.deepEqual(frozen.serialize(), raw, 'a changed copy changes nothing')
    assert.notEqual(frozen.serialize(), frozen.serialize())
    const open = createTxFromRLP(raw, { common, freeze: false }) as unknown as {
      serialize(): Uint8Array
      nonce: bigint
    }
    assert.deepEqual(open.serialize(), raw)
    open.nonce = 7n
    assert.notDeepEqual(open.serialize(), raw, 'an unfrozen tx is encoded as it is now')
  })

  it("cuts a typed tx's signing message from its encoding: ethereumjs' own bytes for every type, data and list size", () => {
    const prague = createEvmCommon(CHAIN_ID)
    prague.setHardfork(Hardfork.Prague)
    const to = addressOf(5).bytes
    const accessList: AccessList = [
      { address: addressOf(6).toString(), storageKeys: [`0x${'11'.repeat(32)}`, `0x${'22'.repeat(32)}`] },
    ]
    const authorizationList: EOACode7702AuthorizationList = [
      { chainId: '0x0', address: addressOf(7).toString(), nonce: '0x0', yParity: '0x0', r: '0x01', s: '0x01' },
    ]
    const made: TypedTransaction[] = []
    for (const size of [0, 1, 20, 21, 22, 55, 56, 300]) {
      // a single byte under 0x80 is its own encoding; 20-22 bytes of data put a type-2 message list at 54-56
      // bytes, either side of RLP's long-length form (as 55 and 56 bytes of data do for the data itself)
      const data = new Uint8Array(size).fill(size === 1 ? 0x05 : 0xab)
      const base = { chainId: CHAIN_ID, nonce: BigInt(size), to, value: 1n, gasLimit: 90_000n, data }
      const fee = { maxFeePerGas: 10n, maxPriorityFeePerGas: 2n }
      made.push(createTx({ ...base, type: 1, gasPrice: 10n, accessList }, { common: prague }))
      made.push(createTx({ ...base, type: 2, ...fee }, { common: prague }))
      made.push(createTx({ ...base, type: 2, ...fee, accessList }, { common: prague }))
      made.push(createTx({ ...base, type: 4, ...fee, accessList, authorizationList }, { common: prague }))
    }
    for (const unsigned of made) {
      for (const tx of [unsigned.sign(key(1)), unsigned]) {
        const expected = concatBytes(Uint8Array.of(tx.type), RLP.encode(tx.raw().slice(0, -3) as Uint8Array[]))
        const frozen = createTxFromRLP(tx.serialize(), { common: prague })
        assert.deepEqual(frozen.getMessageToSign(), expected, `type ${tx.type}, ${tx.data.length} bytes of data`)
        assert.deepEqual(unsignedPart(tx.serialize()), expected)
        if (tx.isSigned()) assert.equal(frozen.getSenderAddress().toString(), addressOf(1).toString())
      }
    }
  })

  it("keeps a strictly decoded client tx's bytes as its encoding: ethereumjs' own bytes and hash, never encoded", () => {
    const prague = createEvmCommon(CHAIN_ID)
    prague.setHardfork(Hardfork.Prague)
    const to = addressOf(5).bytes
    const accessList: AccessList = [{ address: addressOf(6).toString(), storageKeys: [`0x${'11'.repeat(32)}`] }]
    const made: TypedTransaction[] = []
    for (const size of [0, 1, 56, 300]) {
      const data = new Uint8Array(size).fill(size === 1 ? 0x05 : 0xab)
      const base = { nonce: BigInt(size), value: BigInt(size) * 10n ** 18n, gasLimit: 90_000n, data }
      const fee = { maxFeePerGas: 10n ** 12n, maxPriorityFeePerGas: 0n }
      made.push(createTx({ ...base, to, type: 0, gasPrice: 10n ** 11n }, { common: prague }))
      made.push(createTx({ ...base, to, type: 1, gasPrice: 1n, accessList, chainId: CHAIN_ID }, { common: prague }))
      made.push(createTx({ ...base, to, type: 2, ...fee, chainId: CHAIN_ID }, { common: prague }))
      made.push(createTx({ ...base, type: 2, ...fee, accessList, chainId: CHAIN_ID }, { common: prague }))
    }
    for (const unsigned of made) {
      const raw = unsigned.sign(key(1)).serialize()
      const fresh = createTxFromRLP(raw, { common: prague, freeze: false })
      const [bytes, hash] = [fresh.serialize(), fresh.hash()]
      const decoded = decodeRawTransaction(raw, prague)
      const encoded = countCalls(Object.getPrototypeOf(decoded), 'raw')
      try {
        assert.deepEqual(decoded.serialize(), bytes, `type ${decoded.type}, ${decoded.data.length} bytes of data`)
        assert.deepEqual(decoded.hash(), hash)
        assert.equal(encoded.count, 0, 'the bytes it was decoded from, not a new encoding')
      } finally {
        encoded.restore()
      }
      assert.equal(decoded.getSenderAddress().toString(), addressOf(1).toString())
      decoded.serialize().fill(0)
      raw.fill(0)
      assert.deepEqual(decoded.serialize(), bytes, "neither the caller's bytes nor a copy change it")
    }
  })

  it('keeps no preset bytes for an unfrozen tx or one whose encoding is known', () => {
    const common = createEvmCommon(CHAIN_ID)
    const raw = transfer(common, 2, 0n, addressOf(5).bytes).serialize()
    const other = transfer(common, 2, 1n, addressOf(5).bytes).serialize()
    const open = createTxFromRLP(raw, { common, freeze: false })
    presetEncoding(open, other)
    assert.deepEqual(open.serialize(), raw, 'an unfrozen tx is encoded as it is')
    const frozen = createTxFromRLP(raw, { common })
    frozen.serialize()
    presetEncoding(frozen, other)
    assert.deepEqual(frozen.serialize(), raw, 'the encoding kept first stays')
  })

  it('cuts without encoding the fields again, and only what is a typed encoding', () => {
    const common = createEvmCommon(CHAIN_ID)
    const frozen = createTxFromRLP(transfer(common, 2, 0n, addressOf(5).bytes).serialize(), { common })
    const encoded = countCalls(Object.getPrototypeOf(frozen), 'raw')
    try {
      frozen.serialize()
      frozen.getHashedMessageToSign()
      frozen.getMessageToSign()
      assert.equal(encoded.count, 1, 'the one encoding serialize() keeps')
    } finally {
      encoded.restore()
    }
    // a blob tx (type 3) cannot be made here without kzg: its 14 fields less v, r and s, as a list
    const fields = Array.from({ length: 14 }, (_, i) => new Uint8Array(i * 9).fill(i))
    const blob = concatBytes(Uint8Array.of(3), RLP.encode(fields))
    assert.deepEqual(unsignedPart(blob), concatBytes(Uint8Array.of(3), RLP.encode(fields.slice(0, 11))))
    for (const bad of [
      new Uint8Array(0),
      Uint8Array.of(2),
      Uint8Array.of(2, 0x80),
      Uint8Array.of(2, 0xc3, 1, 2),
      Uint8Array.of(2, 0xc2, 1, 2),
      Uint8Array.of(2, 0xc3, 1, 2, 3, 4),
      Uint8Array.of(2, 0xc3, 0x82, 1, 2),
      Uint8Array.of(2, 0xf8),
    ]) {
      assert.equal(unsignedPart(bad), undefined, `${bad}`)
    }
  })
})
