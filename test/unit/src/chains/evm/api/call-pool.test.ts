import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { callPool, IDLE_PER_ROOT } from '../../../../../../src/chains/evm/api/call-pool.js'
import { callResults } from '../../../../../../src/chains/evm/api/call-results.js'
import { EWOQ_ADDRESS } from '../../../../../../src/chains/evm/rules/presets.js'
import { pruneState } from '../../../../../../src/chains/evm/state/prune.js'
import { deployRuntime, ethCall } from '../../../../../helpers/evm-calls.js'
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

describe('call pool', () => {
  let chain: TestChain
  let probe: string
  let looper: string
  let call: (params: unknown[]) => Promise<unknown>

  before(async () => {
    chain = await openTestChain({ config: { apiMaxDurationMs: 300 } })
    const run = ethCall(chain)
    // every call runs: the kept outcome of an identical earlier call (call-results.ts) is forgotten first
    call = (params) => {
      callResults(chain.vm.core).clear()
      return run(params)
    }
    probe = await deployRuntime(chain, PROBE)
    looper = await deployRuntime(chain, '5b5f56') // JUMPDEST PUSH0 JUMP
  })
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
