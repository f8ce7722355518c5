/**
 * Drive the C chain of a throwaway dev node with ethers v6: balances, an EIP-1559 transfer and the Avalanche block
 * fields, a Solidity contract (deploy, call, events by topic, a revert reason), and the fee and chain-config
 * methods. Stops the node when done.
 *
 *   node --import tsx examples/03-cchain-ethers.ts
 */
import '../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { type Contract, ContractFactory, formatEther, JsonRpcProvider, parseEther, Wallet } from 'ethers'
import { EWOQ_ADDRESS, EWOQ_PRIVATE_KEY } from '../src/chains/evm/rules/presets.js'
import { startFirn } from '../test/helpers/firn-process.js'
import { compile } from '../test/helpers/solc.js'

const counter = compile('Counter')
const node = await startFirn({ args: ['--dev'] })
// blocks come within milliseconds: no request cache (a cached pending nonce goes stale) and 50 ms polling
const provider = new JsonRpcProvider(`${node.url}/ext/bc/C/rpc`, 43112, { staticNetwork: true, cacheTimeout: -1 })
provider.pollingInterval = 50
try {
  const ewoq = new Wallet(EWOQ_PRIVATE_KEY, provider)
  const balance = await provider.getBalance(EWOQ_ADDRESS)
  console.log(`${EWOQ_ADDRESS} holds ${formatEther(balance)} AVAX`)
  assert.ok(balance > parseEther('1000'), 'the funded account has funds')

  // an EIP-1559 transfer; wait() on the response checks the receipt at once (waitForTransaction only on new blocks)
  const to = Wallet.createRandom().address
  const sent = await ewoq.sendTransaction({ to, value: parseEther('1.5') })
  assert.equal(sent.type, 2)
  const receipt = await sent.wait()
  assert.ok(receipt)
  assert.equal(receipt.status, 1)
  console.log(
    `transfer ${sent.hash}: block ${receipt.blockNumber}, gas used ${receipt.gasUsed},`,
    `effective gas price ${receipt.gasPrice} wei`,
  )
  const received = await provider.getBalance(to)
  assert.equal(received, parseEther('1.5'))
  console.log(`${to} now holds ${formatEther(received)} AVAX`)

  const block = (await provider.send('eth_getBlockByNumber', [`0x${receipt.blockNumber.toString(16)}`, false])) as {
    hash: string
    timestamp: string
    timestampMilliseconds: string
    extDataHash: string
    blockGasCost: string
    baseFeePerGas: string
  }
  assert.equal(block.hash, receipt.blockHash)
  assert.ok(receipt.gasPrice >= BigInt(block.baseFeePerGas), 'effective gas price covers the base fee')
  assert.equal(BigInt(block.timestampMilliseconds) / 1000n, BigInt(block.timestamp))
  console.log('block fields:', {
    timestampMilliseconds: BigInt(block.timestampMilliseconds),
    extDataHash: block.extDataHash,
    blockGasCost: BigInt(block.blockGasCost),
    baseFeePerGas: BigInt(block.baseFeePerGas),
  })

  // a contract: deploy with a start value, call it, read its event by topic
  const factory = new ContractFactory(counter.abi as never, counter.bytecode, ewoq)
  const contract = (await factory.deploy(41n)) as Contract
  await contract.waitForDeployment()
  const address = await contract.getAddress()
  console.log(`Counter deployed at ${address}, count = ${await contract.getFunction('count')()}`)
  const inc = await (await contract.getFunction('increment')('hello from ethers')).wait()
  assert.equal(inc.status, 1)
  const count = await contract.getFunction('count')()
  assert.equal(count, 42n)
  console.log(`increment in block ${inc.blockNumber}, count = ${count}`)

  const topic = contract.interface.getEvent('Incremented')!.topicHash
  const logs = await provider.getLogs({ address, fromBlock: 0, toBlock: 'latest', topics: [topic] })
  assert.equal(logs.length, 1)
  const event = contract.interface.parseLog(logs[0]!)!
  assert.equal(event.args.by.toLowerCase(), EWOQ_ADDRESS)
  assert.equal(event.args.newCount, 42n)
  assert.equal(event.args.note, 'hello from ethers')
  console.log(`event ${event.name}(by ${event.args.by}, newCount ${event.args.newCount}, note "${event.args.note}")`)

  // a revert reason, decoded by ethers from the eth_call error
  let reason: string | null | undefined
  try {
    await contract.getFunction('failWithReason').staticCall()
  } catch (err) {
    reason = (err as { reason?: string | null }).reason
  }
  assert.equal(reason, 'counter: always fails')
  console.log(`failWithReason() reverted: "${reason}"`)

  // fees and the chain config
  const baseFee = BigInt(await provider.send('eth_baseFee', []))
  const tip = BigInt(await provider.send('eth_maxPriorityFeePerGas', []))
  assert.ok(baseFee > 0n)
  console.log(`eth_baseFee ${baseFee} wei, eth_maxPriorityFeePerGas ${tip} wei`)
  const config = (await provider.send('eth_getChainConfig', [])) as Record<string, unknown>
  assert.equal(config.chainId, 43112)
  const keys = ['chainId', 'londonBlock', 'cancunTime', 'apricotPhase3BlockTimestamp', 'etnaTimestamp']
  console.log('eth_getChainConfig:', Object.fromEntries(keys.filter((k) => k in config).map((k) => [k, config[k]])))
} finally {
  provider.destroy()
  await node.cleanup()
}
