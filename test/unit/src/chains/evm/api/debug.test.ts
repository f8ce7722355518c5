import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Address, bytesToHex, generateAddress, hexToBytes } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { debugMethods } from '../../../../../../src/chains/evm/api/debug.js'
import { decodeBlock } from '../../../../../../src/chains/evm/header.js'
import { EWOQ_ADDRESS } from '../../../../../../src/chains/evm/rules/presets.js'
import { type Call, caller, failure, TEST_CTX } from '../../../../../helpers/eth-methods.js'
import { openTestChain, type TestChain } from '../../../../../helpers/evm-chain.js'
import { compile } from '../../../../../helpers/solc.js'

const _ctx = TEST_CTX

const callerOf = (chain: TestChain): Call => caller(debugMethods(chain.vm))

const COINBASE = '0x0100000000000000000000000000000000000000'
const RECIPIENT = `0x${'11'.repeat(20)}`
const word = (n: bigint) => n.toString(16).padStart(64, '0')
const selector = (sig: string) =>
  Buffer.from(keccak_256(new TextEncoder().encode(sig)))
    .subarray(0, 4)
    .toString('hex')

function incrementCall(note: string): Uint8Array {
  const text = Buffer.from(note).toString('hex').padEnd(64, '0')
  return hexToBytes(`0x${selector('increment(string)')}${word(32n)}${word(BigInt(note.length))}${text}`)
}

/**
 * A proxy: forwards its calldata to `target` with CALL and returns (or reverts with) what it got back.
 * runtime: CALLDATACOPY all; CALL(gas, target, 0, 0, size, 0, 0); RETURNDATACOPY; JUMPI ok; REVERT; ok: RETURN
 */
function proxyInitCode(target: string): Uint8Array {
  const runtime = `365f5f375f5f365f5f73${target.slice(2)}5af13d5f5f3e602a573d5ffd5b3d5ff3`
  assert.equal(runtime.length / 2, 46)
  return hexToBytes(`0x602e8060095f395ff3${runtime}`)
}

describe('debug tracing methods', () => {
  let chain: TestChain
  let call: Call
  let transfer: TypedTransaction
  let transferBlock: Uint8Array
  let counter: string
  let proxy: string
  let increment: TypedTransaction
  let viaProxy: TypedTransaction
  let failing: TypedTransaction
  let pairBlock: Uint8Array
  let pair: TypedTransaction[]

  const receipt = async (tx: TypedTransaction) => {
    const loc = (await chain.vm.core.getTxLocation(tx.hash()))!
    return (await chain.vm.core.getReceipts(loc.blockHash))![loc.index]!
  }
  const balanceBefore = async (block: Uint8Array, address: string) => {
    const { header } = decodeBlock((await chain.vm.core.getBlockByHash(block))!)
    const parent = decodeBlock((await chain.vm.core.getBlockByHash(header.parentHash))!).header
    const sm = await chain.vm.core.stateAt(parent.stateRoot)
    return (await sm.getAccount(new Address(hexToBytes(address as `0x${string}`)))) ?? { balance: 0n, nonce: 0n }
  }

  before(async () => {
    chain = await openTestChain()
    call = callerOf(chain)
    transfer = await chain.signTransfer({ value: 1000n })
    transferBlock = await chain.mine([transfer])
    const deploy = await chain.signTransfer({
      data: hexToBytes(`${compile('Counter').bytecode}${word(5n)}`),
      gasLimit: 1_000_000n,
      value: 0n,
    })
    counter = bytesToHex(generateAddress(hexToBytes(EWOQ_ADDRESS), new Uint8Array([1])))
    await chain.mine([deploy])
    const deployProxy = await chain.signTransfer({ data: proxyInitCode(counter), gasLimit: 200_000n, value: 0n })
    proxy = bytesToHex(generateAddress(hexToBytes(EWOQ_ADDRESS), new Uint8Array([2])))
    await chain.mine([deployProxy])
    increment = await chain.signTransfer({ to: counter, data: incrementCall('hi'), gasLimit: 200_000n, value: 0n })
    viaProxy = await chain.signTransfer({
      to: proxy,
      data: incrementCall('via'),
      gasLimit: 300_000n,
      value: 0n,
      nonce: 4n,
    })
    failing = await chain.signTransfer({
      to: proxy,
      data: hexToBytes(`0x${selector('failWithReason()')}`),
      gasLimit: 300_000n,
      value: 0n,
      nonce: 5n,
    })
    await chain.mine([increment, viaProxy, failing])
    pair = [await chain.signTransfer({ value: 1n }), await chain.signTransfer({ value: 2n, nonce: 7n, type: 0 })]
    pairBlock = await chain.mine(pair)
  })

  after(async () => {
    await chain?.close()
  })

  it('struct-logs a plain transfer as no ops and 21000 gas', async () => {
    assert.deepEqual(await call('debug_traceTransaction', bytesToHex(transfer.hash())), {
      gas: 21000,
      failed: false,
      returnValue: '',
      structLogs: [],
    })
  })

  it('struct-logs a contract call: ops with gas, stack and the storage seen at SLOAD/SSTORE', async () => {
    const r = await call('debug_traceTransaction', bytesToHex(increment.hash()))
    assert.equal(r.gas, Number((await receipt(increment)).gasUsed))
    assert.equal(r.failed, false)
    assert.equal(r.returnValue, word(6n))
    const logs = r.structLogs as Record<string, unknown>[]
    const intrinsic = 21_000 + [...increment.data].reduce((sum, b) => sum + (b === 0 ? 4 : 16), 0)
    assert.deepEqual(logs[0], { pc: 0, op: 'PUSH1', gas: 200_000 - intrinsic, gasCost: 3, depth: 1, stack: [] })
    assert.deepEqual(logs[1]?.stack, ['0x80'])
    for (let i = 1; i < logs.length; i++) {
      const prev = logs[i - 1]!
      if (prev.depth === logs[i]!.depth && !String(prev.op).includes('CALL'))
        assert.equal(logs[i]!.gas, (prev.gas as number) - (prev.gasCost as number), `gas at ${i}`)
    }
    const stores = logs.filter((l) => l.op === 'SSTORE')
    assert.ok(stores.length >= 2)
    // count: slot 0 goes 5 -> 6 (read first by SLOAD, then written)
    const firstLoad = logs.find((l) => l.op === 'SLOAD')!
    assert.deepEqual(firstLoad.storage, { [word(0n)]: word(5n) })
    assert.equal((stores[0]!.storage as Record<string, string>)[word(0n)], word(6n))
    assert.ok(logs.some((l) => l.op === 'LOG3'))
    assert.equal(logs.at(-1)!.op, 'RETURN')
    assert.ok(logs.every((l) => l.depth === 1 && l.memory === undefined && l.error === undefined))

    const lean = await call('debug_traceTransaction', bytesToHex(increment.hash()), {
      disableStack: true,
      disableStorage: true,
      EnableMemory: true,
      limit: 5,
    })
    assert.equal(lean.structLogs.length, 5)
    assert.deepEqual(lean.structLogs[0], { pc: 0, op: 'PUSH1', gas: logs[0]!.gas, gasCost: 3, depth: 1, memory: [] })
    assert.deepEqual(lean.structLogs[3].memory, [word(0n), word(0n), word(0x80n)])
  })

  it('callTracer shows the proxy calling the counter, with logs on request', async () => {
    const r = await call('debug_traceTransaction', bytesToHex(viaProxy.hash()), {
      tracer: 'callTracer',
      tracerConfig: { withLog: true },
    })
    const used = (await receipt(viaProxy)).gasUsed
    assert.equal(r.from, EWOQ_ADDRESS)
    assert.equal(r.to, proxy)
    assert.equal(r.type, 'CALL')
    assert.equal(r.gas, '0x493e0')
    assert.equal(r.gasUsed, `0x${used.toString(16)}`)
    assert.equal(r.input, bytesToHex(incrementCall('via')))
    assert.equal(r.output, `0x${word(7n)}`)
    assert.equal(r.value, '0x0')
    assert.equal(r.calls.length, 1)
    const inner = r.calls[0]
    assert.deepEqual(Object.keys(inner), ['from', 'gas', 'gasUsed', 'to', 'input', 'output', 'logs', 'value', 'type'])
    assert.equal(inner.from, proxy)
    assert.equal(inner.to, counter)
    assert.equal(inner.type, 'CALL')
    assert.equal(inner.input, bytesToHex(incrementCall('via')))
    assert.equal(inner.output, `0x${word(7n)}`)
    assert.equal(inner.logs.length, 1)
    assert.equal(inner.logs[0].address, counter)
    assert.equal(inner.logs[0].position, '0x0')
    assert.equal(inner.logs[0].topics.length, 3)
    assert.equal(inner.logs[0].topics[2], `0x${word(7n)}`)
    assert.ok(BigInt(inner.gasUsed) > 0n && BigInt(inner.gasUsed) < BigInt(inner.gas))
    assert.equal(r.logs, undefined)

    const top = await call('debug_traceTransaction', bytesToHex(viaProxy.hash()), {
      tracer: 'callTracer',
      tracerConfig: { onlyTopCall: true },
    })
    assert.equal(top.calls, undefined)
    assert.equal(top.gasUsed, r.gasUsed)
  })

  it('callTracer reports a revert with its reason at every level', async () => {
    assert.equal((await receipt(failing)).status, 0)
    const r = await call('debug_traceTransaction', bytesToHex(failing.hash()), { tracer: 'callTracer' })
    const reason = 'counter: always fails'
    assert.equal(r.error, 'execution reverted')
    assert.equal(r.revertReason, reason)
    assert.ok(r.output.startsWith('0x08c379a0'))
    assert.equal(r.calls[0].error, 'execution reverted')
    assert.equal(r.calls[0].revertReason, reason)
    assert.equal(r.calls[0].output, r.output)
    const s = await call('debug_traceTransaction', bytesToHex(failing.hash()))
    assert.equal(s.failed, true)
    assert.equal(s.returnValue, r.output.slice(2))
    assert.ok(s.structLogs.some((l: { depth: number }) => l.depth === 2))
    assert.equal(s.structLogs.at(-1).op, 'REVERT')
  })

  it('prestateTracer gives sender, recipient and coinbase before a transfer; diffMode what changed', async () => {
    const sender = await balanceBefore(transferBlock, EWOQ_ADDRESS)
    const pre = await call('debug_traceTransaction', bytesToHex(transfer.hash()), { tracer: 'prestateTracer' })
    assert.deepEqual(pre, {
      [COINBASE]: { balance: '0x0' },
      [RECIPIENT]: { balance: '0x0' },
      [EWOQ_ADDRESS]: { balance: `0x${sender.balance.toString(16)}` },
    })
    const r = await receipt(transfer)
    const fee = r.gasUsed * r.effectiveGasPrice
    const diff = await call('debug_traceTransaction', bytesToHex(transfer.hash()), {
      tracer: 'prestateTracer',
      tracerConfig: { diffMode: true },
    })
    assert.deepEqual(Object.keys(diff), ['post', 'pre'])
    assert.deepEqual(diff.pre, pre)
    assert.deepEqual(diff.post, {
      [COINBASE]: { balance: `0x${fee.toString(16)}` },
      [RECIPIENT]: { balance: '0x3e8' },
      [EWOQ_ADDRESS]: { balance: `0x${(sender.balance - 1000n - fee).toString(16)}`, nonce: 1 },
    })
  })

  it('prestateTracer diffMode shows the slots a call changed', async () => {
    const diff = await call('debug_traceTransaction', bytesToHex(increment.hash()), {
      tracer: 'prestateTracer',
      tracerConfig: { diffMode: true },
    })
    assert.equal(diff.pre[counter].storage[`0x${word(0n)}`], `0x${word(5n)}`)
    assert.equal(diff.post[counter].storage[`0x${word(0n)}`], `0x${word(6n)}`)
    assert.equal(diff.pre[EWOQ_ADDRESS].nonce, 3)
    assert.equal(diff.post[EWOQ_ADDRESS].nonce, 4)
    assert.equal(diff.post[counter].code, undefined)
  })

  it('traces every tx of a block by number and by hash', async () => {
    const number = `0x${decodeBlock((await chain.vm.core.getBlockByHash(pairBlock))!).header.number.toString(16)}`
    const byNumber = await call('debug_traceBlockByNumber', number)
    assert.deepEqual(byNumber, [
      { txHash: bytesToHex(pair[0]!.hash()), result: { gas: 21000, failed: false, returnValue: '', structLogs: [] } },
      { txHash: bytesToHex(pair[1]!.hash()), result: { gas: 21000, failed: false, returnValue: '', structLogs: [] } },
    ])
    const byHash = await call('debug_traceBlockByHash', bytesToHex(pairBlock), { tracer: 'callTracer' })
    assert.equal(byHash.length, 2)
    assert.equal(byHash[1].txHash, bytesToHex(pair[1]!.hash()))
    assert.equal(byHash[1].result.value, '0x2')
    assert.deepEqual(await call('debug_traceBlockByNumber', 'latest'), byNumber)
  })

  it('traces a call on a block state, with the gas capped by rpc-gas-cap', async () => {
    const args = { to: counter, data: `0x${selector('count()')}` }
    const r = await call('debug_traceCall', args, 'latest', { tracer: 'callTracer' })
    assert.equal(r.from, `0x${'00'.repeat(20)}`)
    assert.equal(r.gas, `0x${(50_000_000).toString(16)}`)
    assert.equal(r.output, `0x${word(7n)}`)
    const before = await call('debug_traceCall', args, '0x3')
    assert.equal(before.returnValue, word(5n))
    assert.ok(before.structLogs.some((l: { op: string }) => l.op === 'SLOAD'))
    const capped = await call('debug_traceCall', { ...args, gas: '0xffffffffff' }, 'latest', { tracer: 'callTracer' })
    assert.equal(capped.gas, r.gas)
    // state as of a tx inside the block, and state overrides
    const latestNumber = `0x${chain.vm.lastAccepted().header.number.toString(16)}`
    const atTx = await call('debug_traceCall', args, '0x4', { txIndex: '0x1' })
    assert.equal(atTx.returnValue, word(6n))
    const overridden = await call('debug_traceCall', args, latestNumber, {
      stateOverrides: { [counter]: { stateDiff: { [`0x${word(0n)}`]: `0x${word(42n)}` } } },
    })
    assert.equal(overridden.returnValue, word(42n))
  })

  it('fails with geth texts', async () => {
    const missing = `0x${'ab'.repeat(32)}`
    assert.deepEqual(await failure(call('debug_traceTransaction', missing)), {
      code: -32000,
      message: 'transaction not found',
    })
    assert.deepEqual(await failure(call('debug_traceBlockByHash', missing)), {
      code: -32000,
      message: `block ${missing} not found`,
    })
    assert.deepEqual(await failure(call('debug_traceBlockByNumber', '0x0')), {
      code: -32000,
      message: 'genesis is not traceable',
    })
    assert.deepEqual(await failure(call('debug_traceBlockByNumber', '0x64')), {
      code: -32000,
      message: 'cannot query unfinalized data',
    })
    assert.deepEqual(await failure(call('debug_traceTransaction', bytesToHex(increment.hash()), { tracer: 'nope' })), {
      code: -32000,
      message: 'tracer not found: nope (JavaScript tracers are not supported)',
    })
    assert.deepEqual(await failure(call('debug_traceTransaction', bytesToHex(increment.hash()), { limit: '5' })), {
      code: -32602,
      message: 'invalid argument 1: json: cannot unmarshal string into Go struct field TraceConfig.Limit of type int',
    })
    assert.deepEqual(
      await failure(
        call('debug_traceTransaction', bytesToHex(increment.hash()), {
          tracer: 'callTracer',
          tracerConfig: { onlyTopCall: 1 },
        }),
      ),
      {
        code: -32000,
        message: 'json: cannot unmarshal number into Go struct field callTracerConfig.onlyTopCall of type bool',
      },
    )
    assert.deepEqual(await failure(call('debug_traceTransaction', bytesToHex(increment.hash()), { timeout: '-1s' })), {
      code: -32000,
      message: 'execution timeout',
    })
    assert.deepEqual(await failure(call('debug_traceTransaction', bytesToHex(increment.hash()), { timeout: 'soon' })), {
      code: -32000,
      message: 'time: invalid duration "soon"',
    })
    assert.deepEqual(
      await failure(call('debug_traceCall', { from: RECIPIENT, to: counter, value: '0x100000' }, 'latest')),
      {
        code: -32000,
        message:
          'tracing failed: insufficient funds for gas * price + value: address 0x1111111111111111111111111111111111111111 have 1003 want 1048576',
      },
    )
    assert.deepEqual(await failure(call('debug_traceCall', { to: counter }, 'pending')), {
      code: -32000,
      message: 'tracing on top of pending is not supported',
    })
    assert.deepEqual(await failure(call('debug_traceCall', { to: counter })), {
      code: -32602,
      message: 'missing value for required argument 1',
    })
    assert.deepEqual(await failure(call('debug_traceTransaction')), {
      code: -32602,
      message: 'missing value for required argument 0',
    })
  })
})
