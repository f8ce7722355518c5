/**
 * Cross-checks with avalanchejs 5.2.0 (the library wallets build atomic txs with): what it builds and signs,
 * Firn decodes to the same fields, ID and signers; what Firn encodes, it decodes to the same fields and writes
 * back to the same bytes; UTXOs both ways.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { describe, it } from 'node:test'
import { formatLocalAddress, parseLocalAddress } from '../../../../../../src/chains/evm/atomic/address.js'
import { decodeTx, decodeUtxo, encodeTx, encodeUtxo } from '../../../../../../src/chains/evm/atomic/codec.js'
import { burned, dynamicFee, gasUsed } from '../../../../../../src/chains/evm/atomic/fees.js'
import { toHex } from '../../../../../../src/chains/evm/atomic/hex.js'
import { decodeSignedTx, idCb58, utxoIdOf } from '../../../../../../src/chains/evm/atomic/ids.js'
import {
  recoverEvmAddress,
  recoverSigners,
  shortAddressOfKey,
  signingHash,
  signTx,
} from '../../../../../../src/chains/evm/atomic/sign.js'
import type {
  AtomicTx,
  TransferOutput as FirnTransferOutput,
  Utxo as FirnUtxo,
  UnsignedAtomicTx,
} from '../../../../../../src/chains/evm/atomic/types.js'
import { verifySyntax } from '../../../../../../src/chains/evm/atomic/verify.js'
import {
  ajs,
  type Context,
  type ExportTx,
  type ImportTx,
  type SignedTx,
  type TransferOutput,
  type Utxo,
} from '../../../../../helpers/avalanchejs.js'
import { EWOQ_EVM, EWOQ_KEY, LOCAL } from './fixtures.js'

const { Address, BigIntPr, Id, Int, OutputOwners, avaxSerial, evm, evmSerial, addTxSignatures, utils } = ajs

const context: Context = {
  networkID: LOCAL.networkId,
  hrp: 'local',
  xBlockchainID: idCb58(LOCAL.xChainId),
  pBlockchainID: idCb58(LOCAL.pChainId),
  cBlockchainID: idCb58(LOCAL.cChainId),
  avaxAssetID: idCb58(LOCAL.avaxAssetId),
  baseTxFee: 1_000_000n,
  createAssetTxFee: 10_000_000n,
}

const manager = utils.getManagerForVM('EVM')
const codec = manager.getDefaultCodec()
const hex = (b: Uint8Array): string => toHex(b)
const EWOQ_SHORT = shortAddressOfKey(EWOQ_KEY)
const bytesOf = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.slice(2), 'hex'))

/** An avalanchejs TransferOutput in Firn's shape. */
function firnOutput(out: TransferOutput): FirnTransferOutput {
  return {
    amount: out.amt.value(),
    locktime: out.outputOwners.locktime.value(),
    threshold: out.outputOwners.threshold.value(),
    addresses: out.outputOwners.addrs.map((a) => hex(a.toBytes())),
  }
}

/** An avalanchejs signed EVM tx in Firn's shape (field by field, through avalanchejs's own accessors). */
function firnTx(signed: SignedTx): AtomicTx {
  const u = signed.unsignedTx as ImportTx | ExportTx
  let unsigned: UnsignedAtomicTx
  if (u instanceof evmSerial.ImportTx) {
    unsigned = {
      type: 'import',
      networkId: u.networkId.value(),
      blockchainId: hex(u.blockchainId.toBytes()),
      sourceChain: hex(u.sourceChain.toBytes()),
      importedInputs: u.importedInputs.map((i) => ({
        txId: hex(i.utxoID.txID.toBytes()),
        outputIndex: i.utxoID.outputIdx.value(),
        assetId: hex(i.assetId.toBytes()),
        input: {
          amount: i.amount(),
          sigIndices: i.sigIndicies(),
        },
      })),
      outputs: u.Outs.map((o) => ({
        address: hex(o.address.toBytes()),
        amount: o.amount.value(),
        assetId: hex(o.assetId.toBytes()),
      })),
    }
  } else {
    unsigned = {
      type: 'export',
      networkId: u.networkId.value(),
      blockchainId: hex(u.blockchainId.toBytes()),
      destinationChain: hex(u.destinationChain.toBytes()),
      inputs: u.ins.map((i) => ({
        address: hex(i.address.toBytes()),
        amount: i.amount.value(),
        assetId: hex(i.assetId.toBytes()),
        nonce: i.nonce.value(),
      })),
      exportedOutputs: u.exportedOutputs.map((o) => ({
        assetId: hex(o.assetId.toBytes()),
        output: firnOutput(o.output as TransferOutput),
      })),
    }
  }
  return {
    unsigned,
    credentials: signed.getCredentials().map((c) => ({ signatures: c.getSignatures() })),
  }
}

function ajsUtxo(txIdHex: string, index: number, amount: bigint): Utxo {
  return new ajs.Utxo(
    new avaxSerial.UTXOID(Id.fromHex(txIdHex), new Int(index)),
    Id.fromString(context.avaxAssetID),
    new ajs.TransferOutput(
      new BigIntPr(amount),
      new OutputOwners(new BigIntPr(0n), new Int(1), [new Address(bytesOf(EWOQ_SHORT))]),
    ),
  )
}

const withVersion = (b: Uint8Array): Uint8Array => Uint8Array.from([0, 0, ...b])
const sha256Hex = (b: Uint8Array): string => `0x${createHash('sha256').update(b).digest('hex')}`

const syntaxCtx = {
  networkId: LOCAL.networkId,
  chainId: LOCAL.cChainId,
  avaxAssetId: LOCAL.avaxAssetId,
  xChainId: LOCAL.xChainId,
  sameSubnet: (id: string) => id === LOCAL.xChainId || id === LOCAL.pChainId,
}

describe('atomic codec against avalanchejs 5.2.0', () => {
  it('formats and parses chain addresses as avalanchejs', () => {
    const addrCtx = {
      networkId: LOCAL.networkId,
      chainId: LOCAL.cChainId,
      primaryAlias: 'C',
      lookup: (alias: string) => (alias === 'C' ? LOCAL.cChainId : LOCAL.xChainId),
    }
    for (const short of [EWOQ_SHORT, `0x${'00'.repeat(20)}`, `0x${'ff'.repeat(20)}`, `0x${'5a'.repeat(20)}`]) {
      const text = formatLocalAddress(addrCtx, short)
      assert.equal(text, utils.format('C', 'local', bytesOf(short)))
      assert.equal(parseLocalAddress(addrCtx, text), hex(utils.parse(text)[2]))
    }
  })

  it('reads and writes UTXO bytes as avalanchejs, with the same UTXO ID', () => {
    const utxo = ajsUtxo(`0x${'a1'.repeat(32)}`, 3, 123_456_789n)
    const ajsBytes = withVersion(utxo.toBytes(codec))
    const firn = decodeUtxo(ajsBytes)
    const expected: FirnUtxo = {
      txId: `0x${'a1'.repeat(32)}`,
      outputIndex: 3,
      assetId: LOCAL.avaxAssetId,
      output: { amount: 123_456_789n, locktime: 0n, threshold: 1, addresses: [EWOQ_SHORT] },
    }
    assert.deepEqual(firn, expected)
    assert.deepEqual(encodeUtxo(expected), ajsBytes)
    const back = manager.unpack(encodeUtxo(expected), ajs.Utxo) as Utxo
    assert.deepEqual(firnOutput(back.output as TransferOutput), expected.output)
    assert.equal(back.utxoId.txID.toString(), idCb58(expected.txId))
    assert.equal(idCb58(utxoIdOf(expected.txId, 3)), utxo.ID())
  })

  it('decodes an import built and signed by avalanchejs: same fields, ID and signers', async () => {
    const utxos = [ajsUtxo(`0x${'0c'.repeat(32)}`, 0, 50_000_000n), ajsUtxo(`0x${'0b'.repeat(32)}`, 1, 20_000_000n)]
    const unsignedTx = evm.newImportTxFromBaseFee(
      context,
      bytesOf(EWOQ_EVM),
      [bytesOf(EWOQ_SHORT)],
      utxos,
      context.xBlockchainID,
      25n,
    )
    await addTxSignatures({ unsignedTx, privateKeys: [EWOQ_KEY] })
    const signed = unsignedTx.getSignedTx()
    const bytes = signed.toBytes()
    const decoded = decodeSignedTx(bytes)
    assert.deepEqual(decoded.tx, firnTx(signed))
    assert.equal(decoded.id, sha256Hex(bytes))
    assert.deepEqual(decoded.unsignedBytes, unsignedTx.toBytes())
    assert.deepEqual(encodeTx(decoded.tx), bytes)
    assert.deepEqual(recoverSigners(decoded.tx), [[EWOQ_SHORT], [EWOQ_SHORT]])
    // RFC 6979 signatures are deterministic: Firn signing the same unsigned tx writes the same signed bytes
    assert.deepEqual(encodeTx(signTx(decoded.tx.unsigned, [[EWOQ_KEY], [EWOQ_KEY]])), bytes)
    assert.equal(gasUsed(decoded.tx.unsigned), BigInt(decoded.unsignedBytes.length) + 2000n + 10_000n)
    assert.equal(burned(decoded.tx.unsigned, LOCAL.avaxAssetId), gasUsed(decoded.tx.unsigned) * 25n)
    assert.equal(verifySyntax(decoded.tx.unsigned, syntaxCtx), undefined)
  })

  it('decodes an export built and signed by avalanchejs: same fields, ID and signer', async () => {
    const unsignedTx = evm.newExportTxFromBaseFee(
      context,
      25n,
      1_000_000_000n,
      context.xBlockchainID,
      bytesOf(EWOQ_EVM),
      [bytesOf(EWOQ_SHORT)],
      7n,
    )
    await addTxSignatures({ unsignedTx, privateKeys: [EWOQ_KEY] })
    const signed = unsignedTx.getSignedTx()
    const bytes = signed.toBytes()
    const decoded = decodeSignedTx(bytes)
    assert.deepEqual(decoded.tx, firnTx(signed))
    assert.equal(decoded.id, sha256Hex(bytes))
    const hash = signingHash(decoded.unsignedBytes)
    const sig = decoded.tx.credentials[0]?.signatures[0] as string
    assert.equal(recoverEvmAddress(hash, sig), EWOQ_EVM)
    assert.deepEqual(encodeTx(signTx(decoded.tx.unsigned, [[EWOQ_KEY]])), bytes)
    assert.equal(verifySyntax(decoded.tx.unsigned, syntaxCtx), undefined)
    // avalanchejs charged 25 nAVAX-per-gas x the reference's gas: 230 bytes + 1 signature + 10,000 = 11,230
    assert.equal(gasUsed(decoded.tx.unsigned), 11_230n)
    assert.equal(burned(decoded.tx.unsigned, LOCAL.avaxAssetId), 280_750n)
    assert.equal(dynamicFee(11_230n, 25_000_000_000n), 280_750n)
  })

  it('writes txs that avalanchejs decodes to the same fields and re-encodes to the same bytes', () => {
    const second = `0x${'77'.repeat(20)}`
    const txs: AtomicTx[] = [
      signTx(
        {
          type: 'import',
          networkId: LOCAL.networkId,
          blockchainId: LOCAL.cChainId,
          sourceChain: LOCAL.xChainId,
          importedInputs: [
            {
              txId: `0x${'01'.repeat(32)}`,
              outputIndex: 0,
              assetId: LOCAL.avaxAssetId,
              input: { amount: 9n, sigIndices: [0] },
            },
            {
              txId: `0x${'01'.repeat(32)}`,
              outputIndex: 4,
              assetId: LOCAL.avaxAssetId,
              input: { amount: 11n, sigIndices: [0, 1] },
            },
          ],
          outputs: [
            { address: second, amount: 3n, assetId: LOCAL.avaxAssetId },
            { address: EWOQ_EVM, amount: 5n, assetId: LOCAL.avaxAssetId },
          ].sort((a, b) => (a.address < b.address ? -1 : 1)),
        },
        [[EWOQ_KEY], [EWOQ_KEY, EWOQ_KEY]],
      ),
      signTx(
        {
          type: 'export',
          networkId: LOCAL.networkId,
          blockchainId: LOCAL.cChainId,
          destinationChain: LOCAL.pChainId,
          inputs: [{ address: EWOQ_EVM, amount: 1_000_001n, assetId: LOCAL.avaxAssetId, nonce: 42n }],
          exportedOutputs: [
            {
              assetId: LOCAL.avaxAssetId,
              output: { amount: 1_000_000n, locktime: 9n, threshold: 2, addresses: [EWOQ_SHORT, second].sort() },
            },
          ],
        },
        [[EWOQ_KEY]],
      ),
    ]
    for (const tx of txs) {
      const bytes = encodeTx(tx)
      const back = manager.unpack(bytes, avaxSerial.SignedTx) as SignedTx
      assert.deepEqual(firnTx(back), tx)
      assert.deepEqual(back.toBytes(), bytes)
      assert.deepEqual(decodeTx(bytes), tx)
    }
  })
})
