import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Worker } from 'node:worker_threads'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { Capability, createTx, createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx'
import { bytesToHex, SECP256K1_ORDER } from '@ethereumjs/util'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'
import * as native from '../../../../../../src/chains/evm/exec/native-crypto.js'
import {
  RecoverPool,
  recoverAhead,
  recoverWorkersReady,
  recoveryArgs,
} from '../../../../../../src/chains/evm/exec/recover-ahead.js'
import { senderCacheOf } from '../../../../../../src/chains/evm/exec/sender-cache.js'
import { presetSender } from '../../../../../../src/chains/evm/exec/tx-sender.js'
import { countCalls } from '../../../../../helpers/count-calls.js'
import { addressOf, CHAIN_ID, key, transfer } from './fixtures.js'

/** a tx as the node holds it: decoded from its bytes (frozen, ethereumjs' default) */
const decoded = (tx: TypedTransaction, common: Common) => createTxFromRLP(tx.serialize(), { common })

describe('recoverAhead', () => {
  it("recovers senders on a worker into the sender cache: the node's own recovery is then a lookup", async () => {
    const common = createEvmCommon(CHAIN_ID)
    const txs = [0, 1, 2].map((i) => transfer(common, i, 0n, addressOf(9).bytes))
    const legacy = createTx(
      { type: 0, nonce: 0n, to: addressOf(9).bytes, gasLimit: 21_000n, gasPrice: 10n },
      { common },
    ).sign(key(3))
    // v = 27/28: no EIP-155 chain id in the recovery
    const homestead = new Common({ chain: Mainnet, hardfork: Hardfork.Homestead })
    const unprotected = createTx(
      { type: 0, nonce: 0n, to: addressOf(9).bytes, gasLimit: 21_000n, gasPrice: 10n },
      { common: homestead },
    ).sign(key(4))
    const access = createTx(
      { type: 1, nonce: 0n, to: addressOf(9).bytes, gasLimit: 21_000n, gasPrice: 10n, chainId: CHAIN_ID },
      { common },
    ).sign(key(5))
    const all = [...txs, legacy, unprotected, access].map((tx) => decoded(tx, common))
    assert.equal(all[4]!.supports(Capability.EIP155ReplayProtection), false)
    assert.equal(await recoverWorkersReady(), true, 'a worker loaded')
    await Promise.all(all.map((tx) => recoverAhead(tx, common)))
    const cache = senderCacheOf(common.customCrypto.ecrecover)!
    // ethereumjs' own recovery of the same bytes (a block's verification) is answered by the cache
    const ran: unknown[] = []
    const recover = common.customCrypto.ecrecover!
    common.customCrypto.ecrecover = (...args) => {
      if (!cache.has(args)) ran.push(args)
      return recover(...args)
    }
    assert.deepEqual(
      all.map((tx) => decoded(tx, common).getSenderAddress().toString()),
      [0, 1, 2, 3, 4, 5].map((i) => addressOf(i).toString()),
    )
    assert.deepEqual(ran, [], 'no recovery missed the cache')
  })

  it('resolves without a sender where ethereumjs would not recover, or keeps nothing, and without the cache', async () => {
    const common = createEvmCommon(CHAIN_ID)
    assert.equal(await recoverWorkersReady(), true)
    const signed = transfer(common, 0, 0n, addressOf(1).bytes)
    // unsigned
    const unsigned = createTx({ type: 2, nonce: 0n, gasLimit: 21_000n, chainId: CHAIN_ID }, { common })
    assert.equal(recoveryArgs(unsigned), undefined)
    // unfrozen: ethereumjs keeps no sender for it
    assert.equal(recoveryArgs(createTxFromRLP(signed.serialize(), { common, freeze: false })), undefined)
    // a high s: refused when the tx is made, before any recovery
    assert.throws(() => createTx({ ...signed.toJSON(), s: SECP256K1_ORDER - signed.s! }, { common }), /s-values/)
    // an r that is no point of the curve: the worker's recovery throws, the node's own then says why
    const offCurve = createTx({ ...signed.toJSON(), r: SECP256K1_ORDER + 1n }, { common })
    assert.notEqual(recoveryArgs(offCurve), undefined)
    assert.equal(await recoverAhead(offCurve, common), undefined)
    assert.throws(() => offCurve.getSenderAddress(), /Invalid Signature/)
    // a Common without the sender cache
    const plain = createEvmCommon(CHAIN_ID, { ecrecover: native.fastEcrecover })
    assert.equal(await recoverAhead(decoded(transfer(plain, 0, 0n, addressOf(1).bytes), plain), plain), undefined)
  })

  it("resolves with the sender, which the node's tx then takes without hashing or recovering again", async () => {
    const common = createEvmCommon(CHAIN_ID)
    assert.equal(await recoverWorkersReady(), true)
    const raw = transfer(common, 4, 0n, addressOf(9).bytes).serialize()
    const sender = await recoverAhead(createTxFromRLP(raw, { common }), common)
    assert.equal(bytesToHex(sender!), addressOf(4).toString())
    // recovered once: asking again for the same bytes needs no worker
    assert.equal(await recoverAhead(createTxFromRLP(raw, { common }), common), undefined)
    const tx = createTxFromRLP(raw, { common })
    const asked = countCalls(Object.getPrototypeOf(tx), 'getSenderPublicKey')
    try {
      presetSender(tx, sender!)
      assert.equal(tx.getSenderAddress().toString(), addressOf(4).toString())
      assert.equal(asked.count, 0, 'no signature hashed or recovered on the node')
      // an unfrozen tx is not preset: it is recovered as it is now
      const open = createTxFromRLP(raw, { common, freeze: false })
      presetSender(open, addressOf(7).bytes)
      assert.equal(open.getSenderAddress().toString(), addressOf(4).toString())
      assert.equal(asked.count, 1)
    } finally {
      asked.restore()
    }
  })

  it('goes on without workers when one dies: what it held resolves without a sender, and so does all after', async () => {
    // a worker that says it is loaded and exits at its first batch
    const dying = () =>
      new Worker(
        "const { parentPort } = require('node:worker_threads'); parentPort.postMessage('ready'); parentPort.on('message', () => process.exit(3))",
        { eval: true },
      )
    const pool = new RecoverPool(1, dying)
    assert.equal(await pool.ready(), true)
    const common = createEvmCommon(CHAIN_ID)
    const cache = senderCacheOf(common.customCrypto.ecrecover)!
    const raw = transfer(common, 5, 0n, addressOf(9).bytes).serialize()
    const args = recoveryArgs(createTxFromRLP(raw, { common }))!
    assert.equal(await pool.recover(args, cache), undefined, 'held when it died')
    assert.equal(await pool.recover(args, cache), undefined, 'after')
    assert.equal(await pool.ready(), false)
    // the node recovers the sender itself
    assert.equal(createTxFromRLP(raw, { common }).getSenderAddress().toString(), addressOf(5).toString())
  })
})
