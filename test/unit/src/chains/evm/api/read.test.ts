import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { MerklePatriciaTrie, verifyMPTWithMerkleProof } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import type { TypedTransaction } from '@ethereumjs/tx'
import { bytesToBigInt, bytesToHex, hexToBytes, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { netWeb3Methods } from '../../../../../../src/chains/evm/api/net-web3.js'
import { readMethods } from '../../../../../../src/chains/evm/api/read.js'
import { txpoolMethods } from '../../../../../../src/chains/evm/api/txpool.js'
import { decodeBlock } from '../../../../../../src/chains/evm/header.js'
import { chainConfigJson } from '../../../../../../src/chains/evm/rules/chain-config-json.js'
import { EWOQ_ADDRESS } from '../../../../../../src/chains/evm/rules/presets.js'
import { type Call, caller, failure, TEST_CTX } from '../../../../../helpers/eth-methods.js'
import { openTestChain, type TestChain } from '../../../../../helpers/evm-chain.js'
import { compile } from '../../../../../helpers/solc.js'

const _ctx = TEST_CTX

const callerOf = (chain: TestChain): Call =>
  caller([...readMethods(chain.vm), ...netWeb3Methods(chain.vm), ...txpoolMethods(chain.vm)])

const OTHER = `0x${'77'.repeat(20)}`
const ZERO32 = `0x${'00'.repeat(32)}`
const word = (n: bigint) => n.toString(16).padStart(64, '0')

function incrementCall(note: string): Uint8Array {
  const selector = Buffer.from(keccak_256(new TextEncoder().encode('increment(string)'))).subarray(0, 4)
  const text = Buffer.from(note).toString('hex').padEnd(64, '0')
  return hexToBytes(`0x${selector.toString('hex')}${word(32n)}${word(BigInt(note.length))}${text}`)
}

describe('eth read methods', () => {
  let chain: TestChain
  let call: Call
  let transfer: TypedTransaction
  let legacy: TypedTransaction
  let deploy: TypedTransaction
  let increment: TypedTransaction
  let pending: TypedTransaction
  let block1: Uint8Array
  let block3: Uint8Array
  let contract: `0x${string}`

  before(async () => {
    chain = await openTestChain()
    call = callerOf(chain)
    transfer = await chain.signTransfer({ value: 1000n })
    legacy = await chain.signTransfer({ type: 0, nonce: 1n, to: OTHER, value: 7n })
    block1 = await chain.mine([transfer, legacy])
    const { bytecode } = compile('Counter')
    deploy = await chain.signTransfer({
      data: hexToBytes(`${bytecode}${word(5n)}`),
      gasLimit: 1_000_000n,
      value: 0n,
    })
    await chain.mine([deploy])
    contract = (await call('eth_getTransactionReceipt', bytesToHex(deploy.hash()))).contractAddress
    increment = await chain.signTransfer({ to: contract, data: incrementCall('hi'), gasLimit: 200_000n, value: 0n })
    block3 = await chain.mine([increment])
    pending = await chain.signTransfer({ value: 3n })
    await chain.vm.submitTransaction(pending)
  })

  after(async () => {
    await chain?.close()
  })

  it('answers chain id, head, syncing, coinbase, chain config, bad blocks and pending txs', async () => {
    assert.equal(await call('eth_chainId'), `0x${chain.vm.chainId.toString(16)}`)
    assert.equal(await call('eth_blockNumber'), '0x3')
    assert.equal(await call('eth_syncing'), false)
    assert.equal(await call('eth_coinbase'), '0x0100000000000000000000000000000000000000')
    assert.equal(await call('eth_etherbase'), '0x0100000000000000000000000000000000000000')
    assert.deepEqual(await call('eth_getChainConfig'), chainConfigJson(chain.vm.preset))
    assert.equal((await call('eth_getChainConfig')).chainId, Number(chain.vm.chainId))
    assert.deepEqual(await call('eth_getBadBlocks'), [])
    assert.deepEqual(await call('eth_pendingTransactions'), [])
    assert.deepEqual(await failure(call('eth_chainId', 1)), {
      code: -32602,
      message: 'too many arguments, want at most 0',
    })
  })

  it('answers a balance or nonce read before at a tag without a promise, and the same as a fresh read', async () => {
    const methods = new Map(readMethods(chain.vm))
    const ctx = TEST_CTX
    const who = `0x${'78'.repeat(20)}`
    const first = methods.get('eth_getBalance')!([who, 'latest'], ctx)
    assert.ok(first instanceof Promise, 'the first read looks the account up')
    assert.equal(await first, '0x0')
    assert.equal(methods.get('eth_getBalance')!([who, 'latest'], ctx), '0x0', 'then it is at hand')
    assert.equal(methods.get('eth_getBalance')!([who, '0x1'], ctx) instanceof Promise, true, 'a number is looked up')
    const nonce = await methods.get('eth_getTransactionCount')!([EWOQ_ADDRESS, 'latest'], ctx)
    assert.equal(await methods.get('eth_getTransactionCount')!([EWOQ_ADDRESS, 'latest'], ctx), nonce)
    assert.notEqual(nonce, '0x0')
    assert.throws(
      () => methods.get('eth_getBalance')!(['0x12', 'latest'], ctx),
      /hex string has length 2, want 40 for common.Address/,
    )
  })

  it('reads balance, code, storage and nonces at tags, numbers and hashes', async () => {
    assert.equal(await call('eth_getBalance', OTHER, 'latest'), '0x7')
    assert.equal(await call('eth_getBalance', OTHER, '0x0'), '0x0')
    assert.equal(await call('eth_getBalance', OTHER, { blockHash: bytesToHex(block1) }), '0x7')
    assert.equal(await call('eth_getBalance', OTHER, bytesToHex(block1)), '0x7')
    assert.equal(await call('eth_getCode', OTHER, 'latest'), '0x')
    const code = await call('eth_getCode', contract, 'latest')
    assert.ok(code.length > 100)
    assert.equal(await call('eth_getCode', contract, '0x1'), '0x')
    // slot 0 = count: 5 after the constructor, 6 after increment
    assert.equal(await call('eth_getStorageAt', contract, '0x0', '0x2'), `0x${word(5n)}`)
    assert.equal(await call('eth_getStorageAt', contract, '0x0', 'latest'), `0x${word(6n)}`)
    assert.equal(await call('eth_getStorageAt', contract, ZERO32, 'latest'), `0x${word(6n)}`)
    assert.equal(
      await call('eth_getStorageAt', contract, '1', 'latest'),
      `0x${'00'.repeat(12)}${EWOQ_ADDRESS.slice(2)}`,
    )
    assert.equal(await call('eth_getStorageAt', OTHER, '0x0', 'latest'), ZERO32)
    assert.equal(await call('eth_getTransactionCount', EWOQ_ADDRESS, 'latest'), '0x4')
    assert.equal(await call('eth_getTransactionCount', EWOQ_ADDRESS, '0x1'), '0x2')
    assert.equal(await call('eth_getTransactionCount', EWOQ_ADDRESS, 'earliest'), '0x0')
    // pending = the pool's nonce, counting the tx waiting in the pool
    assert.equal(await call('eth_getTransactionCount', EWOQ_ADDRESS, 'pending'), '0x5')
    assert.equal(await call('eth_getTransactionCount', EWOQ_ADDRESS, { blockNumber: 'pending' }), '0x5')
  })

  it('refuses numbers above the last accepted block and reports unknown hashes', async () => {
    const unfinalized = { code: -32000, message: 'cannot query unfinalized data' }
    assert.deepEqual(await failure(call('eth_getBalance', OTHER, '0x4')), unfinalized)
    assert.deepEqual(await failure(call('eth_getBlockByNumber', '0x4', false)), unfinalized)
    assert.deepEqual(await failure(call('eth_getHeaderByNumber', '0x64')), unfinalized)
    assert.deepEqual(await failure(call('eth_getUncleByBlockNumberAndIndex', '0x4', '0x0')), unfinalized)
    assert.deepEqual(await failure(call('eth_getBalance', OTHER, `0x${'12'.repeat(32)}`)), {
      code: -32000,
      message: 'header for hash not found',
    })
    // the lookups whose errors coreth swallows give null
    assert.equal(await call('eth_getBlockTransactionCountByNumber', '0x4'), null)
    assert.equal(await call('eth_getUncleCountByBlockNumber', '0x4'), null)
    assert.equal(await call('eth_getTransactionByBlockNumberAndIndex', '0x4', '0x0'), null)
    assert.equal(await call('eth_getRawTransactionByBlockNumberAndIndex', '0x4', '0x0'), '0x')
    assert.equal(await call('eth_getBlockReceipts', '0x4'), null)
    assert.equal(await call('eth_getBlockByHash', `0x${'12'.repeat(32)}`, false), null)
    assert.equal(await call('eth_getHeaderByHash', `0x${'12'.repeat(32)}`), null)
  })

  it('prints blocks with every key, tx hashes or full txs; pending is the latest block', async () => {
    const b = await call('eth_getBlockByNumber', '0x1', false)
    assert.deepEqual(Object.keys(b), [
      'baseFeePerGas',
      'blobGasUsed',
      'blockExtraData',
      'blockGasCost',
      'difficulty',
      'excessBlobGas',
      'extDataGasUsed',
      'extDataHash',
      'extraData',
      'gasLimit',
      'gasUsed',
      'hash',
      'logsBloom',
      'minDelayExcess',
      'miner',
      'mixHash',
      'nonce',
      'number',
      'parentBeaconBlockRoot',
      'parentHash',
      'receiptsRoot',
      'sha3Uncles',
      'size',
      'stateRoot',
      'timestamp',
      'timestampMilliseconds',
      'totalDifficulty',
      'transactions',
      'transactionsRoot',
      'uncles',
    ])
    const rlp = (await chain.vm.core.getBlockByHash(block1))!
    const header = decodeBlock(rlp).header
    assert.equal(b.hash, bytesToHex(block1))
    assert.equal(b.number, '0x1')
    assert.equal(b.totalDifficulty, '0x1')
    assert.equal(b.size, `0x${rlp.length.toString(16)}`)
    assert.equal(b.miner, '0x0100000000000000000000000000000000000000')
    assert.equal(b.gasUsed, '0xa410')
    assert.equal(b.stateRoot, bytesToHex(header.stateRoot))
    assert.deepEqual(b.uncles, [])
    assert.deepEqual(b.transactions, [bytesToHex(transfer.hash()), bytesToHex(legacy.hash())])

    const full = await call('eth_getBlockByHash', bytesToHex(block1), true)
    assert.equal(full.transactions.length, 2)
    const [t0, t1] = full.transactions
    assert.equal(t0.hash, bytesToHex(transfer.hash()))
    assert.equal(t0.blockHash, bytesToHex(block1))
    assert.equal(t0.blockNumber, '0x1')
    assert.equal(t0.transactionIndex, '0x0')
    assert.equal(t1.transactionIndex, '0x1')
    // 1559: effective price = min(maxFee, baseFee + tip)
    const effective = header.baseFee! + 10n ** 9n
    assert.equal(t0.gasPrice, `0x${effective.toString(16)}`)
    assert.equal(t1.gasPrice, `0x${(10n ** 12n).toString(16)}`)
    assert.deepEqual({ ...full, transactions: [] }, { ...b, transactions: [] })

    assert.deepEqual(
      await call('eth_getBlockByNumber', 'pending', false),
      await call('eth_getBlockByNumber', 'latest', false),
    )
    assert.equal((await call('eth_getBlockByNumber', 'latest', false)).hash, bytesToHex(block3))
    assert.equal((await call('eth_getBlockByNumber', 'earliest', false)).number, '0x0')
    assert.equal((await call('eth_getBlockByNumber', 'latest', null)).transactions[0], bytesToHex(increment.hash()))
  })

  it('prints headers as the block without size, extra data, transactions and uncles', async () => {
    const b = await call('eth_getBlockByNumber', '0x1', false)
    const h = await call('eth_getHeaderByNumber', '0x1')
    const { size, blockExtraData, transactions, uncles, ...rest } = b
    assert.deepEqual(h, rest)
    assert.equal(h.totalDifficulty, '0x1')
    assert.deepEqual(await call('eth_getHeaderByHash', bytesToHex(block1)), h)
  })

  it('counts transactions and uncles', async () => {
    assert.equal(await call('eth_getBlockTransactionCountByNumber', '0x1'), '0x2')
    assert.equal(await call('eth_getBlockTransactionCountByHash', bytesToHex(block1)), '0x2')
    assert.equal(await call('eth_getBlockTransactionCountByNumber', 'earliest'), '0x0')
    assert.equal(await call('eth_getUncleCountByBlockNumber', 'latest'), '0x0')
    assert.equal(await call('eth_getUncleCountByBlockHash', bytesToHex(block1)), '0x0')
    assert.equal(await call('eth_getUncleCountByBlockHash', `0x${'12'.repeat(32)}`), null)
    assert.equal(await call('eth_getUncleByBlockNumberAndIndex', 'latest', '0x0'), null)
    assert.equal(await call('eth_getUncleByBlockHashAndIndex', bytesToHex(block1), '0x0'), null)
  })

  it('looks transactions up: accepted first, then the pool; raw bytes too', async () => {
    const t = await call('eth_getTransactionByHash', bytesToHex(legacy.hash()))
    assert.equal(t.blockHash, bytesToHex(block1))
    assert.equal(t.transactionIndex, '0x1')
    assert.equal(t.from, EWOQ_ADDRESS)
    assert.equal(t.to, OTHER)
    assert.equal(t.value, '0x7')
    assert.deepEqual(t, await call('eth_getTransactionByBlockNumberAndIndex', '0x1', '0x1'))
    assert.deepEqual(t, await call('eth_getTransactionByBlockHashAndIndex', bytesToHex(block1), '0x1'))
    assert.equal(await call('eth_getTransactionByBlockNumberAndIndex', '0x1', '0x2'), null)

    const p = await call('eth_getTransactionByHash', bytesToHex(pending.hash()))
    assert.equal(p.blockHash, null)
    assert.equal(p.blockNumber, null)
    assert.equal(p.transactionIndex, null)
    assert.equal(p.gasPrice, `0x${(10n ** 12n).toString(16)}`)
    assert.equal(p.nonce, '0x4')

    assert.equal(await call('eth_getTransactionByHash', `0x${'12'.repeat(32)}`), null)

    assert.equal(await call('eth_getRawTransactionByHash', bytesToHex(legacy.hash())), bytesToHex(legacy.serialize()))
    assert.equal(
      await call('eth_getRawTransactionByHash', bytesToHex(transfer.hash())),
      bytesToHex(transfer.serialize()),
    )
    assert.equal(await call('eth_getRawTransactionByHash', bytesToHex(pending.hash())), bytesToHex(pending.serialize()))
    assert.equal(await call('eth_getRawTransactionByHash', `0x${'12'.repeat(32)}`), '0x')
    assert.equal(
      await call('eth_getRawTransactionByBlockHashAndIndex', bytesToHex(block1), '0x0'),
      bytesToHex(transfer.serialize()),
    )
    assert.equal(await call('eth_getRawTransactionByBlockNumberAndIndex', '0x1', '0x1'), bytesToHex(legacy.serialize()))
    assert.equal(await call('eth_getRawTransactionByBlockNumberAndIndex', '0x1', '0x5'), '0x')
  })

  it('prints receipts: creation, logs with block-wide indexes; block receipts agree', async () => {
    const created = await call('eth_getTransactionReceipt', bytesToHex(deploy.hash()))
    assert.match(created.contractAddress, /^0x[0-9a-f]{40}$/)
    assert.equal(created.to, null)
    assert.equal(created.status, '0x1')
    assert.equal(created.blockNumber, '0x2')

    const r = await call('eth_getTransactionReceipt', bytesToHex(increment.hash()))
    assert.deepEqual(Object.keys(r), [
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
    assert.equal(r.contractAddress, null)
    assert.equal(r.to, contract)
    assert.equal(r.from, EWOQ_ADDRESS)
    assert.equal(r.blockHash, bytesToHex(block3))
    assert.equal(r.type, '0x2')
    assert.equal(r.logs.length, 1)
    const log = r.logs[0]
    const topic0 = bytesToHex(keccak_256(new TextEncoder().encode('Incremented(address,uint256,string)')))
    assert.deepEqual(log.topics, [topic0, `0x${word(BigInt(EWOQ_ADDRESS))}`, `0x${word(6n)}`])
    assert.equal(log.address, contract)
    assert.equal(log.logIndex, '0x0')
    assert.equal(log.removed, false)
    assert.equal(log.transactionHash, bytesToHex(increment.hash()))

    const t = await call('eth_getTransactionReceipt', bytesToHex(legacy.hash()))
    assert.equal(t.cumulativeGasUsed, '0xa410')
    assert.equal(t.gasUsed, '0x5208')
    assert.equal(t.effectiveGasPrice, `0x${(10n ** 12n).toString(16)}`)
    assert.equal(t.transactionIndex, '0x1')
    assert.equal(t.type, '0x0')

    assert.deepEqual(await call('eth_getBlockReceipts', '0x1'), [
      await call('eth_getTransactionReceipt', bytesToHex(transfer.hash())),
      t,
    ])
    assert.deepEqual(await call('eth_getBlockReceipts', bytesToHex(block3)), [r])
    assert.deepEqual(await call('eth_getBlockReceipts', 'earliest'), [])
    assert.equal(await call('eth_getTransactionReceipt', bytesToHex(pending.hash())), null)
    assert.equal(await call('eth_getTransactionReceipt', `0x${'12'.repeat(32)}`), null)
  })

  it('gives EIP-1186 proofs that verify against the block state root', async () => {
    const latest = chain.vm.lastAccepted().header
    const res = await call('eth_getProof', contract, ['0x0', ZERO32, '0x2'], 'latest')
    assert.deepEqual(Object.keys(res), [
      'address',
      'accountProof',
      'balance',
      'codeHash',
      'nonce',
      'storageHash',
      'storageProof',
    ])
    assert.equal(res.address, contract)
    const trie = new MerklePatriciaTrie({ useKeyHashing: true })
    const accountRlp = await verifyMPTWithMerkleProof(
      trie,
      latest.stateRoot,
      hexToBytes(contract),
      res.accountProof.map((n: string) => hexToBytes(n as `0x${string}`)),
    )
    assert.ok(accountRlp !== null)
    const fields = RLP.decode(accountRlp) as Uint8Array[]
    assert.equal(`0x${bytesToBigInt(fields[0]!).toString(16)}`, res.nonce)
    assert.equal(`0x${bytesToBigInt(fields[1]!).toString(16)}`, res.balance)
    assert.equal(bytesToHex(fields[2]!), res.storageHash)
    assert.equal(bytesToHex(fields[3]!), res.codeHash)
    assert.equal(res.codeHash, bytesToHex(keccak_256(hexToBytes(await call('eth_getCode', contract, 'latest')))))
    assert.equal(res.nonce, '0x1')

    // keys: quantity unless given as 32 bytes
    assert.deepEqual(
      res.storageProof.map((s: { key: string; value: string }) => [s.key, s.value]),
      [
        ['0x0', '0x6'],
        [ZERO32, '0x6'],
        ['0x2', '0x0'],
      ],
    )
    for (const [i, slot] of [0n, 0n, 2n].entries()) {
      const value = await verifyMPTWithMerkleProof(
        new MerklePatriciaTrie({ useKeyHashing: true }),
        hexToBytes(res.storageHash),
        hexToBytes(`0x${word(slot)}`),
        res.storageProof[i].proof.map((n: string) => hexToBytes(n as `0x${string}`)),
      )
      const expected = BigInt(res.storageProof[i].value)
      if (expected === 0n) assert.equal(value, null)
      else assert.equal(bytesToBigInt(RLP.decode(value!) as Uint8Array), expected)
    }

    // an EOA: empty storage, proof entries without nodes; an older block verifies against its own root
    const eoa = await call('eth_getProof', EWOQ_ADDRESS, ['0x1'], '0x1')
    const root1 = decodeBlock((await chain.vm.core.getBlockByHash(block1))!).header.stateRoot
    const eoaRlp = await verifyMPTWithMerkleProof(
      new MerklePatriciaTrie({ useKeyHashing: true }),
      root1,
      hexToBytes(EWOQ_ADDRESS),
      eoa.accountProof.map((n: string) => hexToBytes(n as `0x${string}`)),
    )
    assert.equal(bytesToBigInt((RLP.decode(eoaRlp!) as Uint8Array[])[0]!), 2n)
    assert.equal(eoa.nonce, '0x2')
    assert.equal(eoa.storageHash, bytesToHex(KECCAK256_RLP))
    assert.equal(eoa.codeHash, bytesToHex(KECCAK256_NULL))
    assert.deepEqual(eoa.storageProof, [{ key: '0x1', value: '0x0', proof: [] }])

    // an account that does not exist: zero hashes (geth's state reads), a valid absence proof
    const none = await call('eth_getProof', `0x${'99'.repeat(20)}`, ['0x1'], 'latest')
    assert.equal(none.balance, '0x0')
    assert.equal(none.nonce, '0x0')
    assert.equal(none.codeHash, ZERO32)
    assert.equal(none.storageHash, ZERO32)
    assert.deepEqual(none.storageProof, [{ key: '0x1', value: '0x0', proof: [] }])
    const absent = await verifyMPTWithMerkleProof(
      new MerklePatriciaTrie({ useKeyHashing: true }),
      latest.stateRoot,
      hexToBytes(`0x${'99'.repeat(20)}`),
      none.accountProof.map((n: string) => hexToBytes(n as `0x${string}`)),
    )
    assert.equal(absent, null)
  })

  it('rejects bad arguments with geth texts', async () => {
    const bad = (message: string) => ({ code: -32602, message })
    assert.deepEqual(
      await failure(call('eth_getBalance', '0x12', 'latest')),
      bad(
        'invalid argument 0: json: cannot unmarshal hex string has length 2, want 40 for common.Address into Go value of type common.Address',
      ),
    )
    assert.deepEqual(await failure(call('eth_getBalance', OTHER)), bad('missing value for required argument 1'))
    assert.deepEqual(
      await failure(call('eth_getBalance', OTHER, 'latest', true)),
      bad('too many arguments, want at most 2'),
    )
    // argument errors come before arity
    assert.deepEqual(
      await failure(call('eth_getBalance', 5, 'latest', true)),
      bad('invalid argument 0: json: cannot unmarshal non-string into Go value of type common.Address'),
    )
    assert.deepEqual(
      await failure(call('eth_getBlockByNumber', 'latest')),
      bad('missing value for required argument 1'),
    )
    assert.deepEqual(
      await failure(call('eth_getBlockByNumber', 'latest', 'yes')),
      bad('invalid argument 1: json: cannot unmarshal string into Go value of type bool'),
    )
    assert.deepEqual(
      await failure(call('eth_getBlockByNumber', '0x', false)),
      bad('invalid argument 0: hex string "0x"'),
    )
    assert.deepEqual(
      await failure(call('eth_getBlockByHash', '0x1234', false)),
      bad(
        'invalid argument 0: json: cannot unmarshal hex string has length 4, want 64 for common.Hash into Go value of type common.Hash',
      ),
    )
    assert.deepEqual(
      await failure(call('eth_getTransactionByBlockNumberAndIndex', 'latest', 1)),
      bad('invalid argument 1: json: cannot unmarshal non-string into Go value of type hexutil.Uint'),
    )
    assert.deepEqual(
      await failure(call('eth_getTransactionByBlockNumberAndIndex', 'latest', '0x01')),
      bad(
        'invalid argument 1: json: cannot unmarshal hex number with leading zero digits into Go value of type hexutil.Uint',
      ),
    )
    assert.deepEqual(
      await failure(call('eth_getStorageAt', OTHER, 0, 'latest')),
      bad('invalid argument 1: json: cannot unmarshal number into Go value of type string'),
    )
    assert.deepEqual(
      await failure(call('eth_getProof', OTHER, '0x0', 'latest')),
      bad('invalid argument 1: json: cannot unmarshal string into Go value of type []string'),
    )
    assert.deepEqual(await failure(call('eth_getTransactionReceipt')), bad('missing value for required argument 0'))
    // storage keys are decoded after the block (-32000, as coreth's decodeHash)
    assert.deepEqual(await failure(call('eth_getStorageAt', OTHER, '0xzz', 'latest')), {
      code: -32000,
      message: 'unable to decode storage key: hex string invalid',
    })
    assert.deepEqual(await failure(call('eth_getStorageAt', OTHER, `0x${'1'.repeat(65)}`, 'latest')), {
      code: -32000,
      message: 'unable to decode storage key: hex string too long, want at most 32 bytes',
    })
    assert.deepEqual(await failure(call('eth_getProof', OTHER, ['0xzz'], 'latest')), {
      code: -32000,
      message: 'hex string invalid',
    })
  })

  it('serves net and web3', async () => {
    assert.equal(await call('net_version'), chain.vm.chainId.toString())
    assert.equal(await call('net_listening'), true)
    assert.equal(await call('net_peerCount'), '0x0')
    assert.equal(await call('web3_clientVersion'), 'v1.14.0')
    assert.equal(
      await call('web3_sha3', '0x68656c6c6f'),
      '0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8',
    )
    assert.equal(await call('web3_sha3', '0x'), bytesToHex(KECCAK256_NULL))
    assert.deepEqual(await failure(call('web3_sha3', 'hello')), {
      code: -32602,
      message:
        'invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type hexutil.Bytes',
    })
    assert.deepEqual(await failure(call('web3_sha3')), {
      code: -32602,
      message: 'missing value for required argument 0',
    })
    assert.deepEqual(await failure(call('net_version', 1)), {
      code: -32602,
      message: 'too many arguments, want at most 0',
    })
  })

  it('serves txpool content, contentFrom, status and inspect', async () => {
    const from = '0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC'
    assert.deepEqual(await call('txpool_status'), { pending: '0x1', queued: '0x0' })
    const content = await call('txpool_content')
    assert.deepEqual(Object.keys(content), ['pending', 'queued'])
    assert.deepEqual(Object.keys(content.pending), [from])
    assert.deepEqual(content.pending[from]['4'], await call('eth_getTransactionByHash', bytesToHex(pending.hash())))
    assert.deepEqual(content.queued, {})
    const mine = await call('txpool_contentFrom', EWOQ_ADDRESS)
    assert.deepEqual(mine, { pending: content.pending[from], queued: {} })
    assert.deepEqual(await call('txpool_contentFrom', OTHER), { pending: {}, queued: {} })
    const inspect = await call('txpool_inspect')
    assert.deepEqual(inspect.pending[from], {
      '4': `0x1111111111111111111111111111111111111111: 3 wei + 21000 gas × ${10n ** 12n} wei`,
    })
    assert.deepEqual(await failure(call('txpool_contentFrom', 'x')), {
      code: -32602,
      message:
        'invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type common.Address',
    })
  })
})

describe('eth_getProof window', () => {
  async function chainWith(config: Parameters<typeof openTestChain>[0], blocks: number) {
    const chain = await openTestChain(config)
    const hashes: Uint8Array[] = []
    for (let i = 0; i < blocks; i++) hashes.push(await chain.mine([await chain.signTransfer()]))
    return { chain, call: callerOf(chain), hashes }
  }

  it('uses state-history on pruning nodes; tags always pass; earliest and hashes are checked', async () => {
    const { chain, call, hashes } = await chainWith({ config: { pruningEnabled: true, stateHistory: 2 } }, 6)
    try {
      const fail = (n: number) => ({
        code: -32000,
        message: `historical proof query not allowed: block number ${n} is before the oldest allowed block number 4 (window of 2 blocks)`,
      })
      assert.deepEqual(await failure(call('eth_getProof', EWOQ_ADDRESS, [], '0x1')), fail(1))
      assert.deepEqual(await failure(call('eth_getProof', EWOQ_ADDRESS, [], 'earliest')), fail(0))
      assert.deepEqual(await failure(call('eth_getProof', EWOQ_ADDRESS, [], bytesToHex(hashes[0]!))), fail(1))
      assert.deepEqual(
        await failure(call('eth_getProof', EWOQ_ADDRESS, [], { blockHash: bytesToHex(hashes[0]!) })),
        fail(1),
      )
      const unknown = `0x${'ab'.repeat(32)}`
      assert.deepEqual(await failure(call('eth_getProof', EWOQ_ADDRESS, [], unknown)), {
        code: -32000,
        message: `historical proof query not allowed: block from hash ${unknown} doesn't exist`,
      })
      for (const tag of ['latest', 'pending', 'accepted', 'finalized', 'safe']) {
        assert.equal((await call('eth_getProof', EWOQ_ADDRESS, [], tag)).nonce, '0x6')
      }
      // block 4 passes the window check (its state is pruned: state-history keeps fewer roots than the window; six
      // blocks, so that pruning's cadence, by nodes accepted since the last prune, has pruned after block 4)
      assert.deepEqual(await failure(call('eth_getProof', EWOQ_ADDRESS, [], '0x4')), {
        code: -32000,
        message: `missing trie node ${bytesToHex(decodeBlock((await chain.vm.core.getBlockByNumber(4n))!).header.stateRoot)}`,
      })
      assert.equal((await call('eth_getProof', EWOQ_ADDRESS, [], '0x5')).nonce, '0x5')
      assert.equal((await call('eth_getProof', EWOQ_ADDRESS, [], bytesToHex(hashes[4]!))).nonce, '0x5')
      // above the tip the window passes and the block lookup refuses
      assert.deepEqual(await failure(call('eth_getProof', EWOQ_ADDRESS, [], '0x7')), {
        code: -32000,
        message: 'cannot query unfinalized data',
      })
    } finally {
      await chain.close()
    }
  })

  it('uses historical-proof-query-window on archive nodes, where 0 is unlimited', async () => {
    const limited = await chainWith({ config: { pruningEnabled: false, historicalProofQueryWindow: 1 } }, 3)
    try {
      assert.deepEqual(await failure(limited.call('eth_getProof', EWOQ_ADDRESS, [], '0x1')), {
        code: -32000,
        message:
          'historical proof query not allowed: block number 1 is before the oldest allowed block number 2 (window of 1 blocks)',
      })
      assert.equal((await limited.call('eth_getProof', EWOQ_ADDRESS, [], '0x2')).nonce, '0x2')
    } finally {
      await limited.chain.close()
    }
    const unlimited = await chainWith({ config: { pruningEnabled: false, historicalProofQueryWindow: 0 } }, 3)
    try {
      assert.equal((await unlimited.call('eth_getProof', EWOQ_ADDRESS, [], 'earliest')).nonce, '0x0')
      assert.equal((await unlimited.call('eth_getProof', EWOQ_ADDRESS, [], '0x1')).nonce, '0x1')
    } finally {
      await unlimited.chain.close()
    }
  })

  it('checks a hash of a block not yet accepted as coreth does', async () => {
    const { chain, call } = await chainWith({ config: { pruningEnabled: true, stateHistory: 2 } }, 1)
    try {
      const tx = await chain.signTransfer()
      await chain.vm.submitTransaction(tx)
      const built = await chain.vm.buildBlock()
      assert.deepEqual(await failure(call('eth_getProof', EWOQ_ADDRESS, [], bytesToHex(built.hash))), {
        code: -32000,
        message: 'historical proof query not allowed: failed to get block from hash: cannot query unfinalized data',
      })
      assert.deepEqual(await failure(call('eth_getBlockByHash', bytesToHex(built.hash), false)), {
        code: -32000,
        message: 'cannot query unfinalized data',
      })
      assert.equal(await call('eth_getHeaderByHash', bytesToHex(built.hash)), null)
      // its tx is in no accepted block yet: no receipt
      assert.equal(decodeBlock(built.rlp).txs.length, 1)
      assert.equal(await call('eth_getTransactionReceipt', bytesToHex(tx.hash())), null)
      const lookup = await call('eth_getTransactionByHash', bytesToHex(tx.hash()))
      assert.ok(lookup === null || lookup.blockHash === null)
    } finally {
      await chain.close()
    }
  })
})
