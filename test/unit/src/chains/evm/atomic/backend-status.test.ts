/**
 * `getAtomicTxStatus` while the tx's block is being accepted (src/chains/evm/atomic/backend.ts `status`): the
 * accept writes the index and then takes the tx out of the mempool; a status read that began before the write
 * must not answer `Unknown`.
 */
import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { AtomicBackend } from '../../../../../../src/chains/evm/atomic/backend.js'
import { encodeTx } from '../../../../../../src/chains/evm/atomic/codec.js'
import { fromHex } from '../../../../../../src/chains/evm/atomic/hex.js'
import { decodeSignedTx } from '../../../../../../src/chains/evm/atomic/ids.js'
import { pooled } from '../../../../../../src/chains/evm/atomic/mempool.js'
import { evmAddressOfKey, shortAddressOfKey, signTx } from '../../../../../../src/chains/evm/atomic/sign.js'
import type { ChainSharedMemory } from '../../../../../../src/chains/shared-memory/shared-memory.js'

const X = `0x${'11'.repeat(32)}`
const C = `0x${'22'.repeat(32)}`
const ASSET = `0x${'33'.repeat(32)}`
const KEY = new Uint8Array(32).fill(7)

const d = decodeSignedTx(
  encodeTx(
    signTx(
      {
        type: 'export',
        networkId: 12345,
        blockchainId: C,
        destinationChain: X,
        inputs: [{ address: evmAddressOfKey(KEY), amount: 2_000_000n, assetId: ASSET, nonce: 0n }],
        exportedOutputs: [
          {
            assetId: ASSET,
            output: { amount: 1_000_000n, locktime: 0n, threshold: 1, addresses: [shortAddressOfKey(KEY)] },
          },
        ],
      },
      [[KEY]],
    ),
  ),
)

/** An index whose `get` lets `during` run (the accept: index write, then mempool removal) before it answers. */
function racingIndex(during: () => void) {
  const stored = new Map<string, Uint8Array>()
  return {
    stored,
    get: async (key: Uint8Array) => {
      const k = Buffer.from(key).toString('hex')
      const before = stored.get(k)
      during()
      return before
    },
  }
}

describe('atomic tx status during accept', () => {
  it('a tx accepted while its index read waits is Processing, then Accepted; never Unknown', async () => {
    let backend: AtomicBackend | undefined
    const index = racingIndex(() => {
      const value = new Uint8Array(8 + d.signedBytes.length)
      new DataView(value.buffer).setBigUint64(0, 5n)
      value.set(d.signedBytes, 8)
      index.stored.set(Buffer.from(fromHex(d.id, 32, 'id')).toString('hex'), value)
      backend!.mempool.accepted([pooled(d, 0n, 0n)])
    })
    backend = new AtomicBackend({
      ctx: { networkId: 12345, chainId: C, avaxAssetId: ASSET, xChainId: X, sameSubnet: (id) => id === X },
      memory: {} as ChainSharedMemory,
      index,
      now: () => 0,
    })
    backend.mempool.add(pooled(d, 11_000n, 1n), true)
    backend.mempool.markIssued([d.id])
    assert.deepEqual(await backend.status(d.id, 5n, []), { status: 'Processing' })
    assert.deepEqual(await backend.status(d.id, 5n, []), { status: 'Accepted', blockHeight: 5n })
    assert.deepEqual(await backend.status(`0x${'44'.repeat(32)}`, 5n, []), { status: 'Unknown' })
  })
})
