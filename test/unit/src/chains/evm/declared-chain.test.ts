import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Address, bytesToHex, hexToBytes } from '@ethereumjs/util'
import { decodeBlock, headerHash } from '../../../../../src/chains/evm/header.js'
import { genesisHeader, genesisStateRoot } from '../../../../../src/chains/evm/rules/genesis.js'
import { evmPresetFromGenesis } from '../../../../../src/chains/evm/rules/genesis-json.js'
import { EWOQ_ADDRESS } from '../../../../../src/chains/evm/rules/presets.js'
import { openTestChain } from '../../../../helpers/evm-chain.js'

/** The chain D: its own chain ID, EWOQ funded, no timestamp (genesis at 0, before every local upgrade). */
const D_GENESIS = {
  config: { chainId: 99999 },
  gasLimit: '0x7A1200',
  alloc: { [EWOQ_ADDRESS]: { balance: '1000000000000000000000000' } },
}

describe('an EVM chain declared by its genesis JSON', () => {
  for (const dev of [true, false]) {
    it(`opens at its genesis and builds, verifies and accepts blocks with its chain ID (dev ${dev})`, async () => {
      const preset = evmPresetFromGenesis(D_GENESIS, { networkId: 12345, dev })
      // the clock starts after the 2 s minimum delay a non-dev chain keeps
      let now = 1_800_000_000_000
      const chain = await openTestChain({ preset, now: () => now++ })
      const other = await openTestChain({ preset, now: () => now++ })
      try {
        const genesis = chain.vm.lastAccepted()
        assert.equal(genesis.header.number, 0n)
        assert.equal(
          bytesToHex(genesis.hash),
          bytesToHex(headerHash(genesisHeader(preset, await genesisStateRoot(preset)))),
        )
        assert.equal(chain.vm.chainId, 99999n)
        const tx = await chain.signTransfer({ value: 5n })
        const hash = await chain.mine([tx])
        const tip = chain.vm.lastAccepted()
        assert.equal(tip.header.number, 1n)
        assert.equal(decodeBlock(tip.rlp).txs.length, 1)
        assert.equal(tip.header.minDelayExcess, dev ? 0n : 7_970_124n)
        const view = await chain.vm.core.stateAt(tip.header.stateRoot)
        const to = await view.getAccount(new Address(hexToBytes(`0x${'11'.repeat(20)}`)))
        assert.equal(to?.balance, 5n)
        const verified = await other.vm.verifyBlock(tip.rlp)
        assert.deepEqual(verified.hash, hash)
      } finally {
        await chain.close()
        await other.close()
      }
    })
  }
})
