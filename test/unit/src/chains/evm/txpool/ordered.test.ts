import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { TypedTransaction } from '@ethereumjs/tx'
import { toChecksumAddress } from '@ethereumjs/util'
import {
  inspectLine,
  rpcPendingTx,
  txpoolContentFromJson,
  txpoolContentJson,
  txpoolInspectJson,
  txpoolStatusJson,
} from '../../../../../../src/chains/evm/txpool/format.js'
import { ADDRS, accessList, dynamic, GWEI, legacy, TO, world } from './fixtures.js'

function drain(next: () => TypedTransaction | undefined): string[] {
  const out: string[] = []
  for (let tx = next(); tx !== undefined; tx = next())
    out.push(`${ADDRS.findIndex((a) => a.equals(tx.getSenderAddress()))}:${tx.nonce}`)
  return out
}

describe('txpool: the builder source', () => {
  it('orders by effective tip at the base fee across senders, keeping each sender in nonce order', async () => {
    const w = world()
    const baseFee = 10n * GWEI
    // sender 0: tip 5 then tip 1; sender 1: tip 3 (fee cap limits the tip to 3); sender 2: legacy 12 gwei = tip 2
    await w.pool.add(dynamic(0, { nonce: 0n, maxFee: 100n * GWEI, tip: 5n * GWEI }))
    await w.pool.add(dynamic(0, { nonce: 1n, maxFee: 100n * GWEI, tip: 1n * GWEI }))
    await w.pool.add(dynamic(1, { nonce: 0n, maxFee: 13n * GWEI, tip: 9n * GWEI }))
    await w.pool.add(legacy(2, { nonce: 0n, gasPrice: 12n * GWEI }))
    await w.pool.add(legacy(2, { nonce: 1n, gasPrice: 30n * GWEI }))
    const source = w.pool.orderedSource(baseFee)
    assert.deepEqual(
      drain(() => source.next()),
      ['0:0', '1:0', '2:0', '2:1', '0:1'],
    )
  })

  it('skipSender drops the rest of that sender; txs below the base fee are left out', async () => {
    const w = world()
    await w.pool.add(legacy(0, { nonce: 0n, gasPrice: 50n * GWEI }))
    await w.pool.add(legacy(0, { nonce: 1n, gasPrice: 50n * GWEI }))
    await w.pool.add(legacy(1, { nonce: 0n, gasPrice: 40n * GWEI }))
    await w.pool.add(legacy(2, { nonce: 0n, gasPrice: 5n * GWEI }))
    const source = w.pool.orderedSource(25n * GWEI)
    const first = source.next()
    assert.equal(first?.nonce, 0n)
    source.skipSender(first!.getSenderAddress())
    assert.deepEqual(
      drain(() => source.next()),
      ['1:0'],
    )
    // ties go to the tx seen first
    const tie = world()
    await tie.pool.add(legacy(1, { nonce: 0n }))
    tie.clock.now += 1
    await tie.pool.add(legacy(0, { nonce: 0n }))
    const s2 = tie.pool.orderedSource()
    assert.deepEqual(
      drain(() => s2.next()),
      ['1:0', '0:0'],
    )
  })
})

describe('txpool: geth JSON shapes', () => {
  it('content, contentFrom, status and inspect', async () => {
    const w = world()
    const d = dynamic(0, { nonce: 0n, maxFee: 30n * GWEI, tip: 2n * GWEI, value: 5n })
    const l = legacy(1, { nonce: 3n, gasPrice: 25n * GWEI })
    const a = accessList(2, { nonce: 0n })
    const create = legacy(0, { nonce: 1n, to: null, gasLimit: 60_000n, data: new Uint8Array([0x60, 0]) })
    for (const tx of [d, l, a, create]) await w.pool.add(tx)
    const a0 = toChecksumAddress(ADDRS[0]!.toString())
    const a1 = toChecksumAddress(ADDRS[1]!.toString())
    const content = txpoolContentJson(w.pool)
    assert.deepEqual(Object.keys(content.pending[a0]!), ['0', '1'])
    assert.deepEqual(Object.keys(content.queued), [a1])
    const dj = content.pending[a0]!['0']!
    assert.deepEqual(Object.keys(dj), [
      'blockHash',
      'blockNumber',
      'from',
      'gas',
      'gasPrice',
      'maxFeePerGas',
      'maxPriorityFeePerGas',
      'hash',
      'input',
      'nonce',
      'to',
      'transactionIndex',
      'value',
      'type',
      'accessList',
      'chainId',
      'v',
      'r',
      's',
      'yParity',
    ])
    assert.equal(dj.blockHash, null)
    assert.equal(dj.gasPrice, '0x6fc23ac00')
    assert.equal(dj.maxPriorityFeePerGas, '0x77359400')
    assert.equal(dj.type, '0x2')
    assert.equal(dj.chainId, '0xa868')
    assert.equal(dj.to, TO)
    assert.equal(dj.from, ADDRS[0]!.toString())
    const lj = content.queued[a1]!['3']!
    assert.equal(lj.chainId, '0xa868')
    assert.equal(lj.yParity, undefined)
    assert.equal(lj.accessList, undefined)
    assert.ok(lj.v === '0x150f3' || lj.v === '0x150f4')
    const aj = rpcPendingTx(w.pool.entry(`0x${Buffer.from(a.hash()).toString('hex')}`)!)
    assert.deepEqual(aj.accessList, [{ address: TO, storageKeys: [`0x${'00'.repeat(31)}01`] }])
    assert.equal(content.pending[a0]!['1']!.to, null)
    assert.deepEqual(Object.keys(txpoolContentFromJson(w.pool, a1)), ['pending', 'queued'])
    assert.deepEqual(Object.keys(txpoolContentFromJson(w.pool, a1).queued), ['3'])
    assert.deepEqual(txpoolStatusJson(w.pool), { pending: '0x3', queued: '0x1' })
    const inspect = txpoolInspectJson(w.pool)
    assert.equal(inspect.pending[a0]!['0'], `${toChecksumAddress(TO)}: 5 wei + 21000 gas × 30000000000 wei`)
    assert.equal(inspect.pending[a0]!['1'], 'contract creation: 1 wei + 60000 gas × 25000000000 wei')
    assert.equal(
      inspectLine(w.pool.entry(`0x${Buffer.from(l.hash()).toString('hex')}`)!).endsWith('× 25000000000 wei'),
      true,
    )
  })
})
