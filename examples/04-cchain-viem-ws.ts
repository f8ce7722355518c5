/**
 * Follow the C chain of a throwaway dev node over WebSocket with viem: deploy an ERC-20, then watch new heads
 * (eth_subscribe newHeads) and the token's Transfer logs (eth_subscribe logs) while a wallet client sends a few
 * transfers; unsubscribe and close the socket. Stops the node when done.
 *
 *   node --import tsx examples/04-cchain-viem-ws.ts
 */
import '../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import {
  type Address,
  createPublicClient,
  createWalletClient,
  defineChain,
  formatEther,
  type Hex,
  parseAbiItem,
  parseEther,
  webSocket,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { EWOQ_ADDRESS, EWOQ_PRIVATE_KEY } from '../src/chains/evm/rules/presets.js'
import { startFirn } from '../test/helpers/firn-process.js'
import { compile } from '../test/helpers/solc.js'

const TRANSFERS = 3
const token = compile('Token')
const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')

/** Resolves when `ready()` is true after a call to `check`, or rejects after `ms`. */
function until(what: string, ms: number, ready: () => boolean): { check(): void; done: Promise<void> } {
  let check = () => {}
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)
    check = () => {
      if (!ready()) return
      clearTimeout(timer)
      resolve()
    }
  })
  return { check: () => check(), done }
}

const node = await startFirn({ args: ['--dev'] })
try {
  const wsUrl = `${node.url.replace(/^http/, 'ws')}/ext/bc/C/ws`
  const chain = defineChain({
    id: 43112,
    name: 'Firn local C chain',
    nativeCurrency: { name: 'Avalanche', symbol: 'AVAX', decimals: 18 },
    rpcUrls: { default: { http: [`${node.url}/ext/bc/C/rpc`], webSocket: [wsUrl] } },
  })
  // one transport, one socket: no reconnecting to a node we are about to stop
  const transport = webSocket(wsUrl, { reconnect: false })
  // waitForTransactionReceipt polls (every 4 s by default); blocks here come within milliseconds
  const client = createPublicClient({ chain, transport, pollingInterval: 50 })
  const account = privateKeyToAccount(`0x${EWOQ_PRIVATE_KEY}`)
  assert.equal(account.address.toLowerCase(), EWOQ_ADDRESS)
  const wallet = createWalletClient({ chain, transport, account })
  try {
    console.log(`connected to ${wsUrl}, chain id ${await client.getChainId()}, block ${await client.getBlockNumber()}`)
    console.log(`${account.address} holds ${formatEther(await client.getBalance({ address: account.address }))} AVAX`)

    const deployHash = await wallet.deployContract({
      abi: token.abi,
      bytecode: token.bytecode,
      args: [parseEther('1000000')],
    })
    const deployed = await client.waitForTransactionReceipt({ hash: deployHash })
    assert.equal(deployed.status, 'success')
    const tokenAddress = deployed.contractAddress as Address
    console.log(`Token deployed at ${tokenAddress} in block ${deployed.blockNumber}`)

    const heads: { number: bigint; hash: Hex; txs: number }[] = []
    const transfers: { from: Address; to: Address; value: bigint; block: bigint }[] = []
    const gotHeads = until(`${TRANSFERS} new heads`, 10_000, () => heads.length >= TRANSFERS)
    const gotLogs = until(`${TRANSFERS} Transfer logs`, 10_000, () => transfers.length >= TRANSFERS)
    const errors: Error[] = []
    const unwatchBlocks = client.watchBlocks({
      onBlock: (block) => {
        heads.push({ number: block.number, hash: block.hash, txs: block.transactions.length })
        gotHeads.check()
      },
      onError: (err) => errors.push(err),
    })
    const unwatchEvent = client.watchEvent({
      address: tokenAddress,
      event: transferEvent,
      onLogs: (logs) => {
        for (const log of logs) {
          transfers.push({ from: log.args.from!, to: log.args.to!, value: log.args.value!, block: log.blockNumber })
        }
        gotLogs.check()
      },
      onError: (err) => errors.push(err),
    })
    // the subscriptions are set up asynchronously: wait until both are registered with the node
    const rpc = await transport({ chain }).value!.getRpcClient()
    for (let i = 0; rpc.subscriptions.size < 2; i++) {
      assert.ok(i < 100, 'subscriptions registered')
      await new Promise((r) => setTimeout(r, 20))
    }

    const recipients = Array.from({ length: TRANSFERS }, () => privateKeyToAccount(generatePrivateKey()).address)
    for (const [i, to] of recipients.entries()) {
      const hash = await wallet.writeContract({
        address: tokenAddress,
        abi: token.abi,
        functionName: 'transfer',
        args: [to, BigInt(i + 1) * 100n],
      })
      const receipt = await client.waitForTransactionReceipt({ hash })
      assert.equal(receipt.status, 'success')
      console.log(`sent transfer ${i + 1}: ${hash} in block ${receipt.blockNumber}`)
    }
    await Promise.all([gotHeads.done, gotLogs.done])
    unwatchBlocks()
    unwatchEvent()
    assert.deepEqual(errors, [])

    for (const h of heads) console.log(`newHeads: block ${h.number} ${h.hash} (${h.txs} txs)`)
    for (const t of transfers) console.log(`Transfer: ${t.from} -> ${t.to} ${t.value} (block ${t.block})`)
    assert.equal(transfers.length, TRANSFERS)
    assert.deepEqual(
      transfers.map((t) => [t.from.toLowerCase(), t.to, t.value]),
      recipients.map((to, i) => [EWOQ_ADDRESS, to, BigInt(i + 1) * 100n]),
    )
    for (let i = 1; i < heads.length; i++) assert.equal(heads[i]!.number, heads[i - 1]!.number + 1n)
    const balance = await client.readContract({
      address: tokenAddress,
      abi: token.abi,
      functionName: 'balanceOf',
      args: [recipients.at(-1)!],
    })
    assert.equal(balance, BigInt(TRANSFERS) * 100n)
    console.log(`last recipient's token balance: ${balance}`)

    // unwatching sends eth_unsubscribe; wait for the node to confirm before closing the socket
    for (let i = 0; rpc.subscriptions.size > 0 || rpc.requests.size > 0; i++) {
      assert.ok(i < 100, 'subscriptions removed')
      await new Promise((r) => setTimeout(r, 20))
    }
    console.log('unsubscribed')
  } finally {
    const rpc = await transport({ chain }).value?.getRpcClient()
    rpc?.close()
  }
} finally {
  await node.cleanup()
}
