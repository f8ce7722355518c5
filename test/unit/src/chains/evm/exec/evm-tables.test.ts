import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createEVM, type EVM, EVMMockBlockchain } from '@ethereumjs/evm'
import { SimpleStateManager } from '@ethereumjs/statemanager'
import { Account, createAddressFromString, setLengthLeft } from '@ethereumjs/util'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'
import { FOLLOWS_EVM, installedEvm } from '../../../../../../src/chains/evm/exec/evm-internal.js'
import { createFirnEVM, jumpAnalyses } from '../../../../../../src/chains/evm/exec/evm-tables.js'

const common = createEvmCommon(43112n)
const evm = () => createFirnEVM({ common, stateManager: new SimpleStateManager(), blockchain: new EVMMockBlockchain() })

/** PUSH1 64 JUMP, STOPs, then at 64: JUMPDEST and return the word 1 */
function jumper(): Uint8Array {
  const code = new Uint8Array(64 + 11)
  code.set([0x60, 64, 0x56])
  code.set([0x5b, 0x60, 1, 0x60, 0, 0x52, 0x60, 32, 0x60, 0, 0xf3], 64)
  return code
}

describe('FirnEVM jump analysis', () => {
  it('is kept per code, and done again when the bytes of a kept code change', async () => {
    const code = jumper()
    const run = async () => (await evm().runCode({ code, gasLimit: 100_000n })).exceptionError?.error ?? 'ok'
    assert.equal(await run(), 'ok')
    assert.ok(jumpAnalyses.has(code), 'kept')
    assert.equal(await run(), 'ok', 'from the kept analysis')
    code[64] = 0x00 // no JUMPDEST there any more
    assert.match(await run(), /invalid JUMP/)
    code[64] = 0x5b
    assert.equal(await run(), 'ok')
  })

  it('returns what ethereumjs computes', async () => {
    const code = jumper()
    const e = evm()
    const result = await e.runCode({ code, gasLimit: 100_000n })
    assert.equal(result.returnValue[31], 1)
    assert.equal(result.executionGasUsed, 3n + 8n + 1n + 3n + 3n + 6n + 3n + 3n)
  })
})

/** a contract at 0x..c0de running `code`, called with 1 wei from 0x..ca11 */
async function call(make: (sm: SimpleStateManager) => Promise<EVM> | EVM, code: number[], gasLimit = 100_000n) {
  const sm = new SimpleStateManager()
  const to = createAddressFromString('0x000000000000000000000000000000000000c0de')
  const caller = createAddressFromString('0x000000000000000000000000000000000000ca11')
  await sm.putAccount(caller, new Account(0n, 10n ** 18n))
  await sm.putAccount(to, new Account())
  await sm.putCode(to, Uint8Array.from(code))
  const e = await make(sm)
  const { execResult: r } = await e.runCall({ to, caller, value: 1n, gasLimit, data: Uint8Array.from([1, 2]) })
  const slots = []
  for (let i = 0; i < 5; i++)
    slots.push(Buffer.from(await sm.getStorage(to, setLengthLeft(Uint8Array.from([i]), 32))).toString('hex'))
  return {
    slots,
    returnValue: Buffer.from(r.returnValue).toString('hex'),
    gasUsed: r.executionGasUsed,
    gas: r.gas,
    gasRefund: r.gasRefund,
    error: r.exceptionError?.error,
    logs: r.logs,
    runStateKeys: Object.keys(r.runState ?? {}).sort(),
    depth: (r.runState as unknown as { depth?: number } | undefined)?.depth,
  }
}

describe('FirnEVM runInterpreter (evm-run.ts)', () => {
  it("follows the installed ethereumjs release (else FirnEVM runs ethereumjs' own: check evm-run.ts against it)", () => {
    assert.equal(installedEvm, FOLLOWS_EVM)
  })

  const programs: Record<string, number[]> = {
    // SSTORE(0, 1), LOG1(0, 32, topic 7) of the word 42, RETURN the word
    'store, log and return': [
      0x60, 1, 0x60, 0, 0x55, 0x60, 42, 0x60, 0, 0x52, 0x60, 7, 0x60, 32, 0x60, 0, 0xa1, 0x60, 32, 0x60, 0, 0xf3,
    ],
    // SSTORE(0, 1) then REVERT with the word 9
    'revert with data': [0x60, 1, 0x60, 0, 0x55, 0x60, 9, 0x60, 0, 0x52, 0x60, 32, 0x60, 0, 0xfd],
    // LOG0 then INVALID: the logs are cleared and all the gas is used
    invalid: [0x60, 0, 0x60, 0, 0xa0, 0xfe],
    // an endless loop: out of gas
    'out of gas': [0x5b, 0x60, 0, 0x56],
    // the call data back
    calldata: [0x36, 0x60, 0, 0x60, 0, 0x37, 0x36, 0x60, 0, 0xf3],
    // MSTORE of an all-ones word unaligned and of a word across the first 8 KiB of memory, MSTORE8, MLOADs (one
    // past the end: zeros, and memory grows), KECCAK256 over memory, each stored; RETURN of a range across 8 KiB
    'memory words': [
      ...[0x7f, ...Array(32).fill(0xff), 0x60, 3, 0x52],
      ...[0x7f, ...Array.from({ length: 32 }, (_, i) => i + 1), 0x61, 0x1f, 0xfe, 0x52],
      ...[0x60, 0xab, 0x60, 40, 0x53],
      ...[0x61, 0x1f, 0xf0, 0x51, 0x60, 1, 0x55],
      ...[0x60, 20, 0x51, 0x60, 2, 0x55],
      ...[0x61, 0x21, 0x00, 0x51, 0x60, 3, 0x55],
      ...[0x60, 64, 0x60, 0, 0x20, 0x60, 4, 0x55],
      ...[0x60, 96, 0x61, 0x1f, 0xe0, 0xf3],
    ],
    // CALLDATALOAD (an async opcode in ethereumjs with a synchronous handler) at 0, 1 and past the end, stored
    'calldata words': [0x60, 0, 0x35, 0x60, 1, 0x55, 0x60, 1, 0x35, 0x60, 2, 0x55, 0x60, 100, 0x35, 0x60, 3, 0x55],
    // MSTORE8 at the last byte of the second word grows memory to two words, RETURN them
    'memory byte': [0x60, 0xab, 0x60, 63, 0x53, 0x60, 64, 0x60, 0, 0xf3],
    // MSTORE far out: the memory's fee runs the gas out
    'memory out of gas': [0x60, 1, 0x63, 0x10, 0, 0, 0, 0x52],
    // MSTORE with one word on the stack: its fee reads the offset, the store finds no value
    'memory stack underflow': [0x60, 1, 0x52],
  }
  for (const [name, code] of Object.entries(programs)) {
    it(`gives ethereumjs' own result: ${name}`, async () => {
      const stock = await call(
        (sm) => createEVM({ common, stateManager: sm, blockchain: new EVMMockBlockchain() }),
        code,
      )
      const firn = await call(
        (sm) => createFirnEVM({ common, stateManager: sm, blockchain: new EVMMockBlockchain() }),
        code,
      )
      assert.deepEqual(firn, stock)
    })
  }
})
