/**
 * Issue 14, item 4: EVM work for a caller never stalls the node. A real `firn --dev` runs the 4-byte infinite
 * loop `0x5b600056` (JUMPDEST PUSH1 0 JUMP) from a deployed contract and through a state override, with a gas
 * cap so high that only time can stop it: eight eth_calls end at the default 5 s limit with geth's error while
 * eth_blockNumber keeps answering and a transfer is mined; estimateGas and createAccessList end the same way;
 * debug_traceCall's own `timeout` is capped by `rpc-trace-max-timeout`; a client that hangs up stops its call.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { JsonRpcProvider, Wallet } from 'ethers'
import { EWOQ_PRIVATE_KEY } from '../../src/chains/evm/rules/presets.js'
import { call, devNodeWithConfig, rawSocket } from '../helpers/clients.js'
import type { FirnProcess } from '../helpers/firn-process.js'
import { until } from '../helpers/until.js'

const LOOP_CODE = '0x5b600056'
/** init code returning LOOP_CODE: PUSH4 code, PUSH1 0, MSTORE, PUSH1 4, PUSH1 28, RETURN */
const LOOP_INIT = '0x635b6000566000526004601cf3'
const OVERRIDDEN = `0x${'aa'.repeat(20)}`
const HUGE_GAS = '0xe8d4a51000' // 10^12: the loop would run for hours
const TIMED_OUT = 'execution aborted (timeout = 5s)'

const CONFIG = {
  'rpc-gas-cap': 1_000_000_000_000_000,
  'rpc-trace-max-timeout': '1s',
  'eth-apis': [
    'eth',
    'eth-filter',
    'net',
    'web3',
    'internal-eth',
    'internal-blockchain',
    'internal-transaction',
    'debug-tracer',
  ],
}

describe('EVM calls have a time limit and share the event loop', () => {
  let node: FirnProcess
  let rpcUrl = ''
  let provider: JsonRpcProvider
  let ewoq: Wallet
  let loop = ''

  before(async () => {
    node = await devNodeWithConfig(CONFIG)
    rpcUrl = `${node.url}/ext/bc/C/rpc`
    provider = new JsonRpcProvider(rpcUrl, 43112, { staticNetwork: true, batchMaxCount: 1, cacheTimeout: -1 })
    provider.pollingInterval = 50
    ewoq = new Wallet(EWOQ_PRIVATE_KEY, provider)
    const receipt = await (await ewoq.sendTransaction({ data: LOOP_INIT })).wait()
    loop = receipt?.contractAddress ?? ''
    assert.equal(await provider.getCode(loop), LOOP_CODE)
  })
  after(async () => {
    provider?.destroy()
    await node?.cleanup()
  })

  it('eight looping eth_calls end at 5 s while eth_blockNumber answers and a transfer is mined', {
    timeout: 60_000,
  }, async () => {
    let running = true
    const loops = Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2 === 0
          ? call(rpcUrl, 'eth_call', [{ to: loop, gas: HUGE_GAS }, 'latest'])
          : call(rpcUrl, 'eth_call', [{ to: OVERRIDDEN }, 'latest', { [OVERRIDDEN]: { code: LOOP_CODE } }]),
      ),
    ).finally(() => {
      running = false
    })
    const transfer = ewoq
      .sendTransaction({ to: Wallet.createRandom().address, value: 1n })
      .then((tx) => tx.wait())
      .then((receipt) => ({ receipt, minedWhileLooping: running }))
    let answeredWhileLooping = 0
    while (running) {
      const n = await call(rpcUrl, 'eth_blockNumber')
      assert.match(String(n.json?.result), /^0x[0-9a-f]+$/)
      if (running) answeredWhileLooping++
    }
    for (const answer of await loops) {
      assert.equal(answer.status, 200)
      assert.deepEqual(answer.json?.error, { code: -32000, message: TIMED_OUT })
    }
    // the loops hold the event loop for at most a slice at a time: many answers in their 5 s, not one
    assert.ok(answeredWhileLooping >= 20, `eth_blockNumber answered ${answeredWhileLooping} times during the loops`)
    const { receipt, minedWhileLooping } = await transfer
    assert.equal(receipt?.status, 1)
    assert.ok(minedWhileLooping, 'a block was built and accepted while the loops ran')
  })

  it('eth_estimateGas and eth_createAccessList end at the limit; a trace timeout is capped', {
    timeout: 60_000,
  }, async () => {
    const [estimate, accessList, trace] = await Promise.all([
      call(rpcUrl, 'eth_estimateGas', [{ to: loop, gas: HUGE_GAS }]),
      call(rpcUrl, 'eth_createAccessList', [{ from: ewoq.address, to: loop, gas: HUGE_GAS }]),
      // asks for an hour: the node's cap (rpc-trace-max-timeout, 1 s here) ends it
      call(rpcUrl, 'debug_traceCall', [{ to: loop, gas: HUGE_GAS }, 'latest', { tracer: 'callTracer', timeout: '1h' }]),
    ])
    assert.deepEqual(estimate.json?.error, { code: -32000, message: TIMED_OUT })
    assert.equal(accessList.json?.error?.message, TIMED_OUT)
    assert.equal(trace.json?.error?.message, 'execution timeout')
  })
})

describe('a client that hangs up stops its EVM call', () => {
  let node: FirnProcess
  after(async () => node?.cleanup())

  it('without any time limit, the loop ends when its connection closes', { timeout: 60_000 }, async () => {
    // no EVM time limit and an unreachable gas cap: only the caller's leaving can end this call
    node = await devNodeWithConfig({ 'rpc-gas-cap': 1_000_000_000_000_000, 'rpc-evm-timeout': '0s' }, [
      '--log-level=debug',
    ])
    const rpcUrl = `${node.url}/ext/bc/C/rpc`
    const socket = await rawSocket(node.url, '127.0.0.1')
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_call',
      params: [{ to: OVERRIDDEN }, 'latest', { [OVERRIDDEN]: { code: LOOP_CODE } }],
    })
    socket.write(
      `POST /ext/bc/C/rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    )
    // the node reads connections in order: once a later request is answered, the loop is running
    assert.match(String((await call(rpcUrl, 'eth_blockNumber')).json?.result), /^0x/)
    assert.doesNotMatch(node.output(), /call ended after it was cancelled/)
    socket.destroy()
    await until('the cancelled eth_call to end', () =>
      /call ended after it was cancelled.*eth_call/.test(node.output()) ? true : undefined,
    )
    assert.match(node.output(), /execution aborted/)
    assert.match(String((await call(rpcUrl, 'eth_blockNumber')).json?.result), /^0x/)
  })
})
