/**
 * Five validators on loopback agree on the C chain: start the local network (the reference's public test keys,
 * throwaway data dir, free ports), send a transfer to node 1 with ethers, and read the same receipt and block hash
 * from every node once consensus has accepted it. Stops the five nodes when done.
 *
 *   node --import tsx examples/06-network-consensus.ts
 */
import '../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { JsonRpcProvider, parseEther, Wallet } from 'ethers'
import { networkLayout, start, stop } from '../scripts/network.js'
import { EWOQ_PRIVATE_KEY } from '../src/chains/evm/rules/presets.js'

const dir = await mkdtemp(join(tmpdir(), 'firn-example-network-'))
// a base port away from the defaults so a `make network` of your own keeps running
const basePort = 21000 + Math.floor(Math.random() * 3000)
const layout = networkLayout({ FIRN_NETWORK_DIR: dir, FIRN_NETWORK_BASE_PORT: String(basePort) })
try {
  if ((await start(layout)) !== 0) throw new Error('the network did not start')
  const providers = layout.nodes.map(
    (n) =>
      new JsonRpcProvider(`http://127.0.0.1:${n.httpPort}/ext/bc/C/rpc`, 43112, {
        staticNetwork: true,
        cacheTimeout: -1,
      }),
  )
  // every chain has bootstrapped once its RPC answers (503 before)
  for (const p of providers) {
    for (let i = 0; ; i++) {
      try {
        await p.getBlockNumber()
        break
      } catch (err) {
        if (i > 600) throw err
        await new Promise((r) => setTimeout(r, 100))
      }
    }
  }
  const ewoq = new Wallet(EWOQ_PRIVATE_KEY, providers[0])
  const to = Wallet.createRandom().address
  const started = Date.now()
  // a gas limit of our own: ethers would estimate with only the tip set, which the node refuses as geth does
  const sent = await ewoq.sendTransaction({ to, value: parseEther('2'), gasLimit: 21_000n, maxPriorityFeePerGas: 1n })
  console.log(`sent ${sent.hash} to node 1`)
  const hashes = await Promise.all(
    providers.map(async (p) => {
      for (;;) {
        const receipt = await p.getTransactionReceipt(sent.hash)
        if (receipt !== null) return receipt.blockHash
        await new Promise((r) => setTimeout(r, 10))
      }
    }),
  )
  console.log(`accepted by all five nodes in ${Date.now() - started} ms, in block ${hashes[0]}`)
  assert.equal(new Set(hashes).size, 1, 'every node accepted the same block')
  assert.equal(await providers[4]?.getBalance(to), parseEther('2'), 'node 5 sees the balance sent through node 1')
} finally {
  await stop(layout, true)
  await rm(dir, { recursive: true, force: true })
}
