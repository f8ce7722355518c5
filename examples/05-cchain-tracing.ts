/**
 * The C chain's developer APIs on a throwaway dev node (`--dev` enables them): trace a contract call with
 * debug_traceTransaction (callTracer, prestateTracer in diff mode, the default struct logger), look into the
 * transaction pool with txpool_status / txpool_content, and sign with a node-held key through personal_newAccount
 * and personal_sendTransaction. Stops the node when done.
 *
 *   node --import tsx examples/05-cchain-tracing.ts
 */
import '../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { type Contract, ContractFactory, JsonRpcProvider, parseEther, toQuantity, Wallet, zeroPadValue } from 'ethers'
import { EWOQ_ADDRESS, EWOQ_PRIVATE_KEY } from '../src/chains/evm/rules/presets.js'
import { startFirn } from '../test/helpers/firn-process.js'
import { compile } from '../test/helpers/solc.js'

interface CallFrame {
  type: string
  from: string
  to: string
  gasUsed: string
  input: string
  output?: string
  logs?: { address: string; topics: string[] }[]
}
type AccountState = { balance?: string; nonce?: number; code?: string; storage?: Record<string, string> }
interface StructLog {
  pc: number
  op: string
  gas: number
  gasCost: number
  depth: number
  stack?: string[]
}

const counter = compile('Counter')
const node = await startFirn({ args: ['--dev'] })
// blocks come within milliseconds: no request cache (a cached pending nonce goes stale) and 50 ms polling
const provider = new JsonRpcProvider(`${node.url}/ext/bc/C/rpc`, 43112, { staticNetwork: true, cacheTimeout: -1 })
provider.pollingInterval = 50
try {
  const ewoq = new Wallet(EWOQ_PRIVATE_KEY, provider)
  const factory = new ContractFactory(counter.abi as never, counter.bytecode, ewoq)
  const contract = (await factory.deploy(41n)) as Contract
  await contract.waitForDeployment()
  const address = (await contract.getAddress()).toLowerCase()
  const tx = await contract.getFunction('increment')('traced')
  const receipt = await tx.wait()
  assert.equal(receipt.status, 1)
  console.log(`Counter at ${address}; increment("traced") is ${tx.hash} in block ${receipt.blockNumber}`)

  const trace = <T>(config: Record<string, unknown>) =>
    provider.send('debug_traceTransaction', [tx.hash, config]) as Promise<T>

  // callTracer: the call tree, with the emitted logs
  const call = await trace<CallFrame>({ tracer: 'callTracer', tracerConfig: { withLog: true } })
  assert.equal(call.type, 'CALL')
  assert.equal(call.from, EWOQ_ADDRESS)
  assert.equal(call.to, address)
  assert.equal(BigInt(call.output ?? '0x'), 42n)
  assert.equal(call.logs?.length, 1)
  console.log(
    `callTracer: ${call.type} ${call.from} -> ${call.to}, gasUsed ${BigInt(call.gasUsed)},`,
    `output ${BigInt(call.output!)}, ${call.logs!.length} log(s)`,
  )

  // prestateTracer in diff mode: what the transaction changed
  const diff = await trace<{ pre: Record<string, AccountState>; post: Record<string, AccountState> }>({
    tracer: 'prestateTracer',
    tracerConfig: { diffMode: true },
  })
  const slot0 = zeroPadValue('0x00', 32)
  assert.equal(BigInt(diff.pre[address]?.storage?.[slot0] ?? '0x'), 41n)
  assert.equal(BigInt(diff.post[address]?.storage?.[slot0] ?? '0x'), 42n)
  assert.ok(BigInt(diff.post[EWOQ_ADDRESS]!.balance!) < BigInt(diff.pre[EWOQ_ADDRESS]!.balance!), 'the sender paid')
  assert.equal(diff.post[EWOQ_ADDRESS]!.nonce, diff.pre[EWOQ_ADDRESS]!.nonce! + 1)
  const short = (s: AccountState | undefined) => ({
    ...s,
    code: s?.code && `${s.code.slice(0, 18)}... (${(s.code.length - 2) / 2} bytes)`,
  })
  console.log('prestateTracer diff, contract pre: ', short(diff.pre[address]))
  console.log('prestateTracer diff, contract post:', short(diff.post[address]))
  console.log(`  sender nonce ${diff.pre[EWOQ_ADDRESS]!.nonce} -> ${diff.post[EWOQ_ADDRESS]!.nonce}`)

  // the default struct logger, first 10 steps
  const steps = await trace<{ gas: number; failed: boolean; returnValue: string; structLogs: StructLog[] }>({
    limit: 10,
  })
  assert.equal(steps.failed, false)
  assert.equal(steps.gas, Number(receipt.gasUsed))
  assert.equal(steps.structLogs.length, 10)
  assert.deepEqual(
    steps.structLogs.slice(0, 3).map((s) => s.op),
    ['PUSH1', 'PUSH1', 'MSTORE'],
  )
  console.log(`struct logger: gas ${steps.gas}, failed ${steps.failed}, first ${steps.structLogs.length} steps:`)
  for (const s of steps.structLogs) {
    console.log(`  pc ${String(s.pc).padStart(3)} ${s.op.padEnd(12)} gas ${s.gas} cost ${s.gasCost} stack [${s.stack}]`)
  }

  // the pool: empty once blocks are built, then a transaction with a nonce gap stays queued
  const idle = (await provider.send('txpool_status', [])) as { pending: string; queued: string }
  assert.deepEqual(idle, { pending: '0x0', queued: '0x0' })
  const gapped = Wallet.createRandom(provider)
  await (await ewoq.sendTransaction({ to: gapped.address, value: parseEther('1') })).wait()
  const queuedHash = await provider.send('eth_sendRawTransaction', [
    await gapped.signTransaction({
      to: EWOQ_ADDRESS,
      value: 1n,
      nonce: 1,
      gasLimit: 21_000n,
      maxFeePerGas: 1_000_000_000n,
      maxPriorityFeePerGas: 1n,
      chainId: 43112n,
      type: 2,
    }),
  ])
  const status = (await provider.send('txpool_status', [])) as { pending: string; queued: string }
  assert.deepEqual(status, { pending: '0x0', queued: '0x1' })
  const content = (await provider.send('txpool_content', [])) as {
    queued: Record<string, Record<string, { hash: string }>>
  }
  const queuedEntry = Object.entries(content.queued).find(
    ([from]) => from.toLowerCase() === gapped.address.toLowerCase(),
  )
  assert.equal(queuedEntry?.[1]['1']?.hash, queuedHash)
  console.log(`txpool_status idle ${JSON.stringify(idle)}, with a nonce gap ${JSON.stringify(status)}`)
  console.log(`txpool_content queued: ${queuedEntry![0]} nonce 1 ${queuedHash}`)

  // personal: a key held by the node's keystore, used with its passphrase
  const account = (await provider.send('personal_newAccount', ['correct horse battery staple'])) as string
  await (await ewoq.sendTransaction({ to: account, value: parseEther('2') })).wait()
  const to = Wallet.createRandom().address
  const hash = (await provider.send('personal_sendTransaction', [
    { from: account, to, value: toQuantity(parseEther('0.25')) },
    'correct horse battery staple',
  ])) as string
  // wait() on the response checks the receipt at once; waitForTransaction would only look on new blocks
  const sent = await (await provider.getTransaction(hash))?.wait()
  assert.equal(sent?.status, 1)
  assert.equal(sent?.from.toLowerCase(), account.toLowerCase())
  assert.equal(await provider.getBalance(to), parseEther('0.25'))
  const listed = (await provider.send('personal_listAccounts', [])) as string[]
  assert.ok(listed.some((a) => a.toLowerCase() === account.toLowerCase()))
  console.log(`personal_newAccount ${account}; personal_sendTransaction ${hash} in block ${sent?.blockNumber}`)
  console.log(`${to} received ${await provider.getBalance(to)} wei`)
} finally {
  provider.destroy()
  await node.cleanup()
}
