import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createTx } from '@ethereumjs/tx'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'
import * as native from '../../../../../../src/chains/evm/exec/native-crypto.js'
import { recoverAhead, recoverWorkersReady } from '../../../../../../src/chains/evm/exec/recover-ahead.js'
import { senderCacheOf } from '../../../../../../src/chains/evm/exec/sender-cache.js'
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

  it('resolves for bytes that are no tx, and for a Common without the sender cache', async () => {
    const common = createEvmCommon(CHAIN_ID)
    await recoverAhead(new Uint8Array([0x02, 0xc0]), common)
    await recoverAhead(new Uint8Array(0), common)
    const plain = createEvmCommon(CHAIN_ID, { ecrecover: native.fastEcrecover })
    await recoverAhead(transfer(plain, 0, 0n, addressOf(1).bytes).serialize(), plain)
  })
})
