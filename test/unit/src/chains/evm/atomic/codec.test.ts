import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { sha256 } from '@noble/hashes/sha2.js'
import {
  decodeTx,
  decodeTxBatch,
  decodeUnsignedTx,
  decodeUtxo,
  encodeTx,
  encodeTxBatch,
  encodeUnsignedTx,
  encodeUtxo,
  MAX_CODEC_SIZE,
} from '../../../../../../src/chains/evm/atomic/codec.js'
import { AtomicError } from '../../../../../../src/chains/evm/atomic/errors.js'
import { burned, dynamicFee, effectiveGasPrice, gasUsed } from '../../../../../../src/chains/evm/atomic/fees.js'
import {
  decodedOf,
  decodeSignedTx,
  exportInputIdOf,
  idCb58,
  inputIdsOf,
  utxoIdOf,
  utxoIdText,
} from '../../../../../../src/chains/evm/atomic/ids.js'
import { txJson } from '../../../../../../src/chains/evm/atomic/json.js'
import { evmAddressOfKey, shortAddressOfKey, signTx } from '../../../../../../src/chains/evm/atomic/sign.js'
import type { AtomicTx, Utxo } from '../../../../../../src/chains/evm/atomic/types.js'
import { EWOQ_EVM, EWOQ_KEY, exportTx, importTx, LOCAL, txId } from './fixtures.js'

const throwsCodec = (fn: () => unknown, message: string): void => {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof AtomicError, String(err))
    assert.equal(err.message, message)
    assert.equal(err.reason, 'codec')
    return true
  })
}

describe('atomic codec', () => {
  it('has the reference sizes: 230 unsigned bytes for a 1-in 1-out import or export', () => {
    assert.equal(encodeUnsignedTx(importTx()).length, 230)
    assert.equal(encodeUnsignedTx(exportTx()).length, 230)
  })

  it('lays out an import as the reference: version, type 0, fields, creds', () => {
    const bytes = encodeTx(signTx(importTx(), [[EWOQ_KEY]]))
    const hex = Buffer.from(bytes).toString('hex')
    assert.equal(hex.slice(0, 12), '000000000000') // version 0, type ID 0
    assert.equal(hex.slice(12, 20), (12345).toString(16).padStart(8, '0'))
    // after the 230 unsigned bytes: 1 credential of type 9 with 1 signature of 65 bytes
    assert.equal(hex.slice(460, 460 + 24), '000000010000000900000001')
    assert.equal(bytes.length, 230 + 4 + 4 + 4 + 65)
  })

  it('round-trips signed and unsigned txs, UTXOs and batches', () => {
    for (const unsigned of [importTx(), exportTx()]) {
      const tx = signTx(unsigned, [[EWOQ_KEY]])
      const bytes = encodeTx(tx)
      assert.deepEqual(decodeTx(bytes), tx)
      assert.deepEqual(encodeTx(decodeTx(bytes)), bytes)
      assert.deepEqual(decodeUnsignedTx(encodeUnsignedTx(unsigned)), unsigned)
      const decoded = decodeSignedTx(bytes)
      assert.deepEqual(decoded.unsignedBytes, encodeUnsignedTx(unsigned))
      assert.equal(decoded.id.length, 66)
    }
    const utxo: Utxo = {
      txId,
      outputIndex: 7,
      assetId: LOCAL.avaxAssetId,
      output: { amount: 1n, locktime: 2n, threshold: 1, addresses: [shortAddressOfKey(EWOQ_KEY)] },
    }
    const ub = encodeUtxo(utxo)
    assert.equal(ub.length, 2 + 32 + 4 + 32 + 4 + 8 + 8 + 4 + 4 + 20)
    assert.deepEqual(decodeUtxo(ub), utxo)
    const txs: AtomicTx[] = [signTx(importTx(), [[EWOQ_KEY]]), signTx(exportTx(), [[EWOQ_KEY]])]
    const batch = encodeTxBatch(txs)
    assert.deepEqual(decodeTxBatch(batch), txs)
    assert.deepEqual(decodeTxBatch(new Uint8Array(0)), [])
    assert.deepEqual(decodedOf(txs[1] as AtomicTx), decodeSignedTx(encodeTx(txs[1] as AtomicTx)))
    throwsCodec(
      () => decodeTxBatch(batch.subarray(0, 10)),
      "failed to unmarshal atomic tx (AP5) due to couldn't unmarshal uint32: packer has insufficient length for input",
    )
    throwsCodec(
      () => decodeTxBatch(encodeTxBatch([])),
      'cannot build a block with non-empty extra data and zero atomic transactions',
    )
  })

  it('counts gas and burn as the reference (11,230 gas; 280,750 nAVAX at 25 gwei; 1 nAVAX at 1 wei)', () => {
    assert.equal(gasUsed(importTx()), 11_230n)
    assert.equal(gasUsed(exportTx()), 11_230n)
    assert.equal(gasUsed(exportTx(), false), 1_230n)
    assert.equal(dynamicFee(11_230n, 25_000_000_000n), 280_750n)
    assert.equal(dynamicFee(11_230n, 1n), 1n)
    assert.equal(burned(importTx(), LOCAL.avaxAssetId), 1_000_000n)
    assert.equal(burned(importTx(), txId), 0n)
    assert.equal(effectiveGasPrice(importTx(), LOCAL.avaxAssetId), (1_000_000n * 1_000_000_000n) / 11_230n)
    const over = importTx()
    ;(over.outputs[0] as { amount: bigint }).amount = 6_000_000n
    assert.throws(
      () => burned(over, LOCAL.avaxAssetId),
      (e: unknown) => e instanceof AtomicError && e.message === 'underflow',
    )
  })

  it('computes UTXO IDs and export input IDs as the reference', () => {
    const id = utxoIdOf(LOCAL.pChainId, 0)
    // sha256(8 zero bytes ‖ 32 zero bytes)
    assert.equal(id, '0x' + Buffer.from(sha256(new Uint8Array(40))).toString('hex'))
    assert.equal(utxoIdText(LOCAL.pChainId, 3), '11111111111111111111111111111111LpoYY:3')
    assert.equal(idCb58(LOCAL.pChainId), '11111111111111111111111111111111LpoYY')
    const conflict = exportInputIdOf({ address: EWOQ_EVM, amount: 1n, assetId: LOCAL.avaxAssetId, nonce: 258n })
    assert.equal(conflict, `0x${'0000000000000102'}00000014${EWOQ_EVM.slice(2)}`)
    assert.deepEqual(inputIdsOf(importTx()), [utxoIdOf(txId, 1)])
    assert.equal(evmAddressOfKey(EWOQ_KEY), EWOQ_EVM)
  })

  it('refuses malformed bytes with the reference texts', () => {
    const good = encodeTx(signTx(importTx(), [[EWOQ_KEY]]))
    throwsCodec(() => decodeTx(new Uint8Array(0)), "couldn't unpack codec version")
    throwsCodec(() => decodeTx(Uint8Array.of(0)), "couldn't unpack codec version")
    throwsCodec(() => decodeTx(Uint8Array.of(0, 1, 0, 0, 0, 0)), 'unknown codec version')
    throwsCodec(
      () => decodeTx(Uint8Array.of(0, 0)),
      "couldn't unmarshal interface: packer has insufficient length for input",
    )
    throwsCodec(() => decodeTx(Uint8Array.of(0, 0, 0, 0, 0, 3)), "couldn't unmarshal interface: unknown type ID 3")
    throwsCodec(
      () => decodeTx(Uint8Array.of(0, 0, 0, 0, 0, 7)),
      "couldn't unmarshal interface: *secp256k1fx.TransferOutput does not implement interface atomic.UnsignedAtomicTx",
    )
    throwsCodec(
      () => decodeTx(Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0)),
      "couldn't unmarshal uint32: packer has insufficient length for input",
    )
    throwsCodec(() => decodeTx(good.slice(0, 20)), 'packer has insufficient length for input')
    throwsCodec(() => decodeTx(good.slice(0, good.length - 1)), 'packer has insufficient length for input')
    throwsCodec(
      () => decodeTx(Buffer.concat([good, Uint8Array.of(0)])),
      `trailing buffer space: read ${good.length} provided ${good.length + 1}`,
    )
    const big = new Uint8Array(MAX_CODEC_SIZE + 1)
    throwsCodec(() => decodeTx(big), `byte array exceeds maximum length: ${MAX_CODEC_SIZE + 1} > 262144`)
    // a huge count is read lazily: the bytes run out
    const unsignedExport = encodeUnsignedTx(exportTx())
    const huge = Buffer.from(unsignedExport.slice(0, 2 + 4 + 4 + 32 + 32 + 4))
    huge.writeUInt32BE(0x7fffffff, 2 + 4 + 4 + 32 + 32)
    throwsCodec(() => decodeTx(huge), 'packer has insufficient length for input')
    huge.writeUInt32BE(0x80000000, 2 + 4 + 4 + 32 + 32)
    throwsCodec(
      () => decodeTx(huge),
      'max slice length exceeded; array length, 2147483648, exceeds maximum length, 2147483647',
    )
    // the input's type must be a TransferInput
    const wrongIn = Buffer.from(good)
    wrongIn.writeUInt32BE(7, 2 + 4 + 4 + 32 + 32 + 4 + 32 + 4 + 32)
    throwsCodec(
      () => decodeTx(wrongIn),
      "couldn't unmarshal interface: *secp256k1fx.TransferOutput does not implement interface avax.TransferableIn",
    )
    // a UTXO's output must be a TransferOutput
    const utxo = encodeUtxo({
      txId,
      outputIndex: 0,
      assetId: txId,
      output: { amount: 1n, locktime: 0n, threshold: 0, addresses: [] },
    })
    Buffer.from(utxo.buffer).writeUInt32BE(11, 2 + 32 + 4 + 32)
    throwsCodec(
      () => decodeUtxo(utxo),
      "couldn't unmarshal interface: *secp256k1fx.OutputOwners does not implement interface verify.State",
    )
  })

  it('never crashes: every one-byte change and every truncation decodes or fails with an AtomicError', () => {
    for (const good of [encodeTx(signTx(importTx(), [[EWOQ_KEY]])), encodeTx(signTx(exportTx(), [[EWOQ_KEY]]))]) {
      for (let i = 0; i < good.length; i++) {
        for (const value of [0x00, 0x01, 0x07, 0x7f, 0xff]) {
          const bytes = Uint8Array.from(good)
          bytes[i] = value
          try {
            const tx = decodeTx(bytes)
            assert.deepEqual(encodeTx(tx), bytes)
          } catch (err) {
            assert.ok(err instanceof AtomicError, `byte ${i} = ${value}: ${String(err)}`)
          }
        }
        assert.throws(() => decodeTx(good.subarray(0, i)), AtomicError)
        assert.throws(() => decodeUtxo(good.subarray(0, i)), AtomicError)
      }
    }
  })

  it('refuses to write more than the codec maximum', () => {
    const tx = exportTx()
    const out = tx.exportedOutputs[0] as (typeof tx.exportedOutputs)[number]
    tx.exportedOutputs = Array.from({ length: 3300 }, () => out)
    throwsCodec(() => encodeUnsignedTx(tx), 'size is larger than limit')
  })

  it('gives a JSON view with CB58 IDs and decimal-string amounts', () => {
    const tx = signTx(exportTx(), [[EWOQ_KEY]])
    const view = txJson(tx, decodeSignedTx(encodeTx(tx)).id) as { id: string; unsignedTx: Record<string, unknown> }
    assert.equal(view.unsignedTx.blockchainID, '2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC')
    assert.deepEqual(view.unsignedTx.inputs, [
      {
        address: EWOQ_EVM,
        amount: '5000000',
        assetID: '2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe',
        nonce: '3',
      },
    ])
    assert.deepEqual((view.unsignedTx.exportedOutputs as Record<string, unknown>[])[0]?.output, {
      addresses: ['6Y3kysjF9jnHnYkdS9yGAuoHyae2eNmeV'],
      locktime: '0',
      threshold: 1,
      amount: '4000000',
    })
    assert.equal(JSON.parse(JSON.stringify(view)).id, view.id)
  })

  it('refuses values that cannot be encoded', () => {
    const tx = importTx()
    tx.networkId = -1
    throwsCodec(() => encodeUnsignedTx(tx), 'networkID must be a uint32')
    const tx2 = exportTx()
    tx2.blockchainId = '0x00'
    throwsCodec(() => encodeUnsignedTx(tx2), 'blockchainID must be 32 bytes as 0x-prefixed hex')
    const tx3 = exportTx()
    ;(tx3.inputs[0] as { amount: bigint }).amount = 1n << 64n
    throwsCodec(() => encodeUnsignedTx(tx3), 'EVM input amount must be a uint64')
  })
})
