import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { feeMethods } from '../../../../../../src/chains/evm/api/fees.js'
import { GasPriceOracle, GWEI } from '../../../../../../src/chains/evm/gasprice/oracle.js'
import { decodeBlock } from '../../../../../../src/chains/evm/header.js'
import { type Call, caller, failure, TEST_CTX } from '../../../../../helpers/eth-methods.js'
import { openTestChain, type TestChain } from '../../../../../helpers/evm-chain.js'

const _ctx = TEST_CTX

const q = (n: bigint) => `0x${n.toString(16)}`

/** Mine one block with 1559 txs carrying these tips (max fee 1000 gwei). */
async function mineTips(chain: TestChain, tips: bigint[]): Promise<Uint8Array> {
  const txs = []
  let nonce: bigint | undefined
  for (const tip of tips) {
    const tx = await chain.signTransfer({ maxPriorityFeePerGas: tip, nonce })
    nonce = tx.nonce + 1n
    txs.push(tx)
  }
  return chain.mine(txs)
}

describe('fee methods on an idle chain', () => {
  let chain: TestChain
  let call: Call
  before(async () => {
    chain = await openTestChain()
    call = caller(feeMethods(chain.vm))
    await chain.mine()
  })
  after(async () => {
    await chain.close()
  })

  it('suggests 1 wei tips and a 1 wei base fee', async () => {
    assert.equal(await call('eth_baseFee'), '0x1')
    assert.equal(await call('eth_maxPriorityFeePerGas'), '0x1')
    assert.equal(await call('eth_gasPrice'), '0x2')
    assert.deepEqual(await call('eth_suggestPriceOptions'), {
      slow: { maxPriorityFeePerGas: '0x1', maxFeePerGas: '0x3' },
      normal: { maxPriorityFeePerGas: '0x1', maxFeePerGas: '0x3' },
      fast: { maxPriorityFeePerGas: '0x1', maxFeePerGas: '0x3' },
    })
  })

  it('rejects arguments', async () => {
    assert.deepEqual(await failure(call('eth_gasPrice', 1)), {
      code: -32602,
      message: 'too many arguments, want at most 0',
    })
  })
})

describe('fee oracle after txs with tips', () => {
  let chain: TestChain
  let call: Call
  before(async () => {
    chain = await openTestChain()
    call = caller(feeMethods(chain.vm))
  })
  after(async () => {
    await chain.close()
  })

  it('takes the 40th percentile of recent tips, cached per head', async () => {
    await mineTips(chain, [3n * GWEI, 1n * GWEI])
    await mineTips(chain, [5n * GWEI, 2n * GWEI, 4n * GWEI])
    // sorted [1,2,3,4,5] gwei: index (5-1)*40/100 = 1
    assert.equal(await call('eth_maxPriorityFeePerGas'), q(2n * GWEI))
    assert.equal(await call('eth_gasPrice'), q(2n * GWEI + 1n))
    assert.deepEqual(await call('eth_suggestPriceOptions'), {
      slow: { maxPriorityFeePerGas: q(19n * 10n ** 8n), maxFeePerGas: q(19n * 10n ** 8n + 2n) },
      normal: { maxPriorityFeePerGas: q(2n * GWEI), maxFeePerGas: q(2n * GWEI + 2n) },
      fast: { maxPriorityFeePerGas: q(21n * 10n ** 8n), maxFeePerGas: q(21n * 10n ** 8n + 2n) },
    })
    // an empty block: the samples of the earlier blocks still count
    await chain.mine()
    assert.equal(await call('eth_maxPriorityFeePerGas'), q(2n * GWEI))
  })

  it('clamps to 150 gwei and caps normal/slow at price-options-max-tip', async () => {
    await mineTips(
      chain,
      Array.from({ length: 12 }, () => 400n * GWEI),
    )
    assert.equal(await call('eth_maxPriorityFeePerGas'), q(150n * GWEI))
    const options = await call('eth_suggestPriceOptions')
    assert.equal(options.normal.maxPriorityFeePerGas, q(20n * GWEI))
    assert.equal(options.slow.maxPriorityFeePerGas, q(19n * GWEI))
    assert.equal(options.fast.maxPriorityFeePerGas, q(157_500_000_000n))
  })

  it('ignores blocks older than 80 s and repeats the last value', async () => {
    const vm = chain.vm
    const late = {
      config: vm.config,
      core: vm.core,
      latest: () => vm.latest(),
      lastAccepted: () => vm.lastAccepted(),
      estimateBaseFeeAfter: (h: Parameters<typeof vm.estimateBaseFeeAfter>[0]) => vm.estimateBaseFeeAfter(h),
      now: () => Date.now() + 81_000 + 1000,
    }
    const oracle = new GasPriceOracle(late, { minPrice: 3n })
    assert.equal(await oracle.suggestTip(), 3n)
  })

  it('uses tx-pool-price-limit as the minimum', async () => {
    const other = await openTestChain({ config: { txPoolPriceLimit: 7 } })
    try {
      assert.equal(await caller(feeMethods(other.vm))('eth_maxPriorityFeePerGas'), '0x7')
    } finally {
      await other.close()
    }
  })

  it('eth_feeHistory returns coreth shape with blockCount + 1 base fees (geth)', async () => {
    const head = chain.vm.lastAccepted().header.number
    const h = await call('eth_feeHistory', '0x3', 'latest', [0, 50, 100])
    assert.deepEqual(Object.keys(h), ['oldestBlock', 'reward', 'baseFeePerGas', 'gasUsedRatio'])
    assert.equal(h.oldestBlock, q(head - 2n))
    assert.equal(h.reward.length, 3)
    assert.deepEqual(h.reward[2], [q(400n * GWEI), q(400n * GWEI), q(400n * GWEI)])
    assert.deepEqual(h.reward[1], ['0x0', '0x0', '0x0'])
    // the last entry is the base fee of the block after the newest: for the head, a block built on it now
    assert.deepEqual(h.baseFeePerGas, ['0x1', '0x1', '0x1', q(chain.vm.estimateNextBaseFee())])
    assert.equal(h.gasUsedRatio.length, 3)
    assert.equal(h.gasUsedRatio[1], 0)
    assert.ok(h.gasUsedRatio[2] > 0)

    const noRewards = await call('eth_feeHistory', 2, '0x2')
    // below the head, the next base fee is block 3's own
    const block3 = await chain.vm.core.getBlockByNumber(3n)
    assert.ok(block3 !== undefined)
    assert.deepEqual(noRewards, {
      oldestBlock: '0x1',
      baseFeePerGas: ['0x1', '0x1', q(decodeBlock(block3).header.baseFee ?? 0n)],
      gasUsedRatio: noRewards.gasUsedRatio,
    })
    assert.deepEqual(await call('eth_feeHistory', '0x0', 'latest'), { oldestBlock: '0x0', gasUsedRatio: null })
    assert.deepEqual(await call('eth_feeHistory', '0x1', 'pending'), { oldestBlock: '0x0', gasUsedRatio: null })
    const all = await call('eth_feeHistory', '100', 'latest')
    assert.equal(all.oldestBlock, '0x0')
    assert.equal(all.baseFeePerGas[0], q(225n * GWEI))
    assert.equal(all.baseFeePerGas.length, all.gasUsedRatio.length + 1)
  })

  it('eth_feeHistory errors use coreth texts', async () => {
    const head = chain.vm.lastAccepted().header.number
    const cases: [unknown[], number, string][] = [
      [['0x2', 'latest', [20, 10]], -32000, 'invalid reward percentile: #0:20.000000 >= #1:10.000000'],
      [['0x2', 'latest', [101]], -32000, 'invalid reward percentile: 101.000000'],
      [
        ['0x2', 'latest', Array.from({ length: 101 }, (_, i) => i / 2)],
        -32000,
        'invalid reward percentile: over the query limit 100',
      ],
      [['0x2', '0x63'], -32000, `request beyond head block: requested 99, head ${head}`],
      [['abc', 'latest'], -32602, 'invalid argument 0: invalid hex or decimal integer "abc"'],
      [
        ['0x2', 'latest', 'x'],
        -32602,
        'invalid argument 2: json: cannot unmarshal string into Go value of type []float64',
      ],
      [['0x2'], -32602, 'missing value for required argument 1'],
    ]
    for (const [params, code, message] of cases) {
      assert.deepEqual(await failure(call('eth_feeHistory', ...params)), { code, message })
    }
  })
})

describe('fee oracle without receipts', () => {
  let chain: TestChain
  before(async () => {
    chain = await openTestChain()
  })
  after(async () => {
    await chain.close()
  })

  it("takes a block's tips from its receipts, and decodes its txs when the receipts cannot be read: the same tips", async () => {
    await mineTips(chain, [7n * GWEI, 1n * GWEI])
    await mineTips(chain, [9n * GWEI, 3n * GWEI, 5n * GWEI])
    const vm = chain.vm
    let asked = 0
    const chainWith = (getReceipts: typeof vm.core.getReceipts) => ({
      config: vm.config,
      core: {
        common: vm.core.common,
        getBlockByHash: (h: Uint8Array) => vm.core.getBlockByHash(h),
        getBlockByNumber: (n: bigint) => vm.core.getBlockByNumber(n),
        getReceipts,
      },
      latest: () => vm.latest(),
      lastAccepted: () => vm.lastAccepted(),
      estimateBaseFeeAfter: (h: Parameters<typeof vm.estimateBaseFeeAfter>[0]) => vm.estimateBaseFeeAfter(h),
      now: () => Date.now(),
    })
    const fromReceipts = new GasPriceOracle(chainWith((h) => vm.core.getReceipts(h)))
    const decoded = new GasPriceOracle(
      chainWith(async () => {
        asked++
        return undefined
      }),
    )
    const tip = await fromReceipts.suggestTip()
    // sorted [1, 3, 5, 7, 9] gwei: the 40th percentile is index (5 - 1) * 40 / 100 = 1
    assert.equal(tip, 3n * GWEI)
    assert.equal(await decoded.suggestTip(), tip)
    assert.ok(asked > 0, 'the receipts were asked for and missing')
  })
})
