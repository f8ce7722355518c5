import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx'
import { Address, bytesToHex, hexToBytes } from '@ethereumjs/util'
import { rpcLog, rpcReceipt, rpcTransaction } from '../../../../../../src/chains/evm/api/format.js'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'
import { EWOQ_ADDRESS, EWOQ_PRIVATE_KEY } from '../../../../../../src/chains/evm/rules/presets.js'
import type { StoredReceipt } from '../../../../../../src/chains/evm/store/receipt.js'
import { makePoolTx } from '../../../../../../src/chains/evm/txpool/entry.js'
import { rpcPendingTx } from '../../../../../../src/chains/evm/txpool/format.js'

const KEY = hexToBytes(`0x${EWOQ_PRIVATE_KEY}`)
const common = createEvmCommon(43112n)
const TO = `0x${'22'.repeat(20)}` as const
const BLOCK_HASH = new Uint8Array(32).fill(0xab)
const at = { blockHash: BLOCK_HASH, blockNumber: 7n, index: 3, baseFee: 25n }

const legacy = createLegacyTx({ nonce: 4n, gasPrice: 30n, gasLimit: 21000n, to: TO, value: 5n }, { common }).sign(KEY)
const dynamic = createFeeMarket1559Tx(
  {
    chainId: 43112n,
    nonce: 9n,
    maxFeePerGas: 100n,
    maxPriorityFeePerGas: 2n,
    gasLimit: 50000n,
    data: '0xdeadbeef',
    accessList: [{ address: TO, storageKeys: [`0x${'01'.repeat(32)}`] }],
  },
  { common },
).sign(KEY)

describe('rpcTransaction', () => {
  it('prints a legacy EIP-155 tx in a block with every key in geth order', () => {
    const out = rpcTransaction(legacy, at)
    assert.deepEqual(Object.keys(out), [
      'blockHash',
      'blockNumber',
      'from',
      'gas',
      'gasPrice',
      'hash',
      'input',
      'nonce',
      'to',
      'transactionIndex',
      'value',
      'type',
      'chainId',
      'v',
      'r',
      's',
    ])
    assert.equal(out.blockHash, bytesToHex(BLOCK_HASH))
    assert.equal(out.blockNumber, '0x7')
    assert.equal(out.transactionIndex, '0x3')
    assert.equal(out.from, EWOQ_ADDRESS)
    assert.equal(out.gas, '0x5208')
    assert.equal(out.gasPrice, '0x1e')
    assert.equal(out.hash, bytesToHex(legacy.hash()))
    assert.equal(out.input, '0x')
    assert.equal(out.nonce, '0x4')
    assert.equal(out.to, TO)
    assert.equal(out.value, '0x5')
    assert.equal(out.type, '0x0')
    assert.equal(out.chainId, '0xa868')
    assert.ok(legacy.v === 43112n * 2n + 35n || legacy.v === 43112n * 2n + 36n)
    assert.equal(out.v, `0x${legacy.v!.toString(16)}`)
    assert.equal(out.r, `0x${legacy.r!.toString(16)}`)
    assert.equal(out.s, `0x${legacy.s!.toString(16)}`)
  })

  it('leaves chainId out of a pre-EIP-155 legacy tx', () => {
    const homestead = createEvmCommon(43112n)
    homestead.setHardfork('tangerineWhistle')
    const tx = createLegacyTx({ nonce: 0n, gasPrice: 1n, gasLimit: 21000n, to: TO }, { common: homestead }).sign(KEY)
    assert.ok(tx.v === 27n || tx.v === 28n)
    const out = rpcTransaction(tx)
    assert.equal('chainId' in out, false)
    assert.equal('yParity' in out, false)
  })

  it('prints a 1559 tx in a block with the effective gas price min(maxFee, baseFee + tip)', () => {
    const out = rpcTransaction(dynamic, at)
    assert.deepEqual(Object.keys(out), [
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
    assert.equal(out.gasPrice, '0x1b') // 25 + 2
    assert.equal(out.maxFeePerGas, '0x64')
    assert.equal(out.maxPriorityFeePerGas, '0x2')
    assert.equal(out.to, null)
    assert.equal(out.input, '0xdeadbeef')
    assert.equal(out.type, '0x2')
    assert.equal(out.chainId, '0xa868')
    assert.deepEqual(out.accessList, [{ address: TO, storageKeys: [`0x${'01'.repeat(32)}`] }])
    assert.equal(out.v, out.yParity)
    assert.ok(out.v === '0x0' || out.v === '0x1')
    // capped by the fee cap when the base fee is high
    assert.equal(rpcTransaction(dynamic, { ...at, baseFee: 99n }).gasPrice, '0x64')
  })

  it('prints a pending tx exactly as the tx pool does (no block, gasPrice = fee cap)', () => {
    for (const tx of [legacy, dynamic]) {
      const out = rpcTransaction(tx)
      assert.equal(out.blockHash, null)
      assert.equal(out.blockNumber, null)
      assert.equal(out.transactionIndex, null)
      assert.deepEqual(out, rpcPendingTx(makePoolTx(tx, tx.getSenderAddress(), 0, false)))
    }
    assert.equal(rpcTransaction(dynamic).gasPrice, '0x64')
  })

  it('prints a 2930 tx with its access list, chain id and yParity', () => {
    const tx = createAccessList2930Tx(
      { chainId: 43112n, nonce: 1n, gasPrice: 7n, gasLimit: 30000n, to: TO, accessList: [] },
      { common },
    ).sign(KEY)
    const out = rpcTransaction(tx, at)
    assert.equal(out.type, '0x1')
    assert.equal(out.gasPrice, '0x7')
    assert.deepEqual(out.accessList, [])
    assert.equal(out.chainId, '0xa868')
    assert.equal('maxFeePerGas' in out, false)
    assert.ok(out.yParity === '0x0' || out.yParity === '0x1')
  })
})

const log = {
  address: hexToBytes(TO),
  topics: [new Uint8Array(32).fill(1), new Uint8Array(32).fill(2)],
  data: hexToBytes('0x0102'),
}

describe('rpcLog', () => {
  it('prints geth Log JSON', () => {
    const txHash = new Uint8Array(32).fill(9)
    const out = rpcLog({ ...log, blockHash: BLOCK_HASH, blockNumber: 16n, txHash, txIndex: 2, logIndex: 11 })
    assert.deepEqual(out, {
      address: TO,
      topics: [bytesToHex(log.topics[0]!), bytesToHex(log.topics[1]!)],
      data: '0x0102',
      blockNumber: '0x10',
      transactionHash: bytesToHex(txHash),
      transactionIndex: '0x2',
      blockHash: bytesToHex(BLOCK_HASH),
      logIndex: '0xb',
      removed: false,
    })
    assert.equal(
      rpcLog({ ...log, blockHash: BLOCK_HASH, blockNumber: 1n, txHash, txIndex: 0, logIndex: 0 }, true).removed,
      true,
    )
  })
})

describe('rpcReceipt', () => {
  const base: StoredReceipt = {
    txHash: dynamic.hash(),
    type: 2,
    status: 1,
    cumulativeGasUsed: 90000n,
    gasUsed: 50000n,
    effectiveGasPrice: 27n,
    from: hexToBytes(EWOQ_ADDRESS),
    to: new Uint8Array(0),
    contractAddress: hexToBytes(`0x${'33'.repeat(20)}`),
    bloom: new Uint8Array(256).fill(4),
    logs: [log, log],
  }

  it('prints marshalReceipt with sorted keys, block-wide log indexes and the created contract', () => {
    const out = rpcReceipt(base, dynamic, { ...at, firstLogIndex: 5 })
    assert.deepEqual(Object.keys(out), [
      'blockHash',
      'blockNumber',
      'contractAddress',
      'cumulativeGasUsed',
      'effectiveGasPrice',
      'from',
      'gasUsed',
      'logs',
      'logsBloom',
      'status',
      'to',
      'transactionHash',
      'transactionIndex',
      'type',
    ])
    assert.equal(out.blockHash, bytesToHex(BLOCK_HASH))
    assert.equal(out.blockNumber, '0x7')
    assert.equal(out.contractAddress, `0x${'33'.repeat(20)}`)
    assert.equal(out.cumulativeGasUsed, '0x15f90')
    assert.equal(out.effectiveGasPrice, '0x1b')
    assert.equal(out.from, EWOQ_ADDRESS)
    assert.equal(out.gasUsed, '0xc350')
    assert.equal(out.logsBloom, bytesToHex(base.bloom))
    assert.equal(out.status, '0x1')
    assert.equal(out.to, null)
    assert.equal(out.transactionHash, bytesToHex(dynamic.hash()))
    assert.equal(out.transactionIndex, '0x3')
    assert.equal(out.type, '0x2')
    const logs = out.logs as Record<string, unknown>[]
    assert.deepEqual(
      logs.map((l) => [l.logIndex, l.transactionIndex, l.blockNumber, l.transactionHash, l.removed]),
      [
        ['0x5', '0x3', '0x7', bytesToHex(dynamic.hash()), false],
        ['0x6', '0x3', '0x7', bytesToHex(dynamic.hash()), false],
      ],
    )
  })

  it('gives contractAddress null for a call and status 0x0 for a failure', () => {
    const out = rpcReceipt(
      {
        ...base,
        txHash: legacy.hash(),
        type: 0,
        status: 0,
        to: hexToBytes(TO),
        contractAddress: new Uint8Array(0),
        logs: [],
      },
      legacy,
      { ...at, firstLogIndex: 0 },
    )
    assert.equal(out.contractAddress, null)
    assert.equal(out.status, '0x0')
    assert.equal(out.to, TO)
    assert.equal(out.type, '0x0')
    assert.deepEqual(out.logs, [])
    assert.equal(new Address(hexToBytes(out.from as `0x${string}`)).toString(), EWOQ_ADDRESS)
  })
})
