/**
 * Atomic txs between two EVM chains of one real `firn --dev` (C and D, test/helpers/chains-genesis.ts), built with
 * avalanchejs (test/helpers/atomic.ts): an export C -> D shows as a UTXO at `/ext/bc/D/avax` (sourceChain `C`,
 * address `D-local1...`), its import on D credits exactly the amount minus the fee; back with an export D -> C and
 * an import on C. Each step's balances, nonces, statuses and UTXO lists are exact.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { decodeSignedTx, idCb58 } from '../../src/chains/evm/atomic/ids.js'
import type { UnsignedAtomicTx } from '../../src/chains/evm/atomic/types.js'
import {
  bech32Of,
  buildExport,
  buildImport,
  contextOf,
  evmBalance,
  evmNonce,
  finalStatus,
  hexWithChecksum,
  issue,
  result,
  utxosFor,
} from '../helpers/atomic.js'
import type { Context, TransferOutput, Utxo } from '../helpers/avalanchejs.js'
import { devChainsGenesis, writeGenesisFile } from '../helpers/chains-genesis.js'
import { type FirnProcess, startFirn } from '../helpers/firn-process.js'

const C = '/ext/bc/C'
const D = '/ext/bc/D'
const WEI = 1_000_000_000n

/** inputs - outputs of the signed tx (nAVAX) */
function feeOf(bytes: Uint8Array): bigint {
  const u: UnsignedAtomicTx = decodeSignedTx(bytes).tx.unsigned
  const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n)
  return u.type === 'import'
    ? sum(u.importedInputs.map((i) => i.input.amount)) - sum(u.outputs.map((o) => o.amount))
    : sum(u.inputs.map((i) => i.amount)) - sum(u.exportedOutputs.map((o) => o.output.amount))
}

const amountOf = (utxo: Utxo) => (utxo.output as TransferOutput).amt.value()

describe('atomic txs between C and D on one dev node', () => {
  let node: FirnProcess
  let ctx: Context
  let dId = ''

  before(async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'firn-atomic-chains-'))
    const genesisFile = await writeGenesisFile(dataDir, devChainsGenesis())
    node = await startFirn({ args: ['--dev', `--genesis-file=${genesisFile}`], dataDir })
    ctx = await contextOf(node)
    dId = result<{ blockchainID: string }>(
      await node.rpc('/ext/info', 'info.getBlockchainID', { alias: 'D' }),
    ).blockchainID
  })

  after(async () => {
    await node?.cleanup()
  })

  /** issues `bytes` at `base` and waits for Accepted; returns the tx ID */
  async function accepted(base: string, bytes: Uint8Array): Promise<string> {
    const txID = await issue(node, base, bytes)
    const status = await finalStatus(node, base, txID)
    assert.equal(status.status, 'Accepted', `${base} ${txID}`)
    assert.deepEqual(result(await node.rpc(`${base}/avax`, 'avax.getAtomicTx', { txID })), {
      tx: hexWithChecksum(bytes),
      encoding: 'hex',
      blockHeight: status.blockHeight,
    })
    return txID
  }

  it('C -> D -> C: export, UTXO on the other side, import, and back', async () => {
    assert.notEqual(dId, ctx.cBlockchainID)
    // nothing waits for D from C yet
    assert.deepEqual(await utxosFor(node, D, 'D', 'C', ctx), [])

    // export 25 AVAX from C to D
    const toD = 25n * WEI
    const c0 = await evmBalance(node, C)
    const cNonce0 = await evmNonce(node, C)
    const exportC = await buildExport(node, ctx, C, ctx.cBlockchainID, dId, toD)
    const exportCId = await accepted(C, exportC)
    assert.equal(c0 - (await evmBalance(node, C)), (toD + feeOf(exportC)) * WEI)
    assert.equal(await evmNonce(node, C), cNonce0 + 1n)

    // D sees it: avax.getUTXOs at /ext/bc/D/avax, addresses D-local1..., sourceChain C
    const page = result<{ numFetched: string; utxos: string[]; endIndex: { address: string } }>(
      await node.rpc(`${D}/avax`, 'avax.getUTXOs', { addresses: [bech32Of(ctx, 'D')], sourceChain: 'C', limit: 10 }),
    )
    assert.equal(page.numFetched, '1')
    assert.equal(page.endIndex.address, bech32Of(ctx, 'D'))
    const onD = await utxosFor(node, D, 'D', 'C', ctx)
    assert.equal(onD.length, 1)
    const [utxoD] = onD as [Utxo]
    assert.equal(utxoD.utxoId.txID.toString(), exportCId)
    assert.equal(utxoD.utxoId.outputIdx.value(), 0)
    assert.equal(amountOf(utxoD), toD)
    // C's own side for D stays empty: the UTXO is D's to import
    assert.deepEqual(await utxosFor(node, C, 'C', 'D', ctx), [])

    // import it on D
    const d0 = await evmBalance(node, D)
    const dNonce0 = await evmNonce(node, D)
    const importD = await buildImport(node, ctx, D, dId, ctx.cBlockchainID, onD)
    await accepted(D, importD)
    const importDFee = feeOf(importD)
    assert.ok(importDFee > 0n)
    assert.equal((await evmBalance(node, D)) - d0, (toD - importDFee) * WEI)
    assert.equal(await evmNonce(node, D), dNonce0)
    assert.deepEqual(await utxosFor(node, D, 'D', 'C', ctx), [])

    // back: export 10 AVAX from D to C, import on C
    const toC = 10n * WEI
    const d1 = await evmBalance(node, D)
    const exportD = await buildExport(node, ctx, D, dId, ctx.cBlockchainID, toC)
    const exportDId = await accepted(D, exportD)
    assert.equal(d1 - (await evmBalance(node, D)), (toC + feeOf(exportD)) * WEI)
    assert.equal(await evmNonce(node, D), dNonce0 + 1n)

    const onC = await utxosFor(node, C, 'C', 'D', ctx)
    assert.equal(onC.length, 1)
    assert.equal((onC[0] as Utxo).utxoId.txID.toString(), exportDId)
    assert.equal(amountOf(onC[0] as Utxo), toC)
    const c1 = await evmBalance(node, C)
    const importC = await buildImport(node, ctx, C, ctx.cBlockchainID, dId, onC)
    const importCId = await accepted(C, importC)
    assert.equal((await evmBalance(node, C)) - c1, (toC - feeOf(importC)) * WEI)
    assert.deepEqual(await utxosFor(node, C, 'C', 'D', ctx), [])
    assert.equal(importCId, idCb58(decodeSignedTx(importC).id))

    // the tx is C's: D does not know it
    assert.deepEqual(result(await node.rpc(`${D}/avax`, 'avax.getAtomicTxStatus', { txID: importCId })), {
      status: 'Unknown',
    })
  })
})
