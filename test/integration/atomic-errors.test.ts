/**
 * The atomic API's rejections against one real `firn --dev`: each answers HTTP 200 with a JSON-RPC error -32000
 * and the reference's text, and nothing changes (the test key's balance and nonce, the UTXOs getUTXOs lists, the
 * rejected tx's status `Unknown`). Malformed txs are built as plain values (src/chains/evm/atomic/types.ts),
 * signed with src/chains/evm/atomic/sign.ts and encoded with src/chains/evm/atomic/codec.ts, so their fee and
 * fields are chosen here; two imports of one UTXO race in the mempool by their price per gas.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { hexToBytes } from '@ethereumjs/util'
import { decodeUtxo, encodeTx, encodeUnsignedTx } from '../../src/chains/evm/atomic/codec.js'
import { toHex } from '../../src/chains/evm/atomic/hex.js'
import { idCb58, txIdOf } from '../../src/chains/evm/atomic/ids.js'
import { DEV_X_UTXO_AMOUNT } from '../../src/chains/evm/atomic/preset-utxos.js'
import { evmAddressOfKey, shortAddressOfKey, signTx } from '../../src/chains/evm/atomic/sign.js'
import type { Hex, UnsignedImportTx, Utxo } from '../../src/chains/evm/atomic/types.js'
import { EWOQ_ADDRESS } from '../../src/chains/evm/rules/presets.js'
import { idFromString, shortIdToString } from '../../src/identity/ids.js'
import { ARGUMENT_ERROR } from '../../src/rpc/params.js'
import {
  bech32Of,
  buildExport,
  buildImport,
  contextOf,
  EWOQ_KEY,
  EWOQ_SHORT,
  evmBalance,
  evmNonce,
  finalStatus,
  hexWithChecksum,
  issue,
  result,
  utxosFor,
  withoutChecksum,
} from '../helpers/atomic.js'
import type { Context } from '../helpers/avalanchejs.js'
import { type FirnProcess, startFirn } from '../helpers/firn-process.js'

const C = '/ext/bc/C'
const WEI = 1_000_000_000n
const OTHER_KEY = hexToBytes(`0x${'11'.repeat(32)}`)
const OTHER_EVM = evmAddressOfKey(OTHER_KEY)
/** the fee (nAVAX) the hand-built imports pay; the base fee is 1 wei, so 1 nAVAX would do */
const FEE = 20_000n
const ZERO_ID = '11111111111111111111111111111111LpoYY'
/** the first 40 bytes of an import end inside its blockchain ID (bytes 10..41, a fixed array: the packer's own text) */
const PARSE_TRUNCATED = 'problem parsing transaction: packer has insufficient length for input'

describe('atomic API rejections on a dev node', () => {
  let node: FirnProcess
  let ctx: Context
  let cHex: Hex
  let xHex: Hex
  let assetHex: Hex

  before(async () => {
    node = await startFirn({ args: ['--dev'] })
    ctx = await contextOf(node)
    cHex = toHex(idFromString(ctx.cBlockchainID))
    xHex = toHex(idFromString(ctx.xBlockchainID))
    assetHex = toHex(idFromString(ctx.avaxAssetID))
  })

  after(async () => {
    await node?.cleanup()
  })

  /** the UTXOs waiting for C from X, as the node returns them (hex) and as plain values, by output index */
  async function waiting(): Promise<{ hex: string[]; utxos: Utxo[] }> {
    const page = result<{ utxos: string[] }>(
      await node.rpc(`${C}/avax`, 'avax.getUTXOs', { addresses: [bech32Of(ctx, 'C')], sourceChain: 'X', limit: 100 }),
    )
    const utxos = page.utxos.map((h) => decodeUtxo(withoutChecksum(h)))
    return { hex: [...page.utxos].sort(), utxos: utxos.sort((a, b) => a.outputIndex - b.outputIndex) }
  }

  const snapshot = async () => ({
    balance: await evmBalance(node, C),
    nonce: await evmNonce(node, C),
    utxos: (await waiting()).hex,
  })

  /** An import of `utxos` (in this order) to `to`, paying `fee`, with `over` replacing fields. */
  function importTx(utxos: Utxo[], fee: bigint, to: Hex = EWOQ_ADDRESS, over: Partial<UnsignedImportTx> = {}) {
    const total = utxos.reduce((n, u) => n + u.output.amount, 0n)
    const tx: UnsignedImportTx = {
      type: 'import',
      networkId: ctx.networkID,
      blockchainId: cHex,
      sourceChain: xHex,
      importedInputs: utxos.map((u) => ({
        txId: u.txId,
        outputIndex: u.outputIndex,
        assetId: u.assetId,
        input: { amount: u.output.amount, sigIndices: [0] },
      })),
      outputs: [{ address: to.toLowerCase(), amount: total - fee, assetId: assetHex }],
      ...over,
    }
    return tx
  }

  const signImport = (tx: UnsignedImportTx, key = EWOQ_KEY): Uint8Array =>
    encodeTx(
      signTx(
        tx,
        tx.importedInputs.map(() => [key]),
      ),
    )

  const status = async (txID: string) =>
    result<{ status: string }>(await node.rpc(`${C}/avax`, 'avax.getAtomicTxStatus', { txID })).status

  /** issueTx(params) fails with `message` (-32000, HTTP 200) and changes nothing; a tx's status stays `Unknown`. */
  async function rejected(params: unknown, message: string, bytes?: Uint8Array) {
    const before = await snapshot()
    const r = await node.rpc(`${C}/avax`, 'avax.issueTx', params)
    assert.equal(r.status, 200)
    assert.deepEqual(r.body.error, { code: -32000, message, data: null })
    assert.equal(r.body.result, undefined)
    // a block would be built at once: give it the time it takes, then nothing must have changed
    await new Promise((res) => setTimeout(res, 200))
    assert.deepEqual(await snapshot(), before)
    if (bytes !== undefined) assert.equal(await status(idCb58(txIdOf(bytes))), 'Unknown')
  }

  const rejectedTx = (bytes: Uint8Array, message: string) =>
    rejected({ tx: hexWithChecksum(bytes), encoding: 'hex' }, message, bytes)

  /** an RPC that fails with `message` (-32000) */
  async function fails(path: string, method: string, params: unknown, message: string) {
    const r = await node.rpc(path, method, params)
    assert.equal(r.status, 200)
    assert.deepEqual(r.body.error, { code: -32000, message, data: null }, `${method} ${JSON.stringify(params)}`)
  }

  it('an accepted import issued again: its UTXO is gone from shared memory', async () => {
    const [first] = await utxosFor(node, C, 'C', 'X', ctx)
    assert.ok(first)
    const bytes = await buildImport(node, ctx, C, ctx.cBlockchainID, ctx.xBlockchainID, [first])
    const txID = await issue(node, C, bytes)
    const accepted = await finalStatus(node, C, txID)
    assert.equal(accepted.status, 'Accepted')
    const before = await snapshot()
    const r = await node.rpc(`${C}/avax`, 'avax.issueTx', { tx: hexWithChecksum(bytes), encoding: 'hex' })
    assert.deepEqual(r.body.error, {
      code: -32000,
      message: `failed to fetch import UTXOs from ${ctx.xBlockchainID} due to: not found`,
      data: null,
    })
    assert.deepEqual(await snapshot(), before)
    // the tx keeps its status
    assert.deepEqual(result(await node.rpc(`${C}/avax`, 'avax.getAtomicTxStatus', { txID })), accepted)
  })

  /** an import's price per gas: burned x 1e9 / (unsigned bytes + 1000 per signature + 10,000) */
  const priceOf = (u: Utxo, fee: bigint) =>
    (fee * WEI) / (BigInt(encodeUnsignedTx(importTx([u], fee)).length) + 1000n + 10_000n)
  const conflict = (loser: string, lp: bigint, winner: string, wp: bigint) =>
    `conflict present: issued tx (${loser}) gas price ${lp} <= conflict tx (${winner}) gas price ${wp} (1 total conflicts in mempool)`

  it('two imports of one UTXO paying the same per gas: the second is a conflict', async () => {
    // same fee, same size: same price per gas; the one that arrives second loses
    const u = (await waiting()).utxos[0] as Utxo
    const a = signImport(importTx([u], FEE))
    const b = signImport(importTx([u], FEE, OTHER_EVM))
    const ewoq0 = await evmBalance(node, C)
    const other0 = await evmBalance(node, C, OTHER_EVM)
    const replies = await Promise.all(
      [a, b].map((bytes) => node.rpc(`${C}/avax`, 'avax.issueTx', { tx: hexWithChecksum(bytes), encoding: 'hex' })),
    )
    const ids = [a, b].map((bytes) => idCb58(txIdOf(bytes)))
    const won = replies.findIndex((r) => r.body.error === undefined)
    const lost = 1 - won
    assert.ok(won >= 0 && replies[lost]?.body.error !== undefined, JSON.stringify(replies.map((r) => r.body)))
    const price = priceOf(u, FEE)
    assert.equal(replies[lost]?.body.error?.message, conflict(ids[lost] as string, price, ids[won] as string, price))
    assert.equal((await finalStatus(node, C, ids[won] as string)).status, 'Accepted')
    assert.equal(await status(ids[lost] as string), 'Unknown')
    const credited = (DEV_X_UTXO_AMOUNT - FEE) * WEI
    assert.equal((await evmBalance(node, C)) - ewoq0, won === 0 ? credited : 0n)
    assert.equal((await evmBalance(node, C, OTHER_EVM)) - other0, won === 1 ? credited : 0n)
  })

  it('two imports of one UTXO, one paying twice as much per gas: it wins unless the other was taken first', async (t) => {
    // the dearer one replaces the other while that one is pending; a tx the builder has taken (issued) is not
    // replaced, so the dearer one is refused only when it comes after the cheap one went into a block
    const v = (await waiting()).utxos[0] as Utxo
    const cheap = signImport(importTx([v], FEE))
    const dear = signImport(importTx([v], 2n * FEE))
    const [cheapId, dearId] = [cheap, dear].map((b) => idCb58(txIdOf(b))) as [string, string]
    const before = await evmBalance(node, C)
    const [rc, rd] = await Promise.all(
      [cheap, dear].map((bytes) =>
        node.rpc(`${C}/avax`, 'avax.issueTx', { tx: hexWithChecksum(bytes), encoding: 'hex' }),
      ),
    )
    if (rd?.body.error === undefined) {
      assert.deepEqual(rd?.body.result, { txID: dearId })
      assert.equal((await finalStatus(node, C, dearId)).status, 'Accepted')
      assert.equal((await evmBalance(node, C)) - before, (DEV_X_UTXO_AMOUNT - 2n * FEE) * WEI)
      if (rc?.body.error === undefined) {
        t.diagnostic('the cheap one came first and was replaced while pending')
        assert.equal(await status(cheapId), 'Dropped')
      } else {
        t.diagnostic('the dear one came first')
        assert.equal(rc.body.error.message, conflict(cheapId, priceOf(v, FEE), dearId, priceOf(v, 2n * FEE)))
        assert.equal(await status(cheapId), 'Unknown')
      }
    } else {
      t.diagnostic('the cheap one came first and went into a block at once')
      assert.equal(rd.body.error.message, conflict(dearId, priceOf(v, 2n * FEE), cheapId, priceOf(v, FEE)))
      assert.equal((await finalStatus(node, C, cheapId)).status, 'Accepted')
      assert.equal((await evmBalance(node, C)) - before, (DEV_X_UTXO_AMOUNT - FEE) * WEI)
      assert.equal(await status(dearId), 'Unknown')
    }
  })

  it('bad signature, network ID, chain ID, unsorted inputs, flow check: the reference texts, nothing changes', async () => {
    const [u, w] = (await waiting()).utxos as [Utxo, Utxo]
    const other = shortIdToString(hexToBytes(shortAddressOfKey(OTHER_KEY) as `0x${string}`))
    await rejectedTx(
      signImport(importTx([u], FEE), OTHER_KEY),
      `import tx transfer failed verification: wrong signature: expected signature from ${shortIdToString(EWOQ_SHORT)} but got from ${other}`,
    )
    await rejectedTx(
      signImport(importTx([u], FEE, EWOQ_ADDRESS, { networkId: 1 })),
      'tx was issued with a different network ID',
    )
    await rejectedTx(signImport(importTx([u], FEE, EWOQ_ADDRESS, { blockchainId: xHex })), 'tx has wrong chain ID')
    assert.ok(u.outputIndex < w.outputIndex)
    await rejectedTx(signImport(importTx([w, u], FEE)), 'inputs not sorted and unique')
    await rejectedTx(signImport(importTx([u], -1n)), 'import tx flow check failed due to: insufficient funds')
  })

  it('an export of more than the balance: insufficient funds', async () => {
    const balance = await evmBalance(node, C)
    const bytes = await buildExport(node, ctx, C, ctx.cBlockchainID, ctx.xBlockchainID, balance / WEI + 1n)
    await rejectedTx(bytes, 'insufficient funds')
  })

  it('undecodable bytes, a bad checksum, no 0x: problem parsing / decoding transaction', async () => {
    const bytes = signImport(importTx([(await waiting()).utxos[0] as Utxo], FEE))
    const good = hexWithChecksum(bytes)
    await rejected(
      { tx: hexWithChecksum(Uint8Array.of(0, 1, 0, 0)), encoding: 'hex' },
      'problem parsing transaction: unknown codec version',
    )
    await rejected({ tx: hexWithChecksum(bytes.subarray(0, 40)), encoding: 'hex' }, PARSE_TRUNCATED)
    const flipped = `${good.slice(0, -1)}${good.endsWith('0') ? '1' : '0'}`
    await rejected({ tx: flipped, encoding: 'hex' }, 'problem decoding transaction: invalid input checksum')
    await rejected(
      { tx: good.slice(2), encoding: 'hex' },
      'problem decoding transaction: missing 0x prefix to hex encoding',
    )
    assert.equal(await status(idCb58(txIdOf(bytes))), 'Unknown')
  })

  it('getAtomicTx of an unknown ID, getAtomicTxStatus of no ID or the zero ID, a bad encoding name', async () => {
    const unknown = idCb58(txIdOf(Uint8Array.of(1, 2, 3)))
    for (const svc of ['avax', 'native']) {
      const path = `${C}/${svc}`
      await fails(path, `${svc}.getAtomicTx`, { txID: unknown, encoding: 'hex' }, `could not find tx ${unknown}`)
      await fails(path, `${svc}.getAtomicTxStatus`, {}, 'nil transaction ID')
      await fails(path, `${svc}.getAtomicTxStatus`, { txID: ZERO_ID }, 'nil transaction ID')
      await fails(path, `${svc}.getAtomicTx`, { txID: ZERO_ID }, 'nil transaction ID')
      assert.deepEqual(result(await node.rpc(path, `${svc}.getAtomicTxStatus`, { txID: unknown })), {
        status: 'Unknown',
      })
    }
    const utxos = { addresses: [bech32Of(ctx, 'C')], sourceChain: 'X', encoding: 'base64' }
    await fails(`${C}/avax`, 'avax.getUTXOs', utxos, ARGUMENT_ERROR)
    await fails(`${C}/avax`, 'avax.getAtomicTx', { txID: unknown, encoding: 'base64' }, ARGUMENT_ERROR)
    const bytes = signImport(importTx([(await waiting()).utxos[0] as Utxo], FEE))
    await rejected({ tx: hexWithChecksum(bytes), encoding: 'base64' }, ARGUMENT_ERROR, bytes)
  })
})
