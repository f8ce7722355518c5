/**
 * C-chain execution throughput: 2,000 pre-signed ETH transfers from 16 senders, decoded from their raw bytes
 * (so sender recovery is inside the clock), run
 * - floor: straight through @ethereumjs/vm (createVM with its default state manager, one runTx per tx);
 * - firn: through the executor (builder packing blocks up to the 10M gas capacity, then accept: one level batch
 *   per block with its trie nodes, receipts and indexes, on memory-level).
 * Also prints what one sender recovery costs with ethereumjs' default (noble secp256k1) and on a cache hit.
 * Prints one JSON object.
 */
import '../src/runtime/polyfill.js'
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common'
import { createTx, createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx'
import { Account, createAddressFromPrivateKey, ecrecover } from '@ethereumjs/util'
import { createVM, runTx } from '@ethereumjs/vm'
import { MemoryLevel } from 'memory-level'
import { executionBlock } from '../src/chains/evm/exec/block-run.js'
import { arraySource } from '../src/chains/evm/exec/builder.js'
import { EvmChainCore } from '../src/chains/evm/exec/chain.js'
import { createEvmCommon } from '../src/chains/evm/exec/common.js'
import { cachedEcrecover } from '../src/chains/evm/exec/sender-cache.js'
import { genesis } from '../test/unit/src/chains/evm/exec/fixtures.js'

const SENDERS = 16
const TXS = Number(process.env.BENCH_TXS ?? 2000)
const CHAIN_ID = 43112n
const BASE_FEE = 5n

function key(i: number): Uint8Array {
  const k = new Uint8Array(32)
  k[0] = 0x11
  k[31] = i + 1
  return k
}

const signCommon = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork: Hardfork.Cancun })
const raws: Uint8Array[] = []
for (let n = 0; raws.length < TXS; n++) {
  for (let s = 0; s < SENDERS && raws.length < TXS; s++) {
    const to = createAddressFromPrivateKey(key((s + 1) % SENDERS)).bytes
    const tx = createTx(
      {
        type: 2,
        chainId: CHAIN_ID,
        nonce: BigInt(n),
        to,
        value: 1n,
        gasLimit: 21_000n,
        maxFeePerGas: 10n,
        maxPriorityFeePerGas: 1n,
      },
      { common: signCommon },
    ).sign(key(s))
    raws.push(tx.serialize())
  }
}

async function floor(): Promise<number> {
  const common = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork: Hardfork.Cancun })
  const vm = await createVM({ common })
  for (let s = 0; s < SENDERS; s++)
    await vm.stateManager.putAccount(createAddressFromPrivateKey(key(s)), new Account(0n, 10n ** 24n))
  const block = executionBlock(common, {
    parentHash: new Uint8Array(32),
    number: 1n,
    time: 1n,
    gasLimit: 10n ** 12n,
    baseFee: BASE_FEE,
  })
  const t0 = performance.now()
  for (const raw of raws) {
    const tx = createTxFromRLP(raw, { common })
    await runTx(vm, { tx, block, skipBlockGasLimitValidation: true })
  }
  await vm.stateManager.getStateRoot()
  return performance.now() - t0
}

async function firn(): Promise<{ ms: number; blocks: number }> {
  const common = createEvmCommon(CHAIN_ID)
  const db = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
  const g = genesis(0)
  for (let s = 0; s < SENDERS; s++) g.alloc[createAddressFromPrivateKey(key(s)).toString()] = { balance: 10n ** 24n }
  g.header.baseFee = BASE_FEE
  const chain = await EvmChainCore.open(db, g, { common, pruning: { mode: 'pruning', stateHistory: 32 } })
  const t0 = performance.now()
  let left: TypedTransaction[] = raws.map((raw) => createTxFromRLP(raw, { common }))
  let blocks = 0
  for (let time = 1n; left.length > 0; time++) {
    const tip = chain.lastAccepted()
    const block = await chain.buildBlock(
      tip.hash,
      { time, gasLimit: 10_000_000n, baseFee: BASE_FEE, extra: new Uint8Array(0) },
      arraySource(left),
    )
    await chain.acceptBlock(block.hash)
    blocks++
    const inBlock = new Set(block.txs)
    left = left.filter((tx) => !inBlock.has(tx))
    if (block.txs.length === 0) throw new Error('no progress')
  }
  const ms = performance.now() - t0
  await db.close()
  return { ms, blocks }
}

function recoveryCost(): { defaultMs: number; cacheHitMs: number } {
  const txs = raws.slice(0, 200).map((raw) => createTxFromRLP(raw, { common: signCommon }))
  const inputs = txs.map((tx) => ({ h: tx.getMessageToVerifySignature(), v: tx.v!, r: tx.r!, s: tx.s! }))
  const toBytes = (x: bigint) => Uint8Array.from(Buffer.from(x.toString(16).padStart(64, '0'), 'hex'))
  const args = inputs.map((i) => [i.h, i.v, toBytes(i.r), toBytes(i.s)] as const)
  let t0 = performance.now()
  for (const a of args) ecrecover(a[0], a[1], a[2], a[3])
  const defaultMs = (performance.now() - t0) / args.length
  const cached = cachedEcrecover()
  for (const a of args) cached(a[0], a[1], a[2], a[3])
  t0 = performance.now()
  for (const a of args) cached(a[0], a[1], a[2], a[3])
  const cacheHitMs = (performance.now() - t0) / args.length
  return { defaultMs: Math.round(defaultMs * 1000) / 1000, cacheHitMs: Math.round(cacheHitMs * 10000) / 10000 }
}

const floorMs = await floor()
const firnRun = await firn()
const floorTps = Math.round((TXS / floorMs) * 1000)
const firnTps = Math.round((TXS / firnRun.ms) * 1000)
process.stdout.write(
  `${JSON.stringify({
    bench: 'evm.transfers',
    txs: TXS,
    senders: SENDERS,
    floor: {
      what: '@ethereumjs/vm createVM + runTx, default state manager, decode + recovery inside the clock',
      txPerSec: floorTps,
    },
    firn: {
      what: 'executor: build (capacity 10M gas) + accept (one level batch per block), memory-level',
      txPerSec: firnTps,
      blocks: firnRun.blocks,
    },
    ratio: Math.round((firnTps / floorTps) * 1000) / 1000,
    senderRecovery: recoveryCost(),
  })}\n`,
)
