/**
 * The proposer-slot builder: with txs waiting, the slot's proposer is told at once (after the minimum delay), every
 * other validator only at the start of its own first slot, so a dead proposer costs one 5 s slot; nobody is told
 * while the pool is empty, and an empty build waits for a new tx.
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { expectedProposer, slotOf, WINDOW_MS } from '../../../../../actors/consensus/proposer.js'
import { headerTimeMs } from '../../../../../src/chains/evm/rules/child-header.js'
import { SlotBuilder } from '../../../../../src/chains/snowman/builder.js'
import { genesisValidators, LOCAL_GENESIS_VALIDATORS } from '../../../../../src/network/validators.js'
import { openTestChain, type TestChain } from '../../../../helpers/evm-chain.js'

const validators = genesisValidators(12345)
const chainId = new Uint8Array(32).fill(5)
const flush = () => new Promise((r) => setTimeout(r, 20))

describe('SlotBuilder', () => {
  const chains: TestChain[] = []
  after(async () => {
    for (const c of chains) await c.close()
  })

  it('tells the slot proposer at once and the others at their own slot', async () => {
    const clock = { now: Date.now() }
    const chain = await openTestChain({ now: () => clock.now })
    chains.push(chain)
    const parentTs = Number(headerTimeMs(chain.vm.lastAccepted().header))
    const current = slotOf(parentTs, clock.now)
    const slotStart = (s: bigint) => parentTs + Number(s) * WINDOW_MS
    const proposerNow = expectedProposer(validators, chainId, 1n, current)!

    const told: string[] = []
    const builders = LOCAL_GENESIS_VALIDATORS.map((self) => {
      const b = new SlotBuilder({
        vm: chain.vm,
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
    assert.deepEqual(told, [], 'nobody is told while the pool is empty')

    await chain.vm.submitTransaction(await chain.signTransfer())
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

    // an empty build waits for a new tx before trying again
    const proposer = builders.find((x) => x.self === proposerNow)!.b
    proposer.buildWasEmpty()
    proposer.schedule()
    await flush()
    assert.equal(proposer.nextAt, 0)
    await chain.vm.submitTransaction(await chain.signTransfer({ nonce: 1n }))
    await flush()
    assert.equal(told.filter((s) => s === proposerNow).length, 2, 'a new tx wakes the proposer again')
    for (const { b } of builders) b.stop()
  })
})
