/**
 * The atomic API (`/ext/bc/C/avax`, `/ext/bc/C/native`) against one real `firn --dev`, driven the way a wallet
 * drives it with avalanchejs 5.2.0 (test/helpers/atomic.ts): the seeded X -> C UTXOs paged by `getUTXOs`, an
 * import X -> C and an export C -> X with their exact balance, nonce and fee effects, the block that carries
 * each (blockExtraData, extDataGasUsed), `getAtomicTxStatus` and `getAtomicTx`, and a pending tx issued again.
 * Rejections are in test/integration/atomic-errors.test.ts.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { idCb58, txIdOf, utxoIdOf } from '../../src/chains/evm/atomic/ids.js'
import { DEV_X_UTXO_AMOUNT, DEV_X_UTXO_COUNT, DEV_X_UTXO_TX_ID } from '../../src/chains/evm/atomic/preset-utxos.js'
import {
  baseFeeNAvax,
  bech32Of,
  contextOf,
  EWOQ_EVM,
  EWOQ_SHORT,
  evmBalance,
  evmNonce,
  finalStatus,
  hexWithChecksum,
  issue,
  result,
  signed,
  utxosFor,
  withoutChecksum,
} from '../helpers/atomic.js'
import {
  ajs,
  type Context,
  type ExportTx,
  type ImportTx,
  type TransferOutput,
  type Utxo,
} from '../helpers/avalanchejs.js'
import { type FirnProcess, startFirn } from '../helpers/firn-process.js'

const C = '/ext/bc/C'
const WEI = 1_000_000_000n

interface Page {
  numFetched: string
  utxos: string[]
  endIndex: { address: string; utxo: string }
  encoding: string
}

const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n)
const utxoIdOfHex = (hex: string) =>
  (ajs.utils.getManagerForVM('EVM').unpack(withoutChecksum(hex), ajs.Utxo) as Utxo).ID()

describe('the atomic API on a dev node', () => {
  let node: FirnProcess
  let ctx: Context

  before(async () => {
    node = await startFirn({ args: ['--dev'] })
    ctx = await contextOf(node)
  })

  after(async () => {
    await node?.cleanup()
  })

  /** An import of `utxos` to the test key with avalanchejs, its fee (inputs - outputs) and gas read off it. */
  async function buildImportTx(utxos: Utxo[]) {
    const unsigned = ajs.evm.newImportTxFromBaseFee(
      ctx,
      EWOQ_EVM,
      [EWOQ_SHORT],
      utxos,
      ctx.xBlockchainID,
      await baseFeeNAvax(node, C),
    )
    const tx = unsigned.getTx() as ImportTx
    const inputs = sum(tx.importedInputs.map((i) => i.amount()))
    const outputs = sum(tx.Outs.map((o) => o.amount.value()))
    const sigs = tx.importedInputs.reduce((n, i) => n + i.sigIndicies().length, 0)
    const gas = BigInt(unsigned.toBytes().length + 1000 * sigs + 10_000)
    return { bytes: await signed(unsigned), inputs, fee: inputs - outputs, gas }
  }

  it('getUTXOs pages the seeded UTXOs (limit 2, startIndex inclusive) on avax and native, object or array params', async () => {
    const address = bech32Of(ctx, 'C')
    const expected = Array.from({ length: DEV_X_UTXO_COUNT }, (_, i) => idCb58(utxoIdOf(DEV_X_UTXO_TX_ID, i)))
    const all = result<Page>(
      await node.rpc(`${C}/avax`, 'avax.getUTXOs', { addresses: [address], sourceChain: 'X', limit: 1024 }),
    )
    assert.equal(all.numFetched, '5')
    assert.equal(all.encoding, 'hex')
    const order = all.utxos.map(utxoIdOfHex)
    assert.deepEqual([...order].sort(), [...expected].sort())
    for (const hex of all.utxos) assert.equal(hexWithChecksum(withoutChecksum(hex)), hex)
    assert.deepEqual(all.endIndex, { address, utxo: order[4] })

    // pages of 2: each next page starts at the previous endIndex, which comes again first
    const want = [[0, 1], [1, 2], [2, 3], [3, 4], [4]].map((ix) => ix.map((i) => order[i]))
    for (const [path, method] of [
      [`${C}/avax`, 'avax.getUTXOs'],
      [`${C}/native`, 'native.getUTXOs'],
    ] as const) {
      for (const asArray of [false, true]) {
        const pages: string[][] = []
        let startIndex: Page['endIndex'] | undefined
        for (let n = 0; n < want.length; n++) {
          const args = {
            addresses: [address],
            sourceChain: 'X',
            limit: 2,
            encoding: 'hex',
            ...(startIndex && { startIndex }),
          }
          const reply = await node.rpc(path, method, asArray ? [args] : args)
          assert.equal(reply.status, 200)
          const page = result<Page>(reply)
          const ids = page.utxos.map(utxoIdOfHex)
          assert.equal(page.numFetched, String(ids.length))
          assert.deepEqual(page.endIndex, { address, utxo: ids[ids.length - 1] })
          pages.push(ids)
          startIndex = page.endIndex
        }
        assert.deepEqual(pages, want, `${method} ${asArray ? 'array' : 'object'}`)
      }
    }
  })

  it('imports a seeded UTXO X -> C: Accepted at a height, the balance grows by exactly amount - fee', async () => {
    const before = await utxosFor(node, C, 'C', 'X', ctx)
    const utxo = before[0] as Utxo
    const balance0 = await evmBalance(node, C)
    const nonce0 = await evmNonce(node, C)
    const { bytes, inputs, fee, gas } = await buildImportTx([utxo])
    assert.equal(inputs, DEV_X_UTXO_AMOUNT)
    // avalanchejs pays the base fee (nAVAX per gas) for the gas it counts
    assert.equal(fee, gas * (await baseFeeNAvax(node, C)))

    const reply = await node.rpc(`${C}/avax`, 'avax.issueTx', { tx: hexWithChecksum(bytes), encoding: 'hex' })
    assert.equal(reply.status, 200)
    const txID = result<{ txID: string }>(reply).txID
    assert.deepEqual(reply.body.result, { txID: idCb58(txIdOf(bytes)) })

    const status = await finalStatus(node, C, txID)
    assert.equal(status.status, 'Accepted')
    assert.match(status.blockHeight ?? '', /^[1-9][0-9]*$/)
    assert.deepEqual(Object.keys(status).sort(), ['blockHeight', 'status'])
    assert.equal((await evmBalance(node, C)) - balance0, (DEV_X_UTXO_AMOUNT - fee) * WEI)
    assert.equal(await evmNonce(node, C), nonce0)

    const got = result<{ tx: string; encoding: string; blockHeight: string }>(
      await node.rpc(`${C}/avax`, 'avax.getAtomicTx', { txID, encoding: 'hex' }),
    )
    assert.deepEqual(got, { tx: hexWithChecksum(bytes), encoding: 'hex', blockHeight: status.blockHeight })

    const left = (await utxosFor(node, C, 'C', 'X', ctx)).map((u) => u.ID())
    assert.deepEqual(
      left.sort(),
      before
        .slice(1)
        .map((u) => u.ID())
        .sort(),
    )

    const height = BigInt(status.blockHeight as string)
    const block = result<{ blockExtraData: string; extDataGasUsed: string; number: string }>(
      await node.rpc(`${C}/rpc`, 'eth_getBlockByNumber', [`0x${height.toString(16)}`, false]),
    )
    assert.equal(block.number, `0x${height.toString(16)}`)
    assert.notEqual(block.blockExtraData, '0x')
    // the batch: codec version 0, one tx, the tx without its own codec version
    assert.equal(block.blockExtraData, `0x000000000001${Buffer.from(bytes.subarray(2)).toString('hex')}`)
    assert.equal(BigInt(block.extDataGasUsed), gas)
  })

  it('exports C -> X: the balance drops by exactly amount + fee, the nonce by one, Accepted', async () => {
    const amount = 10n * WEI // 10 AVAX in nAVAX
    const balance0 = await evmBalance(node, C)
    const nonce0 = await evmNonce(node, C)
    const unsigned = ajs.evm.newExportTxFromBaseFee(
      ctx,
      await baseFeeNAvax(node, C),
      amount,
      ctx.xBlockchainID,
      EWOQ_EVM,
      [EWOQ_SHORT],
      nonce0,
    )
    const tx = unsigned.getTx() as ExportTx
    const inputs = sum(tx.ins.map((i) => i.amount.value()))
    const outputs = sum(tx.exportedOutputs.map((o) => (o.output as TransferOutput).amt.value()))
    assert.equal(outputs, amount)
    const fee = inputs - outputs
    const gas = BigInt(unsigned.toBytes().length + 1000 * tx.ins.length + 10_000)
    assert.equal(fee, gas * (await baseFeeNAvax(node, C)))
    const bytes = await signed(unsigned)

    const txID = await issue(node, C, bytes)
    assert.equal(txID, idCb58(txIdOf(bytes)))
    const status = await finalStatus(node, C, txID)
    assert.equal(status.status, 'Accepted')
    assert.match(status.blockHeight ?? '', /^[1-9][0-9]*$/)
    assert.equal(balance0 - (await evmBalance(node, C)), (amount + fee) * WEI)
    assert.equal(await evmNonce(node, C), nonce0 + 1n)

    for (const [path, method] of [
      [`${C}/avax`, 'avax.getAtomicTx'],
      [`${C}/native`, 'native.getAtomicTx'],
    ] as const) {
      assert.deepEqual(result(await node.rpc(path, method, { txID, encoding: 'hex' })), {
        tx: hexWithChecksum(bytes),
        encoding: 'hex',
        blockHeight: status.blockHeight,
      })
    }
    assert.deepEqual(result(await node.rpc(`${C}/native`, 'native.getAtomicTxStatus', [{ txID }])), status)
    const block = result<{ extDataGasUsed: string }>(
      await node.rpc(`${C}/rpc`, 'eth_getBlockByNumber', [
        `0x${BigInt(status.blockHeight as string).toString(16)}`,
        false,
      ]),
    )
    assert.equal(BigInt(block.extDataGasUsed), gas)
  })

  it('a tx issued again while pending answers its txID again, and is applied once', async () => {
    const utxo = (await utxosFor(node, C, 'C', 'X', ctx))[0] as Utxo
    const balance0 = await evmBalance(node, C)
    const { bytes, fee } = await buildImportTx([utxo])
    const params = { tx: hexWithChecksum(bytes), encoding: 'hex' }
    const replies = await Promise.all([
      node.rpc(`${C}/avax`, 'avax.issueTx', params),
      node.rpc(`${C}/avax`, 'avax.issueTx', params),
      node.rpc(`${C}/native`, 'native.issueTx', [params]),
    ])
    const txID = idCb58(txIdOf(bytes))
    for (const r of replies) assert.deepEqual(r.body, { jsonrpc: '2.0', id: 1, result: { txID } })
    assert.equal((await finalStatus(node, C, txID)).status, 'Accepted')
    assert.equal((await evmBalance(node, C)) - balance0, (DEV_X_UTXO_AMOUNT - fee) * WEI)
    assert.equal((await utxosFor(node, C, 'C', 'X', ctx)).length, DEV_X_UTXO_COUNT - 2)
  })

  it('answers under every alias of C and its chain ID, as avax.* and native.*', async () => {
    const ctx = await contextOf(node)
    for (const base of ['/ext/bc/C', '/ext/C', '/ext/bc/evm', `/ext/bc/${ctx.cBlockchainID}`]) {
      for (const ns of ['avax', 'native']) {
        const r = await node.rpc(`${base}/${ns}`, `${ns}.getAtomicTxStatus`, { txID: ctx.avaxAssetID })
        assert.equal(r.status, 200, `${base}/${ns}`)
        assert.deepEqual(r.body.result, { status: 'Unknown' }, `${base}/${ns}`)
      }
    }
  })
})
