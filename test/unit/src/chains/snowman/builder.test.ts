/**
 * The proposer-slot builder over any chain VM (here a tiny in-test VM): with work waiting, the slot's proposer is
 * told at once (after the VM's minimum delay), every other validator only at the start of its own first slot, so a
 * dead proposer costs one 5 s slot; nobody is told while nothing waits, and an empty build waits for new work.
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { MemoryLevel } from 'memory-level'
import { expectedProposer, slotOf, WINDOW_MS } from '../../../../../actors/consensus/proposer.js'
import { SlotBuilder } from '../../../../../src/chains/snowman/builder.js'
import type { ChainDatabase } from '../../../../../src/chains/vm.js'
import { genesisValidators, LOCAL_GENESIS_VALIDATORS } from '../../../../../src/network/validators.js'
import { recordingAppSender } from '../../../../helpers/evm-chain-vm.js'
import { TinyVm } from '../../../../helpers/tiny-vm.js'

const validators = genesisValidators(12345)
const chainId = new Uint8Array(32).fill(5)
const flush = () => new Promise((r) => setTimeout(r, 20))

describe('SlotBuilder', () => {
  const dbs: MemoryLevel<Uint8Array, Uint8Array>[] = []
  after(async () => {
    for (const db of dbs) await db.close()
  })

  it('tells the slot proposer at once and the others at their own slot', async () => {
    const clock = { now: Date.now() }
    const parentTs = clock.now - 12_345
    const level = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
    await level.open()
    dbs.push(level)
    const vm = new TinyVm({ now: () => clock.now })
    await vm.initialize({
      networkId: 12345,
      chainId: 'tiny',
      alias: 'T',
      nodeId: LOCAL_GENESIS_VALIDATORS[0] as string,
      db: level as unknown as ChainDatabase,
      dataDir: '',
      log: { debug() {}, info() {}, warn() {}, error() {} },
      genesis: { timestampMs: parentTs },
      config: '',
      dev: false,
      app: recordingAppSender(),
    })
    const current = slotOf(parentTs, clock.now)
    const slotStart = (s: bigint) => parentTs + Number(s) * WINDOW_MS
    const proposerNow = expectedProposer(validators, chainId, 1n, current)!

    const told: string[] = []
    const builders = LOCAL_GENESIS_VALIDATORS.map((self) => {
      const b = new SlotBuilder({
        vm,
        preferred: () => vm.lastAccepted().id,
        chainId,
        self,
        proposers: () => validators,
        notify: () => told.push(self),
        now: () => clock.now,
      })
      return { self, b }
    })
    for (const { b } of builders) b.start()
    await flush()
    assert.deepEqual(told, [], 'nobody is told while nothing waits')

    vm.add('x')
    await flush()
    assert.deepEqual(told, [proposerNow], 'only the current slot proposer is told at once')
    for (const { self, b } of builders) {
      if (self === proposerNow) continue
      // each other validator waits for the start of its own first slot: a dead proposer costs one slot
      let first = current + 1n
      while (expectedProposer(validators, chainId, 1n, first) !== self) first++
      assert.equal(b.nextAt, slotStart(first), `${self} waits for slot ${first}`)
      assert.ok(b.nextAt > clock.now)
    }

    // an empty build waits for new work before trying again
    const proposer = builders.find((x) => x.self === proposerNow)!.b
    proposer.buildWasEmpty()
    proposer.schedule()
    await flush()
    assert.equal(proposer.nextAt, 0)
    vm.add('y')
    await flush()
    assert.equal(told.filter((s) => s === proposerNow).length, 2, 'new work wakes the proposer again')
    for (const { b } of builders) b.stop()
  })
})
