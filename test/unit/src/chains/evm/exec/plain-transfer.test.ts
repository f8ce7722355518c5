import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm'
import { createTx, type TypedTransaction } from '@ethereumjs/tx'
import { bytesToHex, createAddressFromString } from '@ethereumjs/util'
import { encodeReceipt } from '@ethereumjs/vm'
import { MemoryLevel } from 'memory-level'
import { BlockRun, createAvaVM } from '../../../../../../src/chains/evm/exec/block-run.js'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'
import { type GenesisAlloc, writeGenesisAlloc } from '../../../../../../src/chains/evm/exec/genesis-state.js'
import { BLACKHOLE } from '../../../../../../src/chains/evm/header.js'
import { NodeLayer } from '../../../../../../src/chains/evm/state/node-layer.js'
import { AvaStateManager } from '../../../../../../src/chains/evm/state/state-manager.js'
import { ChainStore } from '../../../../../../src/chains/evm/store/chain-store.js'
import { addressOf, BASE_FEE, CHAIN_ID, key, transfer } from './fixtures.js'

const common = createEvmCommon(CHAIN_ID)
const noBlocks: EVMMockBlockchainInterface = {
  getBlock: async () => {
    throw new Error('no blocks here')
  },
  putBlock: async () => {},
  shallowCopy() {
    return noBlocks
  },
}
const fresh = (i: number) => createAddressFromString(`0x${(0xf000 + i).toString(16).padStart(40, '0')}`).bytes
const CONTRACT = `0x${'c0'.repeat(20)}`
const PRECOMPILE = createAddressFromString(`0x${'00'.repeat(19)}01`).bytes

/** one block of `txs` on `alloc`, every tx through runTx (plain: false) or plain transfers apart */
async function block(alloc: GenesisAlloc, txs: TypedTransaction[], plain: boolean) {
  const store = new ChainStore(new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' }))
  const sm = new AvaStateManager(common, new NodeLayer(store.nodes), undefined)
  await writeGenesisAlloc(sm, alloc)
  const vm = await createAvaVM(common, sm, noBlocks)
  const env = { parentHash: new Uint8Array(32), number: 1n, time: 10n, gasLimit: 15_000_000n, baseFee: BASE_FEE }
  const run = new BlockRun(vm, sm, env, { plainTransfers: plain })
  const refusals: unknown[] = []
  for (const tx of txs) refusals.push(await run.add(tx))
  const result = await run.finish()
  const balances: Record<string, string> = {}
  for (const who of [...Object.keys(alloc), ...txs.map((tx) => tx.to?.toString() ?? '')]) {
    const account = await sm.getAccount(createAddressFromString(who))
    balances[who] = account === undefined ? 'absent' : `${account.nonce}/${account.balance}`
  }
  return {
    stateRoot: bytesToHex(result.stateRoot),
    receiptRoot: bytesToHex(result.receiptRoot),
    txRoot: bytesToHex(result.txRoot),
    gasUsed: result.gasUsed,
    receipts: result.receipts.map((r, i) =>
      bytesToHex(
        encodeReceipt(
          { status: r.status as 0 | 1, cumulativeBlockGasUsed: r.cumulativeGasUsed, bitvector: r.bloom, logs: [] },
          txs[i]!.type,
        ),
      ),
    ),
    refusals,
    balances,
    plainTransfers: run.plainTransfers,
  }
}

/** the block both ways: the same roots, receipts, refusals and accounts; how many went the plain way */
async function same(alloc: GenesisAlloc, txs: TypedTransaction[]): Promise<number> {
  const stock = await block(alloc, txs, false)
  const plain = await block(alloc, txs, true)
  assert.equal(stock.plainTransfers, 0)
  assert.deepEqual({ ...plain, plainTransfers: 0 }, stock)
  return plain.plainTransfers
}

const funded = (n: number, extra: GenesisAlloc = {}): GenesisAlloc => {
  const alloc: GenesisAlloc = { ...extra }
  for (let i = 0; i < n; i++) alloc[addressOf(i).toString()] = { balance: 10n ** 18n }
  return alloc
}
const coinbase = { [bytesToHex(BLACKHOLE)]: { balance: 1n } }

describe('plain transfers', () => {
  it("give runTx's state root, receipts and balances: fresh and funded recipients, all tx types, tips capped or not", async () => {
    const legacy = (from: number, nonce: bigint, to: Uint8Array, gasPrice: bigint, gasLimit = 21_000n) =>
      createTx({ type: 0, nonce, to, value: 3n, gasLimit, gasPrice }, { common }).sign(key(from))
    const access = (from: number, nonce: bigint, to: Uint8Array) =>
      createTx({ type: 1, chainId: CHAIN_ID, nonce, to, value: 4n, gasLimit: 30_000n, gasPrice: 9n }, { common }).sign(
        key(from),
      )
    const txs = [
      transfer(common, 0, 0n, fresh(1)),
      transfer(common, 0, 1n, fresh(2), { value: 10n ** 17n }),
      transfer(common, 0, 2n, addressOf(1).bytes),
      // a tip above maxFee - baseFee is capped; a gas limit above 21,000 is refunded
      transfer(common, 1, 0n, fresh(1), { tip: 9n, maxFee: 11n, gasLimit: 50_000n }),
      transfer(common, 1, 1n, addressOf(2).bytes, { tip: 0n, maxFee: BASE_FEE }),
      legacy(2, 0n, fresh(3), 7n),
      legacy(2, 1n, addressOf(0).bytes, BASE_FEE, 90_000n),
      access(3, 0n, fresh(4)),
    ]
    assert.equal(await same(funded(4, coinbase), txs), txs.length)
  })

  it('leaves to runTx what is not one, and runTx refuses what it refuses, with the same words', async () => {
    const alloc = funded(3, { ...coinbase, [CONTRACT]: { balance: 0n, code: '0x00' } })
    const accessList = [{ address: addressOf(5).toString(), storageKeys: [] }]
    const txs: TypedTransaction[] = [
      transfer(common, 0, 0n, fresh(1), { value: 0n }),
      transfer(common, 0, 1n, fresh(1), { data: new Uint8Array([1]), gasLimit: 30_000n }),
      transfer(common, 0, 2n, PRECOMPILE, { gasLimit: 30_000n }),
      transfer(common, 0, 3n, createAddressFromString(CONTRACT).bytes, { gasLimit: 30_000n }),
      transfer(common, 0, 4n, BLACKHOLE),
      transfer(common, 0, 5n, addressOf(0).bytes),
      createTx(
        { type: 1, chainId: CHAIN_ID, nonce: 6n, to: fresh(2), value: 1n, gasLimit: 30_000n, gasPrice: 9n, accessList },
        { common },
      ).sign(key(0)),
      // refused: a nonce ahead, a fee under the base fee, more value than the balance, too little gas, the fee cap
      transfer(common, 1, 5n, fresh(3)),
      transfer(common, 1, 0n, fresh(3), { maxFee: BASE_FEE - 1n, tip: 0n }),
      transfer(common, 1, 0n, fresh(3), { value: 10n ** 18n }),
      transfer(common, 1, 0n, fresh(3), { gasLimit: 20_999n }),
      // enough for the upfront cost at the block's price (5 + tip 2), not for the value and gas at the fee cap (10)
      transfer(common, 1, 0n, fresh(3), { value: 10n ** 18n - 21_000n * 8n }),
      // and one that is a plain transfer, after them
      transfer(common, 2, 0n, fresh(4)),
    ]
    const stock = await block(alloc, txs, false)
    assert.deepEqual(
      stock.refusals.map((r) => (r === undefined ? 'in' : 'refused')),
      [...Array(7).fill('in'), ...Array(5).fill('refused'), 'in'],
    )
    assert.equal(await same(alloc, txs), 1)
  })

  it('waits for a coinbase: an absent one (runTx creates it) or one EIP-161 would delete', async () => {
    const txs = [transfer(common, 0, 0n, fresh(1), { tip: 0n }), transfer(common, 0, 1n, fresh(2), { tip: 0n })]
    // no coinbase account: the first tx runs through runTx; the block's fee credit makes it, then the second is plain
    assert.equal(await same(funded(1), txs), 1)
    // an empty one and no tip: runTx would delete it (EIP-161); with the base fee credited after, the second is plain
    assert.equal(await same(funded(1, { [bytesToHex(BLACKHOLE)]: { balance: 0n } }), txs), 1)
  })
})
