import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { filter, firstValueFrom } from 'rxjs'
import { BlockProducer } from '../../../../../src/chains/evm/producer.js'
import { openTestChain } from '../../../../helpers/evm-chain.js'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }

describe('BlockProducer', () => {
  it('builds every tx, including those that arrive while a block is being built', async () => {
    const chain = await openTestChain()
    const producer = new BlockProducer(chain.vm, quiet)
    producer.start()
    try {
      const count = 155
      let included = 0
      const done = firstValueFrom(
        chain.vm.accepted$.pipe(
          filter((block) => {
            included += block.receipts.length
            return included >= count
          }),
        ),
      )
      // waves: the producer starts building the first wave (150 txs), the last 5 arrive while that block is being built
      const signed = []
      for (let n = 0n; n < BigInt(count); n++) signed.push(await chain.signTransfer({ nonce: n }))
      let building = false
      const sub = chain.vm.pendingTx$.subscribe(() => undefined)
      for (const tx of signed.slice(0, 150)) await chain.vm.submitTransaction(tx)
      while (!building) {
        await new Promise((resolve) => setImmediate(resolve))
        building =
          chain.vm.core.executor.pending.size > 0 || chain.vm.lastAccepted().header.number > 0n || producer.building
      }
      for (const tx of signed.slice(150)) await chain.vm.submitTransaction(tx)
      sub.unsubscribe()
      await done
      assert.equal(included, count)
      assert.ok(producer.produced >= 1)
      assert.ok(producer.produced < count, `${producer.produced} blocks for ${count} txs: blocks hold many txs`)
    } finally {
      await producer.stop()
      await chain.close()
    }
  })

  it('stops cleanly and builds nothing afterwards', async () => {
    const chain = await openTestChain()
    const producer = new BlockProducer(chain.vm, quiet)
    producer.start()
    await producer.stop()
    await chain.vm.submitTransaction(await chain.signTransfer())
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.equal(chain.vm.lastAccepted().header.number, 0n)
    assert.equal(chain.vm.pool.stats().pending, 1)
    await chain.close()
  })
})
