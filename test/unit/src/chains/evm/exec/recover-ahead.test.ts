import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Worker } from 'node:worker_threads'
import { createTx, createTxFromRLP } from '@ethereumjs/tx'
import { bytesToHex } from '@ethereumjs/util'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'
import * as native from '../../../../../../src/chains/evm/exec/native-crypto.js'
import { RecoverPool, recoverAhead, recoverWorkersReady } from '../../../../../../src/chains/evm/exec/recover-ahead.js'
import { senderCacheOf } from '../../../../../../src/chains/evm/exec/sender-cache.js'
import { presetSender } from '../../../../../../src/chains/evm/exec/tx-sender.js'
import { countCalls } from '../../../../../helpers/count-calls.js'
import { addressOf, CHAIN_ID, key, transfer } from './fixtures.js'

describe('recoverAhead', () => {
  it("recovers senders on a worker into the sender cache: the node's own recovery is then a lookup", async () => {
    const common = createEvmCommon(CHAIN_ID)
    const txs = [0, 1, 2].map((i) => transfer(common, i, 0n, addressOf(9).bytes))
    const legacy = createTx(
      { type: 0, nonce: 0n, to: addressOf(9).bytes, gasLimit: 21_000n, gasPrice: 10n },
      { common },
    ).sign(key(3))
    const all = [...txs, legacy]
    assert.equal(await recoverWorkersReady(), true, 'a worker loaded')
    await Promise.all(all.map((tx) => recoverAhead(tx.serialize(), common)))
    const cache = senderCacheOf(common.customCrypto.ecrecover)!
    // every recovery ethereumjs now runs is answered by the cache: the native function is never reached
    const ran: unknown[] = []
    const recover = common.customCrypto.ecrecover!
    common.customCrypto.ecrecover = (...args) => {
      if (!cache.has(args)) ran.push(args)
      return recover(...args)
    }
    assert.deepEqual(
      all.map((tx) => tx.getSenderAddress().toString()),
      [0, 1, 2, 3].map((i) => addressOf(i).toString()),
    )
    assert.deepEqual(ran, [], 'no recovery missed the cache')
    assert.equal(typeof native.fastEcrecover, 'function')
  })

  it('resolves without a sender for bytes that are no tx, and for a Common without the sender cache', async () => {
    const common = createEvmCommon(CHAIN_ID)
    assert.equal(await recoverAhead(new Uint8Array([0x02, 0xc0]), common), undefined)
    assert.equal(await recoverAhead(new Uint8Array(0), common), undefined)
    const plain = createEvmCommon(CHAIN_ID, { ecrecover: native.fastEcrecover })
    assert.equal(await recoverAhead(transfer(plain, 0, 0n, addressOf(1).bytes).serialize(), plain), undefined)
  })

  it("resolves with the sender, which the node's tx then takes without hashing or recovering again", async () => {
    const common = createEvmCommon(CHAIN_ID)
    assert.equal(await recoverWorkersReady(), true)
    const raw = transfer(common, 4, 0n, addressOf(9).bytes).serialize()
    const sender = await recoverAhead(raw, common)
    assert.equal(bytesToHex(sender!), addressOf(4).toString())
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
    assert.equal(await pool.recover({ chainId: CHAIN_ID.toString(), raw }, cache), undefined, 'held when it died')
    assert.equal(await pool.recover({ chainId: CHAIN_ID.toString(), raw }, cache), undefined, 'after')
    assert.equal(await pool.ready(), false)
    // the node recovers the sender itself
    assert.equal(createTxFromRLP(raw, { common }).getSenderAddress().toString(), addressOf(5).toString())
  })
})
