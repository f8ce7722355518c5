/**
 * eth_feeHistory on a real `firn --dev` node while blocks are being built (issue 14, item 7): blockCount + 1 base
 * fees (the last is the next block's), oldestBlock = newest - blockCount + 1 whenever that many blocks exist, and
 * every entry the value of the block it names, checked against the blocks themselves.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { JsonRpcProvider, Wallet } from 'ethers'
import { EWOQ_PRIVATE_KEY } from '../../src/chains/evm/rules/presets.js'
import { type FirnProcess, startFirn } from '../helpers/firn-process.js'

interface FeeHistory {
  oldestBlock: string
  baseFeePerGas: string[]
  gasUsedRatio: number[]
  reward?: string[][]
}

describe('eth_feeHistory while blocks are built', () => {
  let node: FirnProcess
  let provider: JsonRpcProvider
  let wallet: Wallet
  let sending = true
  let sender: Promise<number> = Promise.resolve(0)
  const baseFees = new Map<number, string>()

  const feeHistory = (count: unknown, newest: unknown, percentiles?: number[]) =>
    provider.send(
      'eth_feeHistory',
      percentiles === undefined ? [count, newest] : [count, newest, percentiles],
    ) as Promise<FeeHistory>
  const blockNumber = async () => Number(await provider.send('eth_blockNumber', []))
  const baseFeeOf = async (n: number): Promise<string> => {
    const known = baseFees.get(n)
    if (known !== undefined) return known
    const block = (await provider.send('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])) as {
      baseFeePerGas: string
    }
    baseFees.set(n, block.baseFeePerGas)
    return block.baseFeePerGas
  }

  before(async () => {
    node = await startFirn({ args: ['--dev'] })
    provider = new JsonRpcProvider(`${node.url}/ext/bc/C/rpc`, undefined, { staticNetwork: true, batchMaxCount: 1 })
    wallet = new Wallet(`0x${EWOQ_PRIVATE_KEY}`, provider)
    const chainId = (await provider.getNetwork()).chainId
    let nonce = await provider.getTransactionCount(wallet.address)
    // transfers, one after another, for as long as the test calls: the dev node builds a block as they arrive
    sender = (async () => {
      let sent = 0
      while (sending) {
        const raw = await wallet.signTransaction({
          type: 2,
          chainId,
          nonce: nonce++,
          to: wallet.address,
          value: 1n,
          gasLimit: 21_000n,
          maxFeePerGas: 100_000_000_000n,
          maxPriorityFeePerGas: BigInt(1 + (sent % 7)),
        })
        await provider.send('eth_sendRawTransaction', [raw])
        sent++
      }
      return sent
    })()
  })

  after(async () => {
    sending = false
    await sender.catch(() => 0)
    provider?.destroy()
    await node?.cleanup()
  })

  it('answers blockCount + 1 base fees and the right oldest block for the latest blocks', async () => {
    const startHeight = await blockNumber()
    let full = 0
    for (let i = 0; i < 60; i++) {
      const before = await blockNumber()
      const h = await feeHistory(3, 'latest', [25, 75])
      const afterHeight = await blockNumber()
      const oldest = Number(h.oldestBlock)
      const count = h.gasUsedRatio.length
      const newest = oldest + count - 1
      assert.ok(newest >= before && newest <= afterHeight, `newest ${newest} outside [${before}, ${afterHeight}]`)
      // three blocks whenever three exist; then oldest = newest - 2, never the newest itself
      assert.equal(count, Math.min(3, newest + 1), `count ${count} at newest ${newest}`)
      if (newest >= 2) {
        assert.equal(oldest, newest - 2)
        full++
      }
      assert.equal(h.baseFeePerGas.length, count + 1)
      assert.equal(h.reward?.length, count)
      for (let k = 0; k < count; k++) assert.equal(h.baseFeePerGas[k], await baseFeeOf(oldest + k))
    }
    const endHeight = await blockNumber()
    assert.ok(endHeight - startHeight >= 10, `blocks were built meanwhile (${startHeight} -> ${endHeight})`)
    assert.ok(full > 0)
  })

  it('ends with the next block’s own base fee below the head, and handles pending and numbers', async () => {
    while ((await blockNumber()) < 12) await new Promise((r) => setTimeout(r, 20))
    const h = await feeHistory('0x4', '0x8')
    assert.equal(h.oldestBlock, '0x5')
    assert.equal(h.gasUsedRatio.length, 4)
    assert.deepEqual(h.baseFeePerGas, await Promise.all([5, 6, 7, 8, 9].map(baseFeeOf)))
    assert.equal(h.reward, undefined)

    // pending: the blocks up to latest, one fewer (coreth), still one base fee more than blocks
    const p = await feeHistory(3, 'pending')
    assert.equal(p.gasUsedRatio.length, 2)
    assert.equal(p.baseFeePerGas.length, 3)

    // more blocks than exist from a low newest block: all of them from genesis
    const early = await feeHistory(10, '0x1')
    assert.equal(early.oldestBlock, '0x0')
    assert.deepEqual(early.baseFeePerGas, await Promise.all([0, 1, 2].map(baseFeeOf)))
  })
})
