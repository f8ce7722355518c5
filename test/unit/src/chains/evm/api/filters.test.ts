import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { hexToBytes } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { FilterSystem, filterMethods, parseFilterCriteria } from '../../../../../../src/chains/evm/api/filters.js'
import { EWOQ_ADDRESS } from '../../../../../../src/chains/evm/rules/presets.js'
import { type Call, caller, failure, TEST_CTX } from '../../../../../helpers/eth-methods.js'
import { openTestChain, type TestChain } from '../../../../../helpers/evm-chain.js'
import { compile } from '../../../../../helpers/solc.js'

const _ctx = TEST_CTX

const word = (n: bigint) => n.toString(16).padStart(64, '0')
const pad = (addr: string) => `0x${addr.slice(2).toLowerCase().padStart(64, '0')}`
const TRANSFER = `0x${Buffer.from(keccak_256(new TextEncoder().encode('Transfer(address,address,uint256)'))).toString('hex')}`
const OTHER = `0x${'77'.repeat(20)}`
const THIRD = `0x${'66'.repeat(20)}`

function transferCall(to: string, value: bigint): Uint8Array {
  const selector = Buffer.from(keccak_256(new TextEncoder().encode('transfer(address,uint256)'))).subarray(0, 4)
  return hexToBytes(`0x${selector.toString('hex')}${to.slice(2).padStart(64, '0')}${word(value)}`)
}

/** A chain with the Token deployed in block 1 (mint log) and transfers to OTHER (block 2) and THIRD (block 3). */
async function tokenChain(config = {}) {
  const chain = await openTestChain({ config })
  const { bytecode } = compile('Token')
  const deploy = await chain.signTransfer({
    data: hexToBytes(`${bytecode}${word(1_000_000n)}`),
    gasLimit: 2_000_000n,
    value: 0n,
  })
  const b1 = await chain.mine([deploy])
  const [receipt] = (await chain.vm.core.getReceipts(b1))!
  const token = `0x${Buffer.from(receipt!.contractAddress).toString('hex')}`
  const send = async (to: string, value: bigint) =>
    chain.signTransfer({ to: token, data: transferCall(to, value), gasLimit: 100_000n, value: 0n })
  const b2 = await chain.mine([await send(OTHER, 5n)])
  const b3 = await chain.mine([await send(THIRD, 7n)])
  return { chain, token, send, blocks: [b1, b2, b3] }
}

describe('eth_getLogs', () => {
  let chain: TestChain
  let token: string
  let blocks: Uint8Array[]
  let filters: FilterSystem
  let call: Call
  before(async () => {
    ;({ chain, token, blocks } = await tokenChain())
    filters = new FilterSystem(chain.vm)
    call = caller(filterMethods(chain.vm, filters))
  })
  after(async () => {
    filters.close()
    await chain.close()
  })

  it('finds Transfer logs by address, in order, with geth fields', async () => {
    const logs = await call('eth_getLogs', { fromBlock: '0x0', toBlock: 'latest', address: token })
    assert.equal(logs.length, 3)
    assert.deepEqual(
      logs.map((l: any) => l.blockNumber),
      ['0x1', '0x2', '0x3'],
    )
    const [mint] = logs
    assert.equal(mint.address, token)
    assert.deepEqual(mint.topics, [TRANSFER, pad(`0x${'00'.repeat(20)}`), pad(EWOQ_ADDRESS)])
    assert.equal(mint.data, `0x${word(1_000_000n)}`)
    assert.equal(mint.blockHash, `0x${Buffer.from(blocks[0]!).toString('hex')}`)
    assert.equal(mint.logIndex, '0x0')
    assert.equal(mint.removed, false)
  })

  it('matches topics by position, with null and alternatives', async () => {
    const toOther = await call('eth_getLogs', { fromBlock: '0x0', topics: [TRANSFER, null, pad(OTHER)] })
    assert.equal(toOther.length, 1)
    assert.equal(toOther[0].data, `0x${word(5n)}`)
    const either = await call('eth_getLogs', { fromBlock: 'earliest', topics: [null, null, [pad(OTHER), pad(THIRD)]] })
    assert.deepEqual(
      either.map((l: any) => l.blockNumber),
      ['0x2', '0x3'],
    )
    const fromEwoq = await call('eth_getLogs', { fromBlock: '0x0', topics: [[TRANSFER], [pad(EWOQ_ADDRESS)]] })
    assert.equal(fromEwoq.length, 2)
    // geth: more positions than the log has topics never matches, even if they are wildcards
    assert.deepEqual(await call('eth_getLogs', { fromBlock: '0x0', topics: [TRANSFER, null, null, null] }), [])
    assert.deepEqual(await call('eth_getLogs', { fromBlock: '0x0', address: OTHER }), [])
  })

  it('defaults to the latest block and takes a block hash', async () => {
    const latest = await call('eth_getLogs', {})
    assert.deepEqual(
      latest.map((l: any) => l.blockNumber),
      ['0x3'],
    )
    const byHash = await call('eth_getLogs', { blockHash: `0x${Buffer.from(blocks[1]!).toString('hex')}` })
    assert.equal(byHash.length, 1)
    assert.equal(byHash[0].topics[2], pad(OTHER))
    assert.deepEqual(await call('eth_getLogs', { fromBlock: 'pending', toBlock: 'pending' }), [])
  })

  it('rejects bad ranges and criteria with geth/coreth texts', async () => {
    const hash = `0x${'ab'.repeat(32)}`
    const cases: [unknown, number, string][] = [
      [{ fromBlock: '0x3', toBlock: '0x2' }, -32000, 'invalid block range params'],
      [{ fromBlock: '0x9' }, -32000, 'requested from block 9 after last accepted block 3'],
      [{ fromBlock: '0x1', toBlock: '0x9' }, -32000, 'requested to block 9 after last accepted block 3'],
      [{ fromBlock: 'pending', toBlock: '0x2' }, -32000, 'invalid block range params'],
      [{ fromBlock: 'latest', toBlock: '0x1' }, -32000, 'begin block 3 is greater than end block 1'],
      [{ blockHash: hash }, -32000, 'unknown block'],
      [{ topics: [null, null, null, null, null] }, -32000, 'exceed max topics'],
      [
        { blockHash: hash, fromBlock: '0x1' },
        -32602,
        'invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other',
      ],
      [{ address: Array.from({ length: 1001 }, () => OTHER) }, -32602, 'invalid argument 0: exceed max addresses'],
      [
        { address: '0x1234' },
        -32602,
        'invalid argument 0: invalid address: hex has invalid length 2 after decoding; expected 20 for address',
      ],
      [{ address: [OTHER, 5] }, -32602, 'invalid argument 0: non-string address at index 1'],
      [{ address: 5 }, -32602, 'invalid argument 0: invalid addresses in query'],
      [{ topics: [5] }, -32602, 'invalid argument 0: invalid topic(s)'],
      [
        { topics: ['0x12'] },
        -32602,
        'invalid argument 0: hex has invalid length 1 after decoding; expected 32 for topic',
      ],
      [
        { topics: 'x' },
        -32602,
        'invalid argument 0: json: cannot unmarshal string into Go struct field input.topics of type []interface {}',
      ],
      [{ fromBlock: 5 }, -32602, 'invalid argument 0: hex string without 0x prefix'],
      [
        { blockHash: '0x12' },
        -32602,
        'invalid argument 0: json: cannot unmarshal hex string has length 2, want 64 for common.Hash into Go struct field input.blockHash of type common.Hash',
      ],
      ['latest', -32602, 'invalid argument 0: json: cannot unmarshal string into Go value of type filters.input'],
    ]
    for (const [crit, code, message] of cases) {
      assert.deepEqual(await failure(call('eth_getLogs', crit)), { code, message }, JSON.stringify(crit).slice(0, 80))
    }
    assert.deepEqual(await failure(call('eth_getLogs')), {
      code: -32602,
      message: 'missing value for required argument 0',
    })
  })

  it('limits the range with api-max-blocks-per-request', async () => {
    const limited = await openTestChain({ config: { apiMaxBlocksPerRequest: 2 } })
    const fs = new FilterSystem(limited.vm)
    try {
      await limited.mine()
      await limited.mine()
      const c = caller(filterMethods(limited.vm, fs))
      assert.deepEqual(await c('eth_getLogs', { fromBlock: '0x1', toBlock: '0x2' }), [])
      assert.deepEqual(await failure(c('eth_getLogs', { fromBlock: '0x0', toBlock: '0x2' })), {
        code: -32000,
        message: 'requested too many blocks from 0 to 2, maximum is set to 2',
      })
    } finally {
      fs.close()
      await limited.close()
    }
  })
})

describe('parseFilterCriteria', () => {
  it('decodes tags, mixed-case keys and nested null topics', () => {
    const c = parseFilterCriteria({ FromBlock: 'accepted', toBlock: 'safe', topics: [[null, TRANSFER], [], null] }, 0)
    assert.equal(c.fromBlock, -3n)
    assert.equal(c.toBlock, -4n)
    assert.deepEqual(c.topics, [null, null, null])
    assert.deepEqual(parseFilterCriteria(null, 0), { addresses: [], topics: [] })
  })
})

describe('installed filters', () => {
  let chain: TestChain
  let token: string
  let send: (to: string, value: bigint) => Promise<any>
  let filters: FilterSystem
  let clock: number
  let call: Call
  before(async () => {
    ;({ chain, token, send } = await tokenChain())
    clock = 1_000_000
    filters = new FilterSystem(chain.vm, { now: () => clock, sweepIntervalMs: 0 })
    call = caller(filterMethods(chain.vm, filters))
  })
  after(async () => {
    filters.close()
    await chain.close()
  })

  it('collects logs, block hashes and pending txs across mined blocks', async () => {
    const logId = await call('eth_newFilter', { address: token, topics: [TRANSFER, null, pad(OTHER)] })
    const blockId = await call('eth_newBlockFilter')
    const txId = await call('eth_newPendingTransactionFilter')
    const fullId = await call('eth_newPendingTransactionFilter', true)
    assert.match(logId, /^0x[1-9a-f][0-9a-f]*$/)
    assert.deepEqual(await call('eth_getFilterChanges', logId), [])

    const tx1 = await send(OTHER, 11n)
    const b1 = await chain.mine([tx1])
    const b2 = await chain.mine([await send(THIRD, 12n)])

    const logs = await call('eth_getFilterChanges', logId)
    assert.equal(logs.length, 1)
    assert.equal(logs[0].data, `0x${word(11n)}`)
    assert.equal(logs[0].blockHash, `0x${Buffer.from(b1).toString('hex')}`)
    assert.deepEqual(await call('eth_getFilterChanges', logId), [])

    assert.deepEqual(await call('eth_getFilterChanges', blockId), [
      `0x${Buffer.from(b1).toString('hex')}`,
      `0x${Buffer.from(b2).toString('hex')}`,
    ])
    const hashes = await call('eth_getFilterChanges', txId)
    assert.equal(hashes.length, 2)
    assert.equal(hashes[0], `0x${Buffer.from(tx1.hash()).toString('hex')}`)
    const full = await call('eth_getFilterChanges', fullId)
    assert.equal(full.length, 2)
    assert.equal(full[0].hash, hashes[0])
    assert.equal(full[0].blockHash, null)

    // eth_getFilterLogs runs the criteria over the chain (default range: latest block only)
    const all = await call('eth_newFilter', { fromBlock: '0x0', topics: [TRANSFER] })
    assert.equal((await call('eth_getFilterLogs', all)).length, 5)
    assert.deepEqual(await failure(call('eth_getFilterLogs', blockId)), { code: -32000, message: 'filter not found' })

    assert.equal(await call('eth_uninstallFilter', logId), true)
    assert.equal(await call('eth_uninstallFilter', logId), false)
    assert.deepEqual(await failure(call('eth_getFilterChanges', logId)), { code: -32000, message: 'filter not found' })
    assert.deepEqual(await failure(call('eth_getFilterChanges', 5)), {
      code: -32602,
      message: 'invalid argument 0: json: cannot unmarshal number into Go value of type rpc.ID',
    })
  })

  it('applies numeric bounds of the criteria to new logs', async () => {
    const head = chain.vm.lastAccepted().header.number
    const id = await call('eth_newFilter', {
      fromBlock: `0x${(head + 2n).toString(16)}`,
      toBlock: 'latest',
      address: token,
    })
    await chain.mine([await send(OTHER, 1n)])
    await chain.mine([await send(OTHER, 2n)])
    const logs = await call('eth_getFilterChanges', id)
    assert.deepEqual(
      logs.map((l: any) => l.data),
      [`0x${word(2n)}`],
    )
    assert.deepEqual(await failure(call('eth_newFilter', { fromBlock: '0x5', toBlock: '0x4' })), {
      code: -32000,
      message: 'invalid from and to block combination: from > to',
    })
  })

  it('expires filters not polled for 5 minutes', async () => {
    const polled = await call('eth_newBlockFilter')
    const idle = await call('eth_newBlockFilter')
    clock += 4 * 60_000
    await call('eth_getFilterChanges', polled)
    clock += 60_000
    const before = filters.size
    assert.equal(filters.sweep(), before - 1) // every filter but the polled one is 5 minutes idle
    assert.equal(filters.size, 1)
    assert.deepEqual(await failure(call('eth_getFilterChanges', idle)), { code: -32000, message: 'filter not found' })
    assert.deepEqual(await call('eth_getFilterChanges', polled), [])
  })
})

describe('filter limits', () => {
  it('caps installed filters and buffered items', async () => {
    const chain = await openTestChain()
    const fs = new FilterSystem(chain.vm, { maxFilters: 2, maxItems: 2, sweepIntervalMs: 0 })
    try {
      const call = caller(filterMethods(chain.vm, fs))
      const id = await call('eth_newBlockFilter')
      await call('eth_newBlockFilter')
      assert.deepEqual(await failure(call('eth_newBlockFilter')), { code: -32000, message: 'too many filters' })
      const mined = [await chain.mine(), await chain.mine(), await chain.mine()]
      assert.deepEqual(
        await call('eth_getFilterChanges', id),
        mined.slice(1).map((h) => `0x${Buffer.from(h).toString('hex')}`),
      )
    } finally {
      fs.close()
      await chain.close()
    }
  })
})
