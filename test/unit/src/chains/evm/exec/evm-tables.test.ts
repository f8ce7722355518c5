import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { EVMMockBlockchain } from '@ethereumjs/evm'
import { SimpleStateManager } from '@ethereumjs/statemanager'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'
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
