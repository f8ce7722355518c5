import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { bytesToHex } from '@ethereumjs/util'
import { decodeBlock } from '../../../../../src/chains/evm/header.js'
import { EWOQ_ADDRESS, LOCAL_EWOQ_BALANCE } from '../../../../../src/chains/evm/rules/presets.js'
import { openTestChain } from '../../../../helpers/evm-chain.js'

describe('EvmVm', () => {
  it('starts at the local genesis with the reference hash and EWOQ funded', async () => {
    const chain = await openTestChain({ dev: false })
    try {
      const tip = chain.vm.lastAccepted()
      assert.equal(tip.header.number, 0n)
      assert.equal(bytesToHex(tip.hash), '0x608ddbd611241719b64642d8e152537e2a5bdf46b6ddb9e8f15340c5e007b8b1')
      const view = await chain.vm.core.stateAt(tip.header.stateRoot)
      const { Address, hexToBytes } = await import('@ethereumjs/util')
      const acct = await view.getAccount(new Address(hexToBytes(EWOQ_ADDRESS)))
      assert.equal(acct?.balance, LOCAL_EWOQ_BALANCE)
    } finally {
      await chain.close()
    }
  })

  it('builds, verifies and accepts blocks that follow the chain rules', async () => {
    const chain = await openTestChain()
    try {
      const txs = [await chain.signTransfer({ type: 0 }), await chain.signTransfer({ nonce: 1n })]
      const hash = await chain.mine(txs)
      const tip = chain.vm.lastAccepted()
      assert.deepEqual(tip.hash, hash)
      assert.equal(tip.header.number, 1n)
      assert.equal(decodeBlock(tip.rlp).txs.length, 2)
      assert.equal(tip.header.gasUsed, 42_000n)
      assert.equal(chain.vm.pool.stats().pending, 0)
      // a second VM verifies the block against the rules
      const other = await openTestChain()
      try {
        const verified = await other.vm.verifyBlock(tip.rlp)
        assert.deepEqual(verified.hash, hash)
        await other.vm.acceptBlock(verified.hash)
        assert.deepEqual(other.vm.lastAccepted().header.stateRoot, tip.header.stateRoot)
      } finally {
        await other.close()
      }
    } finally {
      await chain.close()
    }
  })

  it('packs every executable tx that fits into one block', async () => {
    const chain = await openTestChain()
    try {
      const txs = []
      for (let n = 0n; n < 100n; n++) txs.push(await chain.signTransfer({ nonce: n }))
      await chain.mine(txs)
      const tip = chain.vm.lastAccepted()
      assert.equal(decodeBlock(tip.rlp).txs.length, 100)
      assert.equal(tip.header.gasUsed, 2_100_000n)
      assert.equal(chain.vm.pool.stats().pending, 0)
    } finally {
      await chain.close()
    }
  })

  it('refuses numbers above the last accepted block as unfinalized', async () => {
    const chain = await openTestChain()
    try {
      await assert.rejects(chain.vm.resolveBlock({ kind: 'number', number: 5n }), /cannot query unfinalized data/)
      assert.equal((await chain.vm.resolveBlock({ kind: 'tag', tag: 'earliest' }))?.header.number, 0n)
      assert.equal(
        await chain.vm.resolveBlock({ kind: 'hash', hash: new Uint8Array(32), requireCanonical: false }),
        null,
      )
    } finally {
      await chain.close()
    }
  })
})
