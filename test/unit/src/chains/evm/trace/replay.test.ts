import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Address, bytesToHex, generateAddress, hexToBytes } from '@ethereumjs/util'
import { parseTraceConfig, type TraceOptions } from '../../../../../../src/chains/evm/trace/config.js'
import { blockBody, stateAfter, traceBlockTx } from '../../../../../../src/chains/evm/trace/replay.js'
import { traceCallOn } from '../../../../../../src/chains/evm/trace/trace-call.js'
import { openTestChain, type TestChain } from '../../../../../helpers/evm-chain.js'

const A = `0x${'aa'.repeat(20)}`
const C = `0x${'cc'.repeat(20)}`
const BENEFICIARY = `0x${'be'.repeat(20)}`
const bytes = (h: string) => hexToBytes(h as `0x${string}`)

// biome-ignore lint/suspicious/noExplicitAny: JSON results, read field by field
type Json = any

describe('trace replay', () => {
  let chain: TestChain

  before(async () => {
    chain = await openTestChain()
    await chain.mine([await chain.signTransfer({ value: 1n })])
  })

  after(async () => {
    await chain?.close()
  })

  /** traceCall of `code` put at A on the latest state (a throw-away view). */
  async function traceCode(
    code: string,
    opts: Partial<TraceOptions> & { gas?: bigint; extra?: Record<string, string> } = {},
  ) {
    const { header } = chain.vm.lastAccepted()
    const sm = await chain.vm.core.stateAt(header.stateRoot)
    await sm.putCode(new Address(bytes(A)), bytes(code))
    for (const [addr, c] of Object.entries(opts.extra ?? {})) await sm.putCode(new Address(bytes(addr)), bytes(c))
    await sm.modifyAccountFields(new Address(bytes(A)), { balance: 77n })
    const options = { ...parseTraceConfig(null), ...opts }
    return (await traceCallOn(
      { core: chain.vm.core },
      sm,
      { header },
      { to: bytes(A), ...(opts.gas === undefined ? {} : { gas: opts.gas }) },
      50_000_000n,
      options,
    )) as Json
  }

  it('puts a pre-execution fault on the failing op', async () => {
    // ADD on an empty stack
    const underflow = await traceCode('0x01')
    assert.deepEqual(underflow, {
      gas: 21000 + underflow.structLogs[0].gas,
      failed: true,
      returnValue: '',
      structLogs: [
        {
          pc: 0,
          op: 'ADD',
          gas: underflow.structLogs[0].gas,
          gasCost: 3,
          depth: 1,
          error: 'stack underflow (0 <=> 2)',
          stack: [],
        },
      ],
    })
    assert.equal(underflow.gas, 50_000_000)
    // PUSH1 with 2 gas left
    const oog = await traceCode('0x6001600101', { gas: 21_002n })
    assert.deepEqual(oog.structLogs, [
      { pc: 0, op: 'PUSH1', gas: 2, gasCost: 3, depth: 1, error: 'out of gas', stack: [] },
    ])
    const call = await traceCode('0x6001600101', { gas: 21_002n, tracer: 'callTracer' })
    assert.equal(call.error, 'out of gas')
    assert.equal(call.gasUsed, '0x520a')
    // INVALID fails while running: geth logs no error on the step
    const invalid = await traceCode('0xfe')
    assert.deepEqual(invalid.structLogs, [
      { pc: 0, op: 'INVALID', gas: invalid.structLogs[0].gas, gasCost: 0, depth: 1, stack: [] },
    ])
    assert.equal((await traceCode('0xfe', { tracer: 'callTracer' })).error, 'invalid opcode: INVALID')
  })

  it('traces CREATE, STATICCALL to a precompile, DELEGATECALL and SELFDESTRUCT frames', async () => {
    const code =
      '0x6001601f5ff050' + // CREATE(value 0, mem[31..32] = 0x00 -> STOP); POP
      '5f5f5f5f60045afa50' + // STATICCALL(gas, 0x04, 0, 0, 0, 0); POP
      `5f5f5f5f73${C.slice(2)}5af450` + // DELEGATECALL(gas, C, 0, 0, 0, 0); POP
      `73${BENEFICIARY.slice(2)}ff` // SELFDESTRUCT(BENEFICIARY)
    const r = await traceCode(code, { tracer: 'callTracer', extra: { [C]: '0x00' } })
    const created = bytesToHex(generateAddress(bytes(A), new Uint8Array(0)))
    assert.equal(r.to, A)
    assert.deepEqual(
      r.calls.map((c: Json) => [c.type, c.from, c.to, c.input, c.value]),
      [
        ['CREATE', A, created, '0x00', '0x0'],
        ['STATICCALL', A, '0x0000000000000000000000000000000000000004', '0x', undefined],
        ['DELEGATECALL', A, C, '0x', '0x0'],
        ['SELFDESTRUCT', A, BENEFICIARY, '0x', '0x4d'],
      ],
    )
    assert.equal(r.calls[3].gas, '0x0')
    assert.equal(r.calls[3].gasUsed, '0x0')
    assert.ok(r.calls.every((c: Json) => c.error === undefined))

    const s = await traceCode(code, { extra: { [C]: '0x00' } })
    const ops = s.structLogs.map((l: Json) => `${l.op}@${l.depth}`)
    assert.deepEqual(ops.slice(0, 6), ['PUSH1@1', 'PUSH1@1', 'PUSH0@1', 'CREATE@1', 'STOP@2', 'POP@1'])
    // CALL-family cost includes the gas handed to the callee (all but 1/64 of what is left)
    const staticcall = s.structLogs.find((l: Json) => l.op === 'STATICCALL')
    const avail = staticcall.gas - 100
    assert.equal(staticcall.gasCost, 100 + avail - Math.floor(avail / 64))

    const pre = await traceCode(code, { tracer: 'prestateTracer', extra: { [C]: '0x00' } })
    for (const a of [A, C, BENEFICIARY, created, '0x0000000000000000000000000000000000000004']) assert.ok(pre[a], a)
    assert.equal(pre[A].balance, '0x4d')
    assert.equal(pre[A].code, code)
  })

  it('traces a tx of an accepted block on its parent state', async () => {
    const tip = chain.vm.lastAccepted()
    const body = (await blockBody(chain.vm.core, tip.hash))!
    const r = (await traceBlockTx({ core: chain.vm.core }, body.header, body.txs, 0, {
      ...parseTraceConfig({ tracer: 'callTracer' }),
    })) as Json
    assert.equal(r.value, '0x1')
    assert.equal(r.gasUsed, '0x5208')
  })
})

describe('trace replay on a pruned chain', () => {
  let chain: TestChain

  before(async () => {
    chain = await openTestChain({ config: { pruningEnabled: true, stateHistory: 2 } })
    // seven blocks: pruning's cadence (by nodes accepted since the last prune, exec/executor.ts) has then pruned
    // after block 2 and again after block 6, so block 1's state is gone and block 6's is kept
    for (let i = 0; i < 7; i++) await chain.mine([await chain.signTransfer({ value: BigInt(i + 1) })])
  })

  after(async () => {
    await chain?.close()
  })

  it('traces while the parent state is kept, and fails with coreth text once it is pruned', async () => {
    const core = chain.vm.core
    const at = async (n: bigint) => (await blockBody(core, (await core.store.canonicalHash(n))!))!
    const recent = await at(7n)
    const ok = (await traceBlockTx(
      { core },
      recent.header,
      recent.txs,
      0,
      parseTraceConfig({ tracer: 'callTracer' }),
    )) as Json
    assert.equal(ok.value, '0x7')
    const old = await at(2n)
    await assert.rejects(traceBlockTx({ core }, old.header, old.txs, 0, parseTraceConfig(null)), {
      message: 'required historical state unavailable (reexec=128)',
    })
    await assert.rejects(traceBlockTx({ core }, old.header, old.txs, 0, parseTraceConfig({ reexec: 0 })), {
      message: 'required historical state unavailable (reexec=0)',
    })
    await assert.rejects(stateAfter(core, (await at(1n)).header, 1n), {
      message: 'required historical state unavailable (reexec=1)',
    })
  })
})
