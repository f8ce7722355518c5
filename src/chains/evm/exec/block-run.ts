/**
 * One block's execution: transactions run one by one with vm.runTx on the parent's state, a running gas
 * counter, and Avalanche's fee rule (the coinbase gets gasUsed x effectiveGasPrice in full: ethereumjs burns the
 * base fee, so it is added back). The state root, the tx and receipt tries and the bloom are computed once, in
 * `finish()`. No method here touches the database: trie nodes land in the run's NodeLayer.
 */

import type { Block } from '@ethereumjs/block'
import { createBlock } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { EVM, EVMMockBlockchainInterface } from '@ethereumjs/evm'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Address, setLengthLeft } from '@ethereumjs/util'
import { createVM, encodeReceipt, type RunTxResult, runTx, type VM } from '@ethereumjs/vm'
import { BLACKHOLE } from '../header.js'
import type { AvaStateManager } from '../state/state-manager.js'
import { commitPause } from '../state/writer-pause.js'
import type { StoredReceipt } from '../store/receipt.js'
import { guardedOpcodes } from './call-guard.js'
import { createFirnEVM } from './evm-tables.js'
import { type PlainTransferResult, plainTransfersApply, runPlainTransfer } from './plain-transfer.js'
import { avalanchePrecompiles } from './precompiles.js'
import { orderedTrieRoot } from './trie-root.js'

export interface BlockEnv {
  parentHash: Uint8Array
  number: bigint
  /** seconds */
  time: bigint
  gasLimit: bigint
  baseFee: bigint
  /** most gas the block's txs may use (ACP-176 capacity); default gasLimit */
  capacity?: bigint
}

export interface RunResult {
  stateRoot: Uint8Array
  txRoot: Uint8Array
  receiptRoot: Uint8Array
  bloom: Uint8Array
  gasUsed: bigint
  txs: TypedTransaction[]
  receipts: StoredReceipt[]
}

/** Why a tx did not go in: it does not fit (try others), or it is invalid for its sender (skip the sender). */
export type TxRefusal = { kind: 'no-room' } | { kind: 'invalid'; reason: string }

const ONE = setLengthLeft(new Uint8Array([1]), 32)
const ZERO32 = new Uint8Array(32)

export function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint): bigint {
  if ('maxFeePerGas' in tx) {
    const tip = tx.maxPriorityFeePerGas
    const capped = baseFee + tip
    if (tx.maxFeePerGas < capped) return tx.maxFeePerGas
    return capped
  }
  return tx.gasPrice
}

/** The ethereumjs block the VM sees: coinbase 0x0100..00, PREVRANDAO (mixHash) 1, no blobs. */
export function executionBlock(common: Common, env: BlockEnv): Block {
  return createBlock(
    {
      header: {
        parentHash: env.parentHash,
        number: env.number,
        timestamp: env.time,
        gasLimit: env.gasLimit,
        baseFeePerGas: env.baseFee,
        coinbase: new Address(BLACKHOLE),
        difficulty: 0n,
        mixHash: ONE,
        excessBlobGas: 0n,
        blobGasUsed: 0n,
        parentBeaconBlockRoot: ZERO32,
      },
    },
    { common, skipConsensusFormatValidation: true },
  )
}

export async function createAvaVM(
  common: Common,
  sm: AvaStateManager,
  blockchain: EVMMockBlockchainInterface,
  /** with the call guard's JUMP and JUMPI (a guard attaches per run: call-guard.ts) */
  guarded = false,
): Promise<VM> {
  // a copy per VM: each EVM listens to hardfork changes on its own Common (a shared one would collect listeners)
  const copy = common.copy()
  const evm = createFirnEVM({
    common: copy,
    stateManager: sm,
    blockchain,
    customPrecompiles: avalanchePrecompiles(),
    // a caller's run (eth_call ...) stops at its deadline and lets the event loop in (call-guard.ts)
    ...(guarded ? { customOpcodes: guardedOpcodes(copy) } : {}),
  })
  return createVM({ common: copy, stateManager: sm, blockchain, evm })
}

/**
 * A long block must not hold the event loop: between txs the run takes the single writer's pause
 * (state/writer-pause.ts), so HTTP requests and WebSocket traffic are served (a 400-tx block is ~1 s of CPU here).
 */
export class BlockRun {
  private gasUsed = 0n
  private readonly txs: TypedTransaction[] = []
  private readonly receipts: StoredReceipt[] = []
  private readonly rawReceipts: Uint8Array[] = []
  private readonly block: Block
  private readonly coinbase = new Address(BLACKHOLE)
  private readonly capacity: bigint
  /** plain value transfers skip runTx (plain-transfer.ts) under this VM's rules */
  private readonly plain: boolean
  /** how many txs went the plain-transfer way (tests) */
  plainTransfers = 0

  constructor(
    readonly vm: VM,
    readonly sm: AvaStateManager,
    readonly env: BlockEnv,
    /** false: every tx through ethereumjs' runTx (tests compare both ways) */
    opts: { plainTransfers?: boolean } = {},
  ) {
    this.block = executionBlock(vm.common, env)
    this.capacity = env.capacity ?? env.gasLimit
    this.plain = opts.plainTransfers !== false && plainTransfersApply(vm)
  }

  get used(): bigint {
    return this.gasUsed
  }

  /** Run one tx; on refusal the state is as before. */
  async add(tx: TypedTransaction): Promise<TxRefusal | undefined> {
    const pause = commitPause()
    if (pause !== undefined) await pause
    if (tx.type === 3) return { kind: 'invalid', reason: 'transaction type not supported' }
    if (this.gasUsed + tx.gasLimit > this.capacity) return { kind: 'no-room' }
    let result: RunTxResult | PlainTransferResult | undefined
    const depth = this.sm.checkpoints
    try {
      if (this.plain) {
        result = await runPlainTransfer(this.vm, this.sm, tx, {
          baseFee: this.env.baseFee,
          coinbase: this.coinbase,
          gasUsed: this.gasUsed,
        })
        if (result !== undefined) this.plainTransfers++
      }
      result ??= await runTx(this.vm, {
        tx,
        block: this.block,
        blockGasUsed: this.gasUsed,
        skipBlockGasLimitValidation: true,
        skipHardForkValidation: true,
      })
    } catch (e) {
      // runTx reverts its own checkpoint, but an exception that is not an EVM error (a precompile ethereumjs cannot
      // run, such as 0x0a's KZG without a KZG library) leaves the message's checkpoints open: everything after
      // would stay in them and never reach the block's state (the accepted root unreadable); its journal is reset
      // meanwhile, so the state manager's count says how far back: to before the tx.
      while (this.sm.checkpoints > depth) await this.sm.revert()
      ;(this.vm.evm as EVM).transientStorage.clear()
      return { kind: 'invalid', reason: e instanceof Error ? e.message : String(e) }
    }
    const used = result.totalGasSpent
    const price = effectiveGasPrice(tx, this.env.baseFee)
    // ethereumjs paid the tip to the coinbase and burned the base fee: credit the base fee part too
    const burned = used * this.env.baseFee
    if (burned > 0n) {
      const account = await this.sm.getAccount(this.coinbase)
      if (account !== undefined) {
        account.balance += burned
        await this.sm.putAccount(this.coinbase, account)
      } else {
        await this.sm.modifyAccountFields(this.coinbase, { balance: burned })
      }
    }
    this.gasUsed += used
    this.txs.push(tx)
    this.rawReceipts.push(encodeReceipt(result.receipt, tx.type))
    const receipt = result.receipt
    this.receipts.push({
      txHash: tx.hash(),
      type: tx.type,
      status: 'status' in receipt ? receipt.status : 1,
      cumulativeGasUsed: receipt.cumulativeBlockGasUsed,
      gasUsed: used,
      effectiveGasPrice: price,
      from: tx.getSenderAddress().bytes,
      to: tx.to?.bytes ?? new Uint8Array(0),
      contractAddress: result.createdAddress?.bytes ?? new Uint8Array(0),
      bloom: receipt.bitvector,
      logs: receipt.logs.map(([address, topics, data]) => ({ address, topics, data })),
    })
    return undefined
  }

  async finish(): Promise<RunResult> {
    const stateRoot = await this.sm.getStateRoot()
    const txRoot = await orderedTrieRoot(this.txs.map((tx) => tx.serialize()))
    const receiptRoot = await orderedTrieRoot(this.rawReceipts)
    const bloom = new Uint8Array(256)
    for (const r of this.receipts) for (let i = 0; i < 256; i++) bloom[i] = bloom[i]! | r.bloom[i]!
    return {
      stateRoot,
      txRoot,
      receiptRoot,
      bloom,
      gasUsed: this.gasUsed,
      txs: this.txs,
      receipts: this.receipts,
    }
  }
}
