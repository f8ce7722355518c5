/**
 * Atomic txs through Firn's EVM as a chain VM, on two real chains (memory-level, shared memory in the same
 * database): one node admits and builds, the other verifies and accepts the same bytes. Checks the block's
 * extData commitments, the EVM credit and debit, the shared-memory changes and the index in the accept batch,
 * statuses, a rejected block's txs waiting again, and the verifier refusing a block whose import lost its UTXO.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Address } from '@ethereumjs/util'
import { encodeTx, encodeUtxo } from '../../../../../../src/chains/evm/atomic/codec.js'
import { gasUsed } from '../../../../../../src/chains/evm/atomic/fees.js'
import { fromHex, toHex } from '../../../../../../src/chains/evm/atomic/hex.js'
import { type DecodedTx, decodeSignedTx, utxoIdOf } from '../../../../../../src/chains/evm/atomic/ids.js'
import {
  DEV_X_UTXO_AMOUNT,
  DEV_X_UTXO_TX_ID,
  presetXUtxos,
} from '../../../../../../src/chains/evm/atomic/preset-utxos.js'
import { shortAddressOfKey, signTx } from '../../../../../../src/chains/evm/atomic/sign.js'
import type { UnsignedExportTx, UnsignedImportTx } from '../../../../../../src/chains/evm/atomic/types.js'
import { decodeBlock, encodeBlock, extDataHashOf } from '../../../../../../src/chains/evm/header.js'
import { seedOnce } from '../../../../../../src/chains/shared-memory/seed.js'
import { SharedMemory } from '../../../../../../src/chains/shared-memory/shared-memory.js'
import { chainIds } from '../../../../../../src/config/chain-ids.js'
import type { Database } from '../../../../../../src/db/open.js'
import { idFromString } from '../../../../../../src/identity/ids.js'
import { openTestChainVm, type TestChainVm } from '../../../../../helpers/evm-chain-vm.js'
import { EWOQ_EVM, EWOQ_KEY } from './fixtures.js'

const ids = chainIds(12345)
const hexOf = (cb58: string) => toHex(idFromString(cb58))
const C = hexOf(ids.C)
const X = hexOf(ids.X)
const AVAX = hexOf(ids.avaxAssetId)
const OWNER = shortAddressOfKey(EWOQ_KEY)
const FEE = 20_000n // nAVAX: above any fee at the local base fee

interface Node {
  chain: TestChainVm
  memory: SharedMemory
}

async function openNode(): Promise<Node> {
  let memory: SharedMemory | undefined
  const chain = await openTestChainVm({
    context: (db) => {
      memory = new SharedMemory(db as unknown as Database)
      return {
        sharedMemory: memory.forChain(ids.C),
        lookupChain: (alias: string) => {
          const id = { C: ids.C, X: ids.X, P: ids.P }[alias]
          if (id === undefined) throw new Error(`there is no ID with alias: ${alias}`)
          return id
        },
        avaxAssetId: ids.avaxAssetId,
        xChainId: ids.X,
      }
    },
  })
  const m = memory as SharedMemory
  await seedOnce(m, ids.X, ids.C, presetXUtxos(AVAX, OWNER))
  return { chain, memory: m }
}

function importOf(outputIndex: number): DecodedTx {
  const unsigned: UnsignedImportTx = {
    type: 'import',
    networkId: 12345,
    blockchainId: C,
    sourceChain: X,
    importedInputs: [
      { txId: DEV_X_UTXO_TX_ID, outputIndex, assetId: AVAX, input: { amount: DEV_X_UTXO_AMOUNT, sigIndices: [0] } },
    ],
    outputs: [{ address: EWOQ_EVM, amount: DEV_X_UTXO_AMOUNT - FEE, assetId: AVAX }],
  }
  return decodeSignedTx(encodeTx(signTx(unsigned, [[EWOQ_KEY]])))
}

function exportOf(nonce: bigint, amount: bigint): DecodedTx {
  const unsigned: UnsignedExportTx = {
    type: 'export',
    networkId: 12345,
    blockchainId: C,
    destinationChain: X,
    inputs: [{ address: EWOQ_EVM, amount: amount + FEE, assetId: AVAX, nonce }],
    exportedOutputs: [{ assetId: AVAX, output: { amount, locktime: 0n, threshold: 1, addresses: [OWNER] } }],
  }
  return decodeSignedTx(encodeTx(signTx(unsigned, [[EWOQ_KEY]])))
}

const balance = async (n: Node) =>
  (
    await n.chain.vm.evm.core
      .stateAt(n.chain.vm.evm.core.lastAccepted().header.stateRoot)
      .then((v) => v.getAccount(new Address(fromHex(EWOQ_EVM, 20, 'address'))))
  )?.balance ?? 0n

const utxoKey = (outputIndex: number) => fromHex(utxoIdOf(DEV_X_UTXO_TX_ID, outputIndex), 32, 'UTXO ID')

describe('atomic txs in blocks', () => {
  let a: Node
  let b: Node

  before(async () => {
    a = await openNode()
    b = await openNode()
  })

  after(async () => {
    await a?.chain.close()
    await b?.chain.close()
  })

  it('an import is built by one node, verified and accepted by another, with its effects in one batch', async () => {
    const tx = importOf(0)
    const before = await balance(b)
    await a.chain.vm.evm.issueAtomicTx(tx, true)
    const block = await a.chain.vm.buildBlock()
    assert.ok(block)
    const { header, extData, txs } = decodeBlock(block.bytes)
    assert.equal(txs.length, 0)
    assert.deepEqual(header.extDataHash, extDataHashOf(extData))
    assert.equal(header.extDataGasUsed, gasUsed(tx.tx.unsigned, true, tx.unsignedBytes.length))
    assert.equal(
      (await a.chain.vm.evm.atomic?.status(tx.id, 0n, [a.chain.vm.evm.core.executor.pending.get(block.id)!]))?.status,
      'Processing',
    )

    // a header that commits to other extData is refused before anything runs
    const forged = encodeBlock({ ...header, extDataHash: new Uint8Array(32) }, txs, extData)
    await assert.rejects(
      (await b.chain.vm.parseBlock(forged)).verify(),
      /^Error: extra data hash mismatch: have 0x0{64}, want 0x/,
    )

    const received = await b.chain.vm.parseBlock(block.bytes)
    await received.verify()
    await received.accept()
    await block.accept()
    assert.equal(await balance(b), before + (DEV_X_UTXO_AMOUNT - FEE) * 1_000_000_000n)
    await assert.rejects(b.memory.get(ids.C, ids.X, [utxoKey(0)]), { message: 'not found' })
    const status = await b.chain.vm.evm.atomic?.status(tx.id, 1n, [])
    assert.deepEqual(status, { status: 'Accepted', blockHeight: 1n })
    assert.deepEqual((await b.chain.vm.evm.atomic?.find(tx.id, []))?.bytes, tx.signedBytes)
    // re-issuing it finds its UTXO spent
    await assert.rejects(b.chain.vm.evm.issueAtomicTx(tx, true), {
      message: `failed to fetch import UTXOs from ${ids.X} due to: not found`,
    })
  })

  it('an export debits the input at its nonce and puts its UTXO where the X chain reads it', async () => {
    const amount = 7_000_000_000n
    const tx = exportOf(0n, amount)
    const before = await balance(a)
    await a.chain.vm.evm.issueAtomicTx(tx, true)
    const block = await a.chain.vm.buildBlock()
    assert.ok(block)
    await block.accept()
    const received = await b.chain.vm.parseBlock(block.bytes)
    await received.verify()
    await received.accept()
    for (const n of [a, b]) {
      assert.equal(await balance(n), before - (amount + FEE) * 1_000_000_000n)
      const [utxo] = await n.memory.get(ids.X, ids.C, [fromHex(utxoIdOf(tx.id, 0), 32, 'UTXO ID')])
      assert.deepEqual(
        new Uint8Array(utxo as Uint8Array),
        encodeUtxo({
          txId: tx.id,
          outputIndex: 0,
          assetId: AVAX,
          output: { amount, locktime: 0n, threshold: 1, addresses: [OWNER] },
        }),
      )
    }
    // the nonce moved on: the same export again is refused
    await assert.rejects(a.chain.vm.evm.issueAtomicTx(exportOf(0n, amount + 1n), true), { message: 'invalid nonce' })
  })

  it("a rejected block's atomic txs wait in the mempool again", async () => {
    const tx = importOf(1)
    await a.chain.vm.evm.issueAtomicTx(tx, true)
    const block = await a.chain.vm.buildBlock()
    assert.ok(block)
    assert.equal(a.chain.vm.evm.atomic?.mempool.status(tx.id), 'issued')
    await block.reject()
    assert.equal(a.chain.vm.evm.atomic?.mempool.status(tx.id), 'pending')
    assert.equal(a.chain.vm.hasPending(), true)
  })

  it('a block whose import spends a UTXO the verifier does not hold is refused, unless it bootstraps', async () => {
    const block = await a.chain.vm.buildBlock()
    assert.ok(block)
    // b's copy of the UTXO is gone (as if another block had spent it)
    await b.memory.apply(ids.C, { [ids.X]: { removeRequests: [utxoKey(1)] } })
    const received = await b.chain.vm.parseBlock(block.bytes)
    await assert.rejects(
      received.verify(),
      /invalid atomic tx \w+: failed to fetch import UTXOs from \w+ due to: not found/,
    )
    // while bootstrapping, accepted blocks are re-executed without reading the UTXOs (the reference's rule)
    b.chain.vm.setState('bootstrapping')
    await received.verify()
    await received.reject()
    b.chain.vm.setState('normalOp')
    await block.reject()
  })
})
