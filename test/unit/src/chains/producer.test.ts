/**
 * The lone validator's producer over any chain VM (src/chains/producer.ts): on a tiny VM it builds everything
 * waiting, one block at a time, including work announced while a block is being built, waits for the VM's
 * minimum delay, and stops cleanly; on Firn's EVM (through the interface) a burst of transfers lands in few blocks.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MemoryLevel } from 'memory-level'
import { filter, firstValueFrom } from 'rxjs'
import { BlockProducer } from '../../../../src/chains/producer.js'
import type { ChainDatabase } from '../../../../src/chains/vm.js'
import { openTestChainVm, recordingAppSender } from '../../../helpers/evm-chain-vm.js'
import { TinyVm, type TinyVmOptions } from '../../../helpers/tiny-vm.js'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }

async function tinyVm(opts: TinyVmOptions = {}) {
  const level = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
  await level.open()
  const vm = new TinyVm(opts)
  await vm.initialize({
    networkId: 12345,
    chainId: 'tiny',
    alias: 'T',
    nodeId: 'NodeID-111111111111111111116DBWJs',
    db: level as unknown as ChainDatabase,
    dataDir: '',
    log: quiet,
    genesis: { timestampMs: Date.now() },
    config: '',
    dev: true,
    app: recordingAppSender(),
  })
  return { vm, close: () => level.close() }
}

describe('BlockProducer over any VM', () => {
  it('builds everything waiting, one block at a time, including what arrives during a build', async () => {
    let announced = false
    // while the first block (3 items) is being built, one more arrives
    const { vm, close } = await tinyVm({
      maxItems: 3,
      duringBuild: () => {
        if (announced) return
        announced = true
        vm.add('e')
      },
    })
    const producer = new BlockProducer(vm, quiet)
    producer.start()
    try {
      for (const item of ['a', 'b', 'c', 'd']) vm.add(item)
      await vm.acceptedCount(2)
      await producer.stop()
      assert.equal(vm.hasPending(), false, 'nothing announced during the build is lost')
      assert.equal(producer.produced, 2)
      assert.equal(vm.lastAccepted().height, 2)
      assert.equal(vm.processing.size, 0)
    } finally {
      await producer.stop()
      await close()
    }
  })

  it("waits for the VM's minimum delay between blocks", async () => {
    const { vm, close } = await tinyVm({ minDelayMs: 200 })
    const producer = new BlockProducer(vm, quiet)
    producer.start()
    try {
      vm.add('a')
      await vm.acceptedCount(1)
      vm.add('b')
      await vm.acceptedCount(2)
      const [first, second] = await Promise.all([vm.getBlock(vm.accepted[0]!), vm.getBlock(vm.accepted[1]!)])
      assert.ok(second!.timestampMs - first!.timestampMs >= 200, 'the second block waited for the minimum delay')
    } finally {
      await producer.stop()
      await close()
    }
  })

  it('gathers work that keeps arriving into one block, at most one build per gathering window', async () => {
    const { vm, close } = await tinyVm({ maxItems: 1_000 })
    const producer = new BlockProducer(vm, quiet, { gatherMs: 400, quietMs: 100 })
    producer.start()
    try {
      vm.add('first')
      await vm.acceptedCount(1)
      // an item every 5 ms for ~150 ms: never quiet for 100 ms, all inside one window
      for (let i = 0; i < 30; i++) {
        vm.add(`item ${i}`)
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      await vm.acceptedCount(2)
      await new Promise((resolve) => setTimeout(resolve, 150))
      assert.equal(vm.lastAccepted().height, 2, 'the 30 items went into one block')
      assert.equal(vm.hasPending(), false)
    } finally {
      await producer.stop()
      await close()
    }
  })

  it('builds at once when work stops arriving, however long the gathering window', async () => {
    const { vm, close } = await tinyVm()
    const producer = new BlockProducer(vm, quiet, { gatherMs: 60_000, quietMs: 10 })
    producer.start()
    try {
      const started = performance.now()
      for (const item of ['a', 'b', 'c']) {
        // a script that sends one thing and waits for its block
        vm.add(item)
        await vm.acceptedCount(vm.accepted.length + 1)
      }
      assert.equal(vm.lastAccepted().height, 3)
      assert.ok(performance.now() - started < 5_000, 'no build waited for the window')
    } finally {
      await producer.stop()
      await close()
    }
  })

  it('stops cleanly and builds nothing afterwards', async () => {
    const { vm, close } = await tinyVm()
    const producer = new BlockProducer(vm, quiet, { retryMs: 10 })
    producer.start()
    await producer.stop()
    vm.add('a')
    await new Promise((resolve) => setTimeout(resolve, 30))
    assert.equal(vm.lastAccepted().height, 0)
    assert.equal(vm.hasPending(), true)
    await close()
  })

  it('lands a burst of EVM transfers in few blocks, including those sent during a build', async () => {
    const chain = await openTestChainVm()
    const { vm } = chain
    const producer = new BlockProducer(vm, quiet)
    producer.start()
    try {
      const count = 155
      let included = 0
      const done = firstValueFrom(
        vm.evm.accepted$.pipe(
          filter((block) => {
            included += block.receipts.length
            return included >= count
          }),
        ),
      )
      const signed = []
      for (let n = 0n; n < BigInt(count); n++) signed.push(await chain.signTransfer({ nonce: n }))
      for (const tx of signed.slice(0, 150)) await vm.admitTransaction(tx)
      while (!producer.building && vm.lastAccepted().height === 0) await new Promise((r) => setImmediate(r))
      for (const tx of signed.slice(150)) await vm.admitTransaction(tx)
      await done
      assert.equal(included, count)
      assert.ok(producer.produced >= 1)
      assert.ok(producer.produced < count, `${producer.produced} blocks for ${count} txs: blocks hold many txs`)
    } finally {
      await producer.stop()
      await chain.close()
    }
  })
})
