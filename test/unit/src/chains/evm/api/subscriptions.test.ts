import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { hexToBytes } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { toWireError } from '../../../../../../src/api/jsonrpc/errors.js'
import { ethSubscriptions } from '../../../../../../src/chains/evm/api/subscriptions.js'
import { EWOQ_ADDRESS } from '../../../../../../src/chains/evm/rules/presets.js'
import type { CallContext, SubscriptionTable } from '../../../../../../src/rpc/eth-types.js'
import { openTestChain, type TestChain } from '../../../../../helpers/evm-chain.js'
import { compile } from '../../../../../helpers/solc.js'

const ctx: CallContext = {
  signal: new AbortController().signal,
  transport: 'ws',
  remoteAddress: undefined,
  connection: { id: 1, signal: new AbortController().signal },
}

const word = (n: bigint) => n.toString(16).padStart(64, '0')
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`
const TRANSFER = hex(keccak_256(new TextEncoder().encode('Transfer(address,address,uint256)')))
const OTHER = `0x${'77'.repeat(20)}`

function transferCall(to: string, value: bigint): Uint8Array {
  const selector = Buffer.from(keccak_256(new TextEncoder().encode('transfer(address,uint256)'))).subarray(0, 4)
  return hexToBytes(`0x${selector.toString('hex')}${to.slice(2).padStart(64, '0')}${word(value)}`)
}

/** Start a subscription; returns what it pushed and its stop function. */
async function subscribe(table: SubscriptionTable, kind: string, ...params: unknown[]) {
  const got: any[] = []
  const stop = await table[kind]!(params, (r) => got.push(r), ctx)
  return { got, stop }
}

async function failure(fn: () => unknown): Promise<{ code: number; message: string }> {
  try {
    await fn()
  } catch (err) {
    const { code, message } = toWireError(err, 'geth')
    return { code, message }
  }
  assert.fail('expected a failure')
}

describe('eth subscriptions', () => {
  let chain: TestChain
  let table: SubscriptionTable
  let token: string
  before(async () => {
    chain = await openTestChain()
    table = ethSubscriptions(chain.vm)
    const { bytecode } = compile('Token')
    const deploy = await chain.signTransfer({
      data: hexToBytes(`${bytecode}${word(1000n)}`),
      gasLimit: 2_000_000n,
      value: 0n,
    })
    const b = await chain.mine([deploy])
    token = hex((await chain.vm.core.getReceipts(b))![0]!.contractAddress)
  })
  after(async () => {
    await chain.close()
  })

  it('newHeads pushes the header JSON of each accepted block until stopped', async () => {
    const { got, stop } = await subscribe(table, 'newHeads')
    const h1 = await chain.mine()
    const h2 = await chain.mine()
    stop()
    await chain.mine()
    assert.deepEqual(
      got.map((h) => h.hash),
      [hex(h1), hex(h2)],
    )
    assert.equal(got[1].parentHash, hex(h1))
    assert.equal(got[0].baseFeePerGas, '0x1')
    assert.ok('timestampMilliseconds' in got[0])
    assert.ok(!('totalDifficulty' in got[0]))
  })

  it('logs pushes matching logs one by one', async () => {
    const toOther = await subscribe(table, 'logs', {
      address: token,
      topics: [TRANSFER, null, `0x${OTHER.slice(2).padStart(64, '0')}`],
    })
    const any = await subscribe(table, 'logs', {})
    const send = async (to: string, v: bigint, nonce?: bigint) =>
      chain.signTransfer({ to: token, data: transferCall(to, v), gasLimit: 100_000n, value: 0n, nonce })
    const first = await send(OTHER, 3n)
    const b = await chain.mine([first, await send(EWOQ_ADDRESS, 4n, first.nonce + 1n)])
    toOther.stop()
    any.stop()
    assert.equal(toOther.got.length, 1)
    assert.equal(toOther.got[0].data, `0x${word(3n)}`)
    assert.equal(toOther.got[0].blockHash, hex(b))
    assert.equal(toOther.got[0].removed, false)
    assert.deepEqual(
      any.got.map((l) => l.logIndex),
      ['0x0', '0x1'],
    )
  })

  it('newPendingTransactions pushes hashes or pool txs', async () => {
    const hashes = await subscribe(table, 'newPendingTransactions')
    const full = await subscribe(table, 'newPendingTransactions', true)
    const tx = await chain.signTransfer({ value: 9n })
    await chain.vm.submitTransaction(tx)
    hashes.stop()
    full.stop()
    assert.deepEqual(hashes.got, [hex(tx.hash())])
    assert.equal(full.got.length, 1)
    assert.equal(full.got[0].hash, hex(tx.hash()))
    assert.equal(full.got[0].value, '0x9')
    assert.equal(full.got[0].blockHash, null)
    await chain.mine()
  })

  it('newAcceptedTransactions pushes each tx of each accepted block', async () => {
    const hashes = await subscribe(table, 'newAcceptedTransactions')
    const full = await subscribe(table, 'newAcceptedTransactions', { fullTx: true })
    const fullBool = await subscribe(table, 'newAcceptedTransactions', true)
    const a = await chain.signTransfer({ value: 1n })
    const b = await chain.signTransfer({ value: 2n, nonce: a.nonce + 1n })
    await chain.mine([a, b])
    for (const s of [hashes, full, fullBool]) s.stop()
    assert.deepEqual(hashes.got, [hex(a.hash()), hex(b.hash())])
    assert.deepEqual(
      full.got.map((t) => t.value),
      ['0x1', '0x2'],
    )
    assert.deepEqual(
      fullBool.got.map((t) => t.hash),
      [hex(a.hash()), hex(b.hash())],
    )
  })

  it('reports argument errors after the subscription name', async () => {
    assert.deepEqual(await failure(() => table.newHeads!([1], () => {}, ctx)), {
      code: -32602,
      message: 'too many arguments, want at most 1',
    })
    assert.deepEqual(await failure(() => table.logs!([], () => {}, ctx)), {
      code: -32602,
      message: 'missing value for required argument 1',
    })
    assert.deepEqual(await failure(() => table.logs!([{ topics: [5] }], () => {}, ctx)), {
      code: -32602,
      message: 'invalid argument 1: invalid topic(s)',
    })
    assert.deepEqual(await failure(() => table.logs!([{ fromBlock: '0x2', toBlock: '0x1' }], () => {}, ctx)), {
      code: -32000,
      message: 'invalid from and to block combination: from > to',
    })
    assert.deepEqual(await failure(() => table.newPendingTransactions!(['yes'], () => {}, ctx)), {
      code: -32602,
      message: 'invalid argument 1: json: cannot unmarshal string into Go value of type bool',
    })
  })
})
