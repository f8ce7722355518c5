import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createEOACode7702Tx, createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx'
import { bytesToHex, toChecksumAddress } from '@ethereumjs/util'
import { feeCapTooLow, TxPoolError } from '../../../../../../src/chains/evm/txpool/errors.js'
import {
  checkReplayProtection,
  EIP1820_DEPLOY_HASH,
  validateBasics,
} from '../../../../../../src/chains/evm/txpool/validate.js'
import { ADDRS, CHAIN_ID, common, dynamic, GWEI, key, legacy, RICH, refusal, TO, world } from './fixtures.js'

const A0 = toChecksumAddress(ADDRS[0]!.toString())

describe('txpool admission texts', () => {
  it('already known', async () => {
    const { pool } = world()
    const tx = legacy(0, { nonce: 0n })
    assert.equal(await pool.add(tx), bytesToHex(tx.hash()))
    assert.equal(await refusal(pool.add(tx)), 'already known')
  })

  it('transaction type not supported (setcode; blob txs cannot even be built without kzg)', async () => {
    const prague = common.copy()
    prague.setHardfork(Hardfork.Prague)
    const tx = createEOACode7702Tx(
      {
        maxFeePerGas: 30n * GWEI,
        maxPriorityFeePerGas: GWEI,
        gasLimit: 60_000n,
        to: TO,
        authorizationList: [{ chainId: '0x0', address: TO, nonce: '0x0', yParity: '0x0', r: '0x01', s: '0x01' }],
      },
      { common: prague },
    ).sign(key(0))
    assert.equal(await refusal(world().pool.add(tx)), 'transaction type not supported')
  })

  it('oversized data', async () => {
    const tx = legacy(0, { nonce: 0n, gasLimit: 14_000_000n, data: new Uint8Array(131_072) })
    const size = tx.serialize().length
    assert.equal(await refusal(world().pool.add(tx)), `oversized data: transaction size ${size}, limit 131072`)
  })

  it('max initcode size exceeded', async () => {
    const tx = createLegacyTx(
      { gasPrice: 25n * GWEI, gasLimit: 14_000_000n, data: new Uint8Array(49_153) },
      { common, allowUnlimitedInitCodeSize: true },
    ).sign(key(0))
    assert.equal(await refusal(world().pool.add(tx)), 'max initcode size exceeded: code size 49153, limit 49152')
  })

  it('exceeds block gas limit', async () => {
    const tx = legacy(0, { nonce: 0n, gasLimit: 15_000_001n })
    assert.equal(
      await refusal(world().pool.add(tx)),
      'exceeds block gas limit: tx gas (15000001) > current max gas (15000000)',
    )
  })

  it('max priority fee per gas higher than max fee per gas (a tx built around the library check)', () => {
    const tx = createFeeMarket1559Tx(
      { maxFeePerGas: 5n, maxPriorityFeePerGas: 1n, gasLimit: 21_000n, to: TO },
      { common, freeze: false },
    )
    Object.defineProperty(tx, 'maxPriorityFeePerGas', { value: 6n })
    assert.throws(
      () => validateBasics(tx, { chainId: CHAIN_ID, gasLimit: 15_000_000n, minTip: 1n }),
      /^TxPoolError: max priority fee per gas higher than max fee per gas$/,
    )
  })

  it('invalid sender: unsigned, another chain (legacy EIP-155 and typed)', async () => {
    const { pool } = world()
    const unsigned = createLegacyTx({ gasPrice: GWEI, gasLimit: 21_000n, to: TO }, { common })
    assert.equal(await refusal(pool.add(unsigned)), 'invalid sender')
    assert.equal(await refusal(pool.add(legacy(0, { nonce: 0n }, true))), 'invalid sender')
    const other = createFeeMarket1559Tx(
      { maxFeePerGas: 30n * GWEI, maxPriorityFeePerGas: GWEI, gasLimit: 21_000n, to: TO, chainId: 1n },
      { common: new Common({ chain: Mainnet, hardfork: Hardfork.Cancun }) },
    ).sign(key(0))
    assert.equal(await refusal(pool.add(other)), 'invalid sender')
  })

  it('intrinsic gas too low (checksummed address, geth detail)', async () => {
    const tx = legacy(0, { nonce: 0n, gasLimit: 20_000n })
    assert.equal(
      await refusal(world().pool.add(tx)),
      `intrinsic gas too low: address ${A0} tx gas (20000), minimum needed 21000`,
    )
    const call = legacy(0, { nonce: 0n, gasLimit: 21_030n, data: new Uint8Array([1, 0, 2]) })
    assert.equal(
      await refusal(world().pool.add(call)),
      `intrinsic gas too low: address ${A0} tx gas (21030), minimum needed 21036`,
    )
  })

  it('transaction underpriced: tip below tx-pool-price-limit', async () => {
    const tx = dynamic(0, { nonce: 0n, tip: 0n })
    assert.equal(await refusal(world().pool.add(tx)), 'transaction underpriced: gas tip cap 0, minimum needed 1')
    const priced = world({ priceLimit: 2n * GWEI })
    assert.equal(
      await refusal(priced.pool.add(dynamic(0, { nonce: 0n, tip: GWEI }))),
      'transaction underpriced: gas tip cap 1000000000, minimum needed 2000000000',
    )
  })

  it('transaction underpriced: fee cap below the pool minimum fee cap (a local tx skips the tip check)', async () => {
    const { pool } = world({ localsEnabled: true })
    const tx = legacy(0, { nonce: 0n, gasPrice: 0n })
    assert.equal(
      await refusal(pool.add(tx, { local: true })),
      `transaction underpriced: address ${A0} have gas fee cap (0) < pool minimum fee cap (1)`,
    )
    // without locals enabled the same tx is remote and meets the tip check first
    assert.equal(
      await refusal(world().pool.add(tx, { local: true })),
      'transaction underpriced: gas tip cap 0, minimum needed 1',
    )
  })

  it('nonce too low', async () => {
    const w = world()
    w.setAccount(0, { nonce: 5n })
    assert.equal(await refusal(w.pool.add(legacy(0, { nonce: 3n }))), 'nonce too low: next nonce 5, tx nonce 3')
  })

  it('insufficient funds for gas * price + value: alone, behind pending txs, and as a replacement', async () => {
    const w = world()
    const cost = 21_000n * 25n * GWEI + 1n
    w.setAccount(0, { balance: cost - 1n })
    assert.equal(
      await refusal(w.pool.add(legacy(0, { nonce: 0n }))),
      `insufficient funds for gas * price + value: balance ${cost - 1n}, tx cost ${cost}, overshot 1`,
    )
    w.setAccount(1, { balance: cost + cost / 2n })
    await w.pool.add(legacy(1, { nonce: 0n }))
    assert.equal(
      await refusal(w.pool.add(legacy(1, { nonce: 1n }))),
      `insufficient funds for gas * price + value: balance ${cost + cost / 2n}, queued cost ${cost}, tx cost ${cost}, overshot ${cost - cost / 2n}`,
    )
    const bumped = 21_000n * 50n * GWEI + 1n
    assert.equal(
      await refusal(w.pool.add(legacy(1, { nonce: 0n, gasPrice: 50n * GWEI }))),
      `insufficient funds for gas * price + value: balance ${cost + cost / 2n}, tx cost ${bumped}, overshot ${bumped - cost - cost / 2n}`,
    )
    w.setAccount(2, { balance: 3n * cost })
    await w.pool.add(legacy(2, { nonce: 0n }))
    await w.pool.add(legacy(2, { nonce: 1n }))
    const cost2 = 21_000n * 28n * GWEI + cost + 1n
    assert.equal(
      await refusal(w.pool.add(legacy(2, { nonce: 0n, gasPrice: 28n * GWEI, value: cost + 1n }))),
      `insufficient funds for gas * price + value: balance ${3n * cost}, queued cost ${2n * cost}, tx bumped ${cost2 - cost}, overshot ${cost2 - 2n * cost}`,
    )
  })

  it('replacement transaction underpriced (pending and queued; both caps must rise by the bump)', async () => {
    const { pool } = world()
    await pool.add(dynamic(0, { nonce: 0n, maxFee: 100n * GWEI, tip: 10n * GWEI }))
    const low = dynamic(0, { nonce: 0n, maxFee: 109n * GWEI, tip: 11n * GWEI })
    assert.equal(await refusal(pool.add(low)), 'replacement transaction underpriced')
    const tipOnly = dynamic(0, { nonce: 0n, maxFee: 200n * GWEI, tip: 10n * GWEI })
    assert.equal(await refusal(pool.add(tipOnly)), 'replacement transaction underpriced')
    await pool.add(dynamic(0, { nonce: 5n, maxFee: 100n * GWEI, tip: 10n * GWEI }))
    assert.equal(
      await refusal(pool.add(dynamic(0, { nonce: 5n, maxFee: 105n * GWEI, tip: 20n * GWEI }))),
      'replacement transaction underpriced',
    )
  })

  it('only replay-protected (EIP-155) transactions allowed over RPC, unless allowed', () => {
    const tw = new Common({ chain: Mainnet, hardfork: Hardfork.TangerineWhistle })
    const unprotected = createLegacyTx(
      { nonce: 1n, gasPrice: 25n * GWEI, gasLimit: 21_000n, to: TO },
      { common: tw },
    ).sign(key(0))
    assert.equal(unprotected.v, 27n + (unprotected.v! - 27n))
    const policy = { allowUnprotectedTxs: false, allowUnprotectedTxHashes: [EIP1820_DEPLOY_HASH] }
    assert.throws(
      () => checkReplayProtection(unprotected, policy),
      (e: unknown) =>
        e instanceof TxPoolError && e.message === 'only replay-protected (EIP-155) transactions allowed over RPC',
    )
    checkReplayProtection(unprotected, { ...policy, allowUnprotectedTxs: true })
    checkReplayProtection(unprotected, { ...policy, allowUnprotectedTxHashes: [bytesToHex(unprotected.hash())] })
    checkReplayProtection(legacy(0, { nonce: 0n }), policy)
    checkReplayProtection(dynamic(0, { nonce: 0n }), policy)
  })

  it('the pool itself accepts an unprotected legacy tx (the RPC layer decides)', async () => {
    const tw = new Common({ chain: Mainnet, hardfork: Hardfork.TangerineWhistle })
    const unprotected = createLegacyTx(
      { nonce: 0n, gasPrice: 25n * GWEI, gasLimit: 21_000n, to: TO },
      { common: tw },
    ).sign(key(0))
    const { pool } = world()
    assert.equal(await pool.add(unprotected), bytesToHex(unprotected.hash()))
  })

  it('max fee per gas less than block base fee (builder text)', () => {
    assert.equal(
      feeCapTooLow(A0, 1n, 2n).message,
      `max fee per gas less than block base fee: address ${A0}, maxFeePerGas: 1, baseFee: 2`,
    )
    assert.ok(RICH > 0n)
  })
})
