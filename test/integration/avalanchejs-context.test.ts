/**
 * avalanchejs's `Context.getContextFromURI(url)` against a real `firn --dev`: the info calls it makes, and the X
 * and P chain calls Firn answers from the network preset (`avm.getAssetDescription`, `avm.getTxFee`,
 * `platform.getFeeConfig`); every other X or P method is the gorilla server's `can't find method`.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ajs, getContextFromURI } from '../helpers/avalanchejs.js'
import { type FirnProcess, startFirn } from '../helpers/firn-process.js'

const LOCAL_C = '2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC'
const LOCAL_X = '2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed'
const LOCAL_AVAX = '2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe'

describe('avalanchejs context from a Firn node', () => {
  let node: FirnProcess

  before(async () => {
    node = await startFirn({ args: ['--dev'] })
  })

  after(async () => {
    await node?.cleanup()
  })

  it('getContextFromURI reads the local network identity, the asset and the fees', async () => {
    const ctx = await getContextFromURI(node.url)
    assert.equal(ctx.networkID, 12345)
    assert.equal(ctx.hrp, 'local')
    assert.equal(ctx.avaxAssetID, LOCAL_AVAX)
    assert.equal(ctx.cBlockchainID, LOCAL_C)
    assert.equal(ctx.xBlockchainID, LOCAL_X)
    assert.equal(ctx.pBlockchainID, '11111111111111111111111111111111LpoYY')
    assert.equal(ctx.baseTxFee, 1_000_000n)
    assert.equal(ctx.createAssetTxFee, 1_000_000n)
    assert.equal(ctx.platformFeeConfig?.maxCapacity, 1_000_000n)
    assert.equal(ctx.platformFeeConfig?.excessConversionConstant, 2_164_043n)
  })

  it('answers with the reference shapes and texts, at every alias of X and P', async () => {
    for (const path of ['/ext/bc/X', '/ext/X', `/ext/bc/${LOCAL_X}`]) {
      const r = await node.rpc(path, 'avm.getAssetDescription', { assetID: 'AVAX' })
      assert.deepEqual(r.body.result, { assetID: LOCAL_AVAX, name: 'Avalanche', symbol: 'AVAX', denomination: '9' })
    }
    const byId = await node.rpc('/ext/bc/X', 'avm.getAssetDescription', { assetID: LOCAL_AVAX })
    assert.equal((byId.body.result as { assetID: string }).assetID, LOCAL_AVAX)
    const unknown = await node.rpc('/ext/bc/X', 'avm.getAssetDescription', { assetID: 'FOO' })
    assert.equal(unknown.body.error?.message, "asset 'FOO' not found")
    const fee = await node.rpc('/ext/bc/X', 'avm.getTxFee', {})
    assert.deepEqual(fee.body.result, { txFee: '1000000', createAssetTxFee: '1000000' })
    const cfg = await node.rpc('/ext/bc/P', 'platform.getFeeConfig', {})
    assert.deepEqual(cfg.body.result, {
      weights: [1, 1000, 1000, 4],
      maxCapacity: 1_000_000,
      maxPerSecond: 100_000,
      targetPerSecond: 50_000,
      minPrice: 1,
      excessConversionConstant: 2_164_043,
    })
    const other = await node.rpc('/ext/bc/P', 'platform.getHeight', {})
    assert.equal(other.body.error?.message, 'rpc: can\'t find method "platform.GetHeight"')
    const wrongService = await node.rpc('/ext/bc/X', 'platform.getFeeConfig', {})
    assert.equal(wrongService.body.error?.message, 'rpc: can\'t find service "platform.GetFeeConfig"')
  })

  it('avax.getUTXOs / native.getUTXOs serve the preset X -> C UTXOs of the test key, paged as the reference pages', async () => {
    const manager = ajs.utils.getManagerForVM('EVM')
    const ewoqC = 'C-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u'
    const seen = new Set<string>()
    for (const [path, method] of [
      ['/ext/bc/C/avax', 'avax.getUTXOs'],
      ['/ext/bc/C/native', 'native.getUTXOs'],
    ] as const) {
      let start: { address: string; utxo: string } | undefined
      const ids = new Set<string>()
      for (let page = 0; page < 5; page++) {
        const args = { addresses: [ewoqC], sourceChain: 'X', limit: 2, ...(start ? { startIndex: start } : {}) }
        // the object form and the one-element array form
        const r = await node.rpc(path, method, page % 2 === 0 ? args : [args])
        const res = r.body.result as { numFetched: string; utxos: string[]; endIndex: typeof start; encoding: string }
        assert.equal(res.encoding, 'hex')
        assert.equal(res.endIndex?.address, ewoqC)
        for (const hex of res.utxos) {
          // hex with its 4-byte checksum; avalanchejs decodes the UTXO bytes
          const bytes = Buffer.from(hex.slice(2, -8), 'hex')
          const utxo = manager.unpack(bytes, ajs.Utxo) as { ID(): string; assetId: { toString(): string } }
          assert.equal(utxo.assetId.toString(), LOCAL_AVAX)
          ids.add(utxo.ID())
        }
        start = res.endIndex
        if (res.utxos.length < 2) break
      }
      // the start point is inclusive: pages overlap by one, and the five UTXOs all appear
      assert.equal(ids.size, 5)
      for (const id of ids) seen.add(id)
    }
    assert.equal(seen.size, 5)
    const errors = [
      [{ addresses: [], sourceChain: 'X' }, 'no addresses provided'],
      [{ addresses: [ewoqC] }, 'no source chain provided'],
      [{ addresses: [ewoqC], sourceChain: 'Q' }, 'problem parsing source chainID "Q": there is no ID with alias: Q'],
      [
        { addresses: ['X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u'], sourceChain: 'X' },
        `couldn't parse address "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u": expected chainID to be "${LOCAL_C}" but was "${LOCAL_X}"`,
      ],
    ] as const
    for (const [params, message] of errors) {
      const r = await node.rpc('/ext/bc/C/avax', 'avax.getUTXOs', params)
      assert.equal(r.body.error?.message, message)
    }
    const version = await node.rpc('/ext/bc/C/native', 'native.version', {})
    const node_ = await node.rpc('/ext/info', 'info.getNodeVersion', {})
    assert.equal(
      (version.body.result as { version: string }).version,
      (node_.body.result as { vmVersions: { evm: string } }).vmVersions.evm,
    )
  })
})
