import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { bigIntToBytes, bytesToHex, generateAddress, hexToBytes } from '@ethereumjs/util'
import { callPool, IDLE_PER_ROOT } from '../../../../../../src/chains/evm/api/call-pool.js'
import { callResults } from '../../../../../../src/chains/evm/api/call-results.js'
import { execMethods } from '../../../../../../src/chains/evm/api/exec.js'
import { EWOQ_ADDRESS } from '../../../../../../src/chains/evm/rules/presets.js'
import { pruneState } from '../../../../../../src/chains/evm/state/prune.js'
import type { CallContext } from '../../../../../../src/rpc/eth-types.js'
import { openTestChain, type TestChain } from '../../../../../helpers/evm-chain.js'

const COLD = '42'.repeat(20)
/**
 * Returns four words: slot 0 as it found it (then stores it + 1), transient slot 0 as it found it (then sets it
 * to 1), the gas of BALANCE of a cold address (2600 cold, 100 once warm), the caller's balance (after the gas
 * bought at gasPrice). A VM that kept anything of an earlier run would answer differently the second time.
 */
const PROBE =
  '600054' + // PUSH1 0 SLOAD
  '80600052' + // DUP1 PUSH1 0 MSTORE
  '600101600055' + // PUSH1 1 ADD PUSH1 0 SSTORE
  '60005c602052' + // PUSH1 0 TLOAD PUSH1 32 MSTORE
  '600160005d' + // PUSH1 1 PUSH1 0 TSTORE
  '5a' + // GAS
  `73${COLD}3150` + // PUSH20 cold BALANCE POP
  '5a' + // GAS
  '9003604052' + // SWAP1 SUB PUSH1 64 MSTORE
  '3331606052' + // CALLER BALANCE PUSH1 96 MSTORE
  '60806000f3' // PUSH1 128 PUSH1 0 RETURN

const ctx: CallContext = {
  signal: new AbortController().signal,
  transport: 'http',
  remoteAddress: '127.0.0.1',
  connection: undefined,
}

describe('call pool', () => {
  let chain: TestChain
  let probe: string
  let looper: string
  let call: (params: unknown[]) => Promise<unknown>

  before(async () => {
    chain = await openTestChain({ config: { apiMaxDurationMs: 300 } })
    const m = new Map(execMethods(chain.vm, { suggestTip: async () => 1n }))
    // every call runs: the kept outcome of an identical earlier call (call-results.ts) is forgotten first
    call = (params) => {
      callResults(chain.vm.core).clear()
      return Promise.resolve(m.get('eth_call')!(params, ctx))
    }
    probe = await deploy(PROBE)
    looper = await deploy('5b5f56') // JUMPDEST PUSH0 JUMP
  })

  /** deploys `code` as a contract's runtime code */
  async function deploy(code: string): Promise<string> {
    const len = (code.length / 2).toString(16).padStart(2, '0')
    // PUSH1 len PUSH1 12 PUSH1 0 CODECOPY PUSH1 len PUSH1 0 RETURN, then the runtime
    const init = hexToBytes(`0x60${len}600c60003960${len}6000f3${code}`)
    const nonce = await chain.vm.pool.nonce(EWOQ_ADDRESS)
    await chain.mine([await chain.signTransfer({ data: init, gasLimit: 300_000n, value: 0n })])
    return bytesToHex(generateAddress(hexToBytes(EWOQ_ADDRESS), bigIntToBytes(nonce)))
  }
  after(() => chain.close())

  it('runs every call on a clean VM: no storage, transient storage, warm address or balance of an earlier run', async () => {
    const args = { from: EWOQ_ADDRESS, to: probe, gas: '0x30000', gasPrice: '0x3b9aca00' }
    const first = (await call([args, 'latest'])) as string
    const words = (out: string) => [0, 1, 2, 3].map((i) => BigInt(`0x${out.slice(2 + i * 64, 2 + (i + 1) * 64)}`))
    const [slot, transient, balanceGas, balance] = words(first)
    assert.equal(slot, 0n)
    assert.equal(transient, 0n)
    assert.equal(balanceGas, 2607n, 'PUSH20 (3), a cold BALANCE (2600), POP (2), GAS (2)')
    assert.ok(balance! > 0n)
    const pool = callPool(chain.vm.core)
    assert.equal(pool.idle, 1, 'the VM went back to the pool')
    for (let i = 0; i < 3; i++) assert.equal(await call([args, 'latest']), first, `run ${i + 2}`)
    assert.equal(pool.idle, 1, 'and was used again')
  })

  it('keeps at most IDLE_PER_ROOT VMs of a root, however many calls ran at once', async () => {
    const args = { to: probe }
    const outs = await Promise.all(Array.from({ length: IDLE_PER_ROOT + 4 }, () => call([args, 'latest'])))
    assert.equal(new Set(outs).size, 1)
    assert.equal(callPool(chain.vm.core).idle, IDLE_PER_ROOT)
  })

  it('drops a VM whose run stopped inside the EVM (its deadline), and the next call is clean', async () => {
    const pool = callPool(chain.vm.core)
    pool.clear()
    await assert.rejects(call([{ to: looper }, 'latest']), /execution aborted \(timeout = 300ms\)/)
    assert.equal(pool.idle, 0, 'the looping run left checkpoints open: its VM is gone')
    const out = (await call([{ to: probe }, 'latest'])) as string
    assert.equal(BigInt(`0x${out.slice(2, 66)}`), 0n)
    assert.equal(pool.idle, 1)
  })

  it('refuses a root pruned since its idle VM was made (missing trie node), though a VM of it is idle', async () => {
    const pool = callPool(chain.vm.core)
    const root = chain.vm.core.lastAccepted().header.stateRoot
    await call([{ to: probe }, 'latest'])
    assert.ok(pool.idle > 0)
    await pruneState(chain.vm.core.store.nodes, [])
    await assert.rejects(pool.take(root), /missing trie node/)
  })
})
