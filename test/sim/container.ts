/**
 * The container a simulated block weighs: a real C-chain block built by Firn's EVM (the local preset, one EIP-1559
 * transfer in it: the smallest block a busy-ish chain makes), signed by the proposer as the node signs it
 * (src/chains/snowman/signed-block.ts: the block, the staking certificate, the staking-key signature; here local
 * staker 1's RSA-4096 certificate of test/fixtures/staking). `DEFAULT_CONTAINER_BYTES` in consensus-sim.ts is
 * this length (test/sim/sim.test.ts checks it); `node --import tsx test/sim/container.ts` prints it.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { encodeSignedBlock, signBlock } from '../../src/chains/snowman/signed-block.js'
import { stakingIdentityFromPem } from '../../src/identity/staking.js'
import { openTestChain } from '../helpers/evm-chain.js'
import { WIRE_EPOCH_MS } from './wire.js'

const fixture = (name: string): string =>
  readFileSync(fileURLToPath(new URL(`../fixtures/staking/${name}`, import.meta.url)), 'utf8')

export interface MeasuredContainer {
  /** the EVM block's RLP */
  blockBytes: number
  /** the signed container: what PushQuery and Put carry */
  containerBytes: number
  txs: number
}

/** Builds one block with `txs` transfers on a fresh local chain and signs it; the clock is fixed, so it is stable. */
export async function measureContainer(txs = 1): Promise<MeasuredContainer> {
  let t = WIRE_EPOCH_MS
  const chain = await openTestChain({ now: () => ++t })
  try {
    for (let i = 0; i < txs; i++) await chain.vm.submitTransaction(await chain.signTransfer())
    const block = await chain.vm.buildBlock()
    const identity = stakingIdentityFromPem(fixture('staker1.key'), fixture('staker1.crt'))
    const chainId = new Uint8Array(32).fill(7)
    const container = encodeSignedBlock(signBlock(identity, chainId, block.hash, block.rlp))
    return { blockBytes: block.rlp.byteLength, containerBytes: container.byteLength, txs: block.txs.length }
  } finally {
    await chain.close()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify({ empty: await measureContainer(0), oneTransfer: await measureContainer(1) }))
}
