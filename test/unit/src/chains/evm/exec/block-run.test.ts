import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { bytesToHex, createAddressFromString, privateToAddress } from '@ethereumjs/util'
import { openTestChain, type TestChain } from '../../../../../helpers/evm-chain.js'

/** the KZG point evaluation precompile: ethereumjs throws (not an EVM error) when it has no KZG library */
const KZG = `0x${'00'.repeat(19)}0a`
const OTHER = `0x${'42'.repeat(20)}`

describe('a block run', () => {
  let chain: TestChain
  before(async () => {
    chain = await openTestChain()
  })
  after(() => chain.close())

  it('refuses a tx that makes ethereumjs throw, and the block around it keeps its state', async () => {
    const key = Uint8Array.from({ length: 32 }, (_, i) => i + 1)
    await chain.mine([await chain.signTransfer({ to: bytesToHex(privateToAddress(key)), value: 10n ** 18n })])
    const failing = await chain.signTransfer({ to: KZG, value: 1n, gasLimit: 100_000n })
    const other = await chain.signTransfer({ key, to: OTHER, value: 7n })
    await chain.vm.submitTransaction(failing)
    await chain.vm.submitTransaction(other)
    const block = await chain.vm.buildAndAccept()
    assert.deepEqual(
      block.txs.map((tx) => bytesToHex(tx.hash())),
      [bytesToHex(other.hash())],
      'the failing tx is left out',
    )
    // the accepted root is readable: its nodes reached the database (the failing tx left ethereumjs' checkpoints
    // open, and the rest of the block went into them)
    const state = await chain.vm.core.stateAt(block.header.stateRoot)
    assert.equal((await state.getAccount(createAddressFromString(OTHER)))?.balance, 7n)
    await chain.mine([await chain.signTransfer({ key, to: OTHER, value: 1n })])
    assert.equal(
      await chain.vm.core
        .accountAt(chain.vm.core.lastAccepted().header.stateRoot, createAddressFromString(OTHER))
        .then((a) => a?.balance),
      8n,
    )
  })
})
