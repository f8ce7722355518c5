import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Address, bytesToBigInt, bytesToHex, hexToBytes } from '@ethereumjs/util'
import { p256 } from '@noble/curves/nist.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { MemoryLevel } from 'memory-level'
import { arraySource } from '../../../../../../src/chains/evm/exec/builder.js'
import { EvmChainCore } from '../../../../../../src/chains/evm/exec/chain.js'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'
import { BLACKHOLE, decodeBlock, encodeBlock } from '../../../../../../src/chains/evm/header.js'
import { addressOf, CONTRACT, fields, genesis, transfer } from './fixtures.js'

const common = createEvmCommon(43112n)

async function open(alloc = {}) {
  const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
  return EvmChainCore.open(db, genesis(4, alloc), { common, pruning: { mode: 'archive' } })
}

describe('executor', () => {
  it('credits the coinbase 0x0100..00 with gasUsed x effectiveGasPrice in full', async () => {
    const chain = await open()
    const tip = chain.lastAccepted()
    const tx = transfer(common, 0, 0n, addressOf(1).bytes, { value: 1000n, maxFee: 10n, tip: 2n })
    const block = await chain.buildBlock(tip.hash, fields(1n), arraySource([tx]))
    assert.equal(block.txs.length, 1)
    assert.equal(block.header.gasUsed, 21_000n)
    assert.deepEqual(block.header.coinbase, BLACKHOLE)
    const view = await chain.stateAt(block.header.stateRoot)
    // base fee 5 + tip 2 = 7 per gas, nothing burned
    assert.equal((await view.getAccount(new Address(BLACKHOLE)))?.balance, 21_000n * 7n)
    assert.equal(block.receipts[0]!.effectiveGasPrice, 7n)
    assert.equal((await view.getAccount(addressOf(0)))?.balance, 10n ** 24n - 1000n - 21_000n * 7n)
  })

  it('pays no gas refund for clearing a storage slot', async () => {
    // PUSH1 0 PUSH1 0 SSTORE STOP, slot 0 = 1 at genesis
    const chain = await open({ [bytesToHex(CONTRACT)]: { code: '0x600060005500', storage: { '0x00': '0x01' } } })
    const tx = transfer(common, 0, 0n, CONTRACT, { value: 0n, gasLimit: 100_000n })
    const block = await chain.buildBlock(chain.lastAccepted().hash, fields(1n), arraySource([tx]))
    assert.equal(block.receipts[0]!.status, 1)
    // 21000 + 2 x PUSH1 (3) + cold SSTORE reset (2100 + 2900); a refund of 4800 would give 21206
    assert.equal(block.receipts[0]!.gasUsed, 26_006n)
    const view = await chain.stateAt(block.header.stateRoot)
    assert.deepEqual(await view.getStorage(new Address(CONTRACT), new Uint8Array(32)), new Uint8Array(0))
  })

  it('aliases storage slots 0x01.. and 0x00.. inside the EVM', async () => {
    // PUSH1 7 PUSH32 0x0100..00 SSTORE; PUSH1 0 SLOAD PUSH1 0 MSTORE; RETURN 32 bytes
    const code = `0x6007${'7f01'}${'00'.repeat(31)}55600054600052602060006000f3`.replace('60006000f3', '6000f3')
    const chain = await open({ [bytesToHex(CONTRACT)]: { code } })
    const tx = transfer(common, 0, 0n, CONTRACT, { value: 0n, gasLimit: 100_000n })
    const block = await chain.buildBlock(chain.lastAccepted().hash, fields(1n), arraySource([tx]))
    assert.equal(block.receipts[0]!.status, 1)
    const view = await chain.stateAt(block.header.stateRoot)
    assert.deepEqual(await view.getStorage(new Address(CONTRACT), new Uint8Array(32)), new Uint8Array([7]))
  })

  it('PREVRANDAO and DIFFICULTY return 1; COINBASE returns 0x0100..00', async () => {
    const chain = await open({
      // PREVRANDAO PUSH1 0 MSTORE COINBASE PUSH1 32 MSTORE PUSH1 64 PUSH1 0 RETURN
      [bytesToHex(CONTRACT)]: { code: '0x446000524160205260406000f3' },
    })
    const res = await chain.call(chain.lastAccepted().header, { to: CONTRACT }, 1_000_000n)
    assert.equal(res.error, undefined)
    assert.equal(bytesToBigInt(res.returnValue.subarray(0, 32)), 1n)
    assert.deepEqual(res.returnValue.subarray(44, 64), BLACKHOLE)
  })

  it('P256VERIFY at 0x100 (EIP-7951): a known vector, a bad signature, 6900 gas', async () => {
    const chain = await open()
    const to = hexToBytes('0x0000000000000000000000000000000000000100')
    // RIP-7212 / EIP-7951 test vector
    const vector = hexToBytes(
      ('0x4cee90eb86eaa050036147a12d49004b6b9c72bd725d39d4785011fe190f0b4d' +
        'a73bd4903f0ce3b639bbbf6e8e80d16931ff4bcf5993d58468e8fb19086e8cac' +
        '36dbcd03009df8c59286b162af3bd7fcc0450c9aa81be5d10d312af6c66b1d60' +
        '4aebd3099c618202fcfe16ae7770b0c49ab5eadf74b754204a3bb6060e44eff3' +
        '7618b065f9832de4ca6ca971a7a1adc826d0f7c00181a5fb2ddf79ae00b4e10e') as `0x${string}`,
    )
    const header = chain.lastAccepted().header
    const ok = await chain.call(header, { to, data: vector }, 1_000_000n)
    assert.equal(bytesToBigInt(ok.returnValue), 1n)
    let calldata = 21_000n
    for (const b of vector) calldata += b === 0 ? 4n : 16n
    assert.equal(ok.gasUsed, calldata + 6900n)
    const bad = vector.slice()
    bad[0] = bad[0]! ^ 1
    assert.equal((await chain.call(header, { to, data: bad }, 1_000_000n)).returnValue.length, 0)
    // a signature made here with noble, high-s allowed
    const sk = p256.utils.randomSecretKey()
    const hash = sha256(new TextEncoder().encode('firn'))
    const sig = p256.sign(hash, sk, { prehash: false, format: 'compact' })
    const pub = p256.getPublicKey(sk, false).subarray(1)
    const input = new Uint8Array(160)
    input.set(hash, 0)
    input.set(sig, 32)
    input.set(pub, 96)
    assert.equal(bytesToBigInt((await chain.call(header, { to, data: input }, 1_000_000n)).returnValue), 1n)
  })

  it('deprecated precompiles 0x0100..00/01/02 revert and return the gas', async () => {
    const chain = await open()
    const txs = [0, 1, 2].map((i) =>
      transfer(
        common,
        i,
        0n,
        hexToBytes(`0x01000000000000000000000000000000000000${i.toString(16).padStart(2, '0')}` as `0x${string}`),
        {
          value: 5n,
          gasLimit: 50_000n,
        },
      ),
    )
    const block = await chain.buildBlock(chain.lastAccepted().hash, fields(1n), arraySource(txs))
    for (const r of block.receipts) {
      assert.equal(r.status, 0)
      assert.equal(r.gasUsed, 21_000n)
    }
  })

  it('skips the sender of an invalid tx', async () => {
    const chain = await open()
    const txs = [
      transfer(common, 0, 5n, addressOf(1).bytes), // nonce too high: sender 0 skipped
      transfer(common, 0, 0n, addressOf(1).bytes),
      transfer(common, 1, 0n, addressOf(2).bytes),
    ]
    const block = await chain.buildBlock(chain.lastAccepted().hash, fields(1n), arraySource(txs))
    assert.equal(block.txs.length, 1)
    assert.deepEqual(block.txs[0]!.hash(), txs[2]!.hash())
  })

  it('verifies a block built elsewhere, and rejects one whose roots do not match', async () => {
    const a = await open()
    const b = await open()
    const txs = [0, 1, 2, 3].map((i) => transfer(common, i, 0n, addressOf((i + 1) % 4).bytes))
    const built = await a.buildBlock(a.lastAccepted().hash, fields(1n), arraySource(txs))
    const verified = await b.verifyBlock(built.rlp)
    assert.deepEqual(verified.hash, built.hash)
    await b.acceptBlock(verified.hash)
    assert.deepEqual(b.lastAccepted().hash, built.hash)

    const c = await open()
    const { header, txs: raw, extData } = decodeBlock(built.rlp)
    const wrong = encodeBlock({ ...header, stateRoot: new Uint8Array(32).fill(1) }, raw, extData)
    await assert.rejects(c.verifyBlock(wrong), /invalid merkle root/)
    const wrongGas = encodeBlock({ ...header, gasUsed: 1n }, raw, extData)
    await assert.rejects(c.verifyBlock(wrongGas), /invalid gas used/)
  })

  it('estimates gas and runs eth_call on a view', async () => {
    const chain = await open()
    const header = chain.lastAccepted().header
    assert.equal(
      await chain.estimateGas(header, { from: addressOf(0).bytes, to: addressOf(1).bytes, value: 1n }, 10_000_000n),
      21_000n,
    )
  })
})
