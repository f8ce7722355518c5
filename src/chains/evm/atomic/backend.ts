/**
 * The atomic txs of one EVM chain (../shared/reference/cchain.md 2): the mempool, the extData part of the blocks
 * the chain builds and verifies, the shared-memory requests and the index written when a block is accepted, and
 * the statuses and txs the API reads.
 *
 * - Build: after the block's EVM txs, the pending txs best price first, each verified again on the block's state
 *   and base fee and applied (an invalid one is discarded, one that does not fit waits), at most 40 KiB of txs,
 *   within the capacity the EVM txs left (Fortuna: gasUsed + extDataGasUsed <= capacity).
 * - Verify: the block's extData decoded, each tx verified on the parent's state and the block's base fee (its
 *   inputs unspent by processing ancestors and by earlier txs of the block) and applied, in order.
 * - Accept: an export's outputs become UTXOs for its destination, an import's UTXOs leave its source's side of
 *   shared memory, and `txID -> height ‖ signed bytes` goes in the chain's `atomicTxs` sublevel: all of it in the
 *   block's own batch (the caller holds shared memory's `exclusive` lane from `apply` to the write).
 */
import { bytesToHex } from '@ethereumjs/util'
import { idToString } from '../../../identity/ids.js'
import { FirnError } from '../../../runtime/errors.js'
import type { ChainSharedMemory, Element, Requests, SharedMemoryOp } from '../../shared-memory/shared-memory.js'
import type { BlockRun } from '../exec/block-run.js'
import { BlockError, type BlockExtras, type ExecutedBlock, type ExtendBlock, NO_EXTRAS } from '../exec/executor.js'
import type { ExtraWrite } from '../store/chain-store.js'
import { decodeTxBatch, encodeTxBatch, encodeUtxo } from './codec.js'
import { ATOMIC_GAS_LIMIT, effectiveGasPrice, gasUsed } from './fees.js'
import { fromHex } from './hex.js'
import { type DecodedTx, decodedOf, idCb58, inputIdsOf, utxoIdOf } from './ids.js'
import { AtomicMempool, pooled } from './mempool.js'
import { type AtomicState, type AtomicVerifyEnv, transferAtomic, verifyAtomicTx } from './semantic.js'
import type { Hex } from './types.js'
import type { SyntaxContext } from './verify.js'

/** The reference's size target of the atomic txs of one block, and the mempool's largest tx. */
export const ATOMIC_TXS_SIZE_TARGET = 40 * 1024

// biome-ignore lint/suspicious/noExplicitAny: a sublevel of the chain's store
type Bytes = any

export interface AtomicBackendOptions {
  ctx: SyntaxContext
  memory: ChainSharedMemory
  /** the chain's `atomicTxs` sublevel: tx ID -> u64 height ‖ signed bytes */
  index: Bytes
  /** unix ms */
  now: () => number
  warn?: (message: string, fields: Record<string, unknown>) => void
}

/** Where a block is built or verified: the input IDs its processing ancestors spend. */
export interface AtomicBlockEnv {
  ancestorsSpent: ReadonlySet<Hex>
  /** the tx IDs in processing ancestors (a build does not offer them again) */
  ancestorTxs: ReadonlySet<Hex>
}

export type AtomicStatus =
  | { status: 'Accepted'; blockHeight: bigint }
  | { status: 'Processing' | 'Dropped' | 'Unknown' }

export interface FoundAtomicTx {
  bytes: Uint8Array
  /** present when accepted */
  blockHeight?: bigint
}

export class AtomicBackend {
  readonly mempool = new AtomicMempool()

  constructor(private readonly opts: AtomicBackendOptions) {}

  get ctx(): SyntaxContext {
    return this.opts.ctx
  }

  #env(baseFee: bigint, spent: (id: Hex) => boolean): AtomicVerifyEnv {
    return {
      ctx: this.opts.ctx,
      baseFee,
      nowUnix: BigInt(Math.floor(this.opts.now() / 1000)),
      memory: this.opts.memory,
      spent,
    }
  }

  /** The mempool's admission (`issueTx` and gossip): limits, then verified on the preferred state, then pooled. */
  async admit(
    d: DecodedTx,
    local: boolean,
    at: { baseFee: bigint; block: AtomicBlockEnv; state: AtomicState },
  ): Promise<void> {
    if (d.signedBytes.length > ATOMIC_TXS_SIZE_TARGET) {
      throw new FirnError(
        `tx size (${d.signedBytes.length}) exceeds total atomic txs size target (${ATOMIC_TXS_SIZE_TARGET})`,
      )
    }
    const gas = gasUsed(d.tx.unsigned, true, d.unsignedBytes.length)
    if (gas > ATOMIC_GAS_LIMIT) {
      throw new FirnError(`tx gas usage (${gas}) exceeds maximum allowed mempool gas usage (${ATOMIC_GAS_LIMIT})`)
    }
    const known = this.mempool.alreadyKnown(d.id, local)
    if (known !== undefined) throw known
    const problem =
      (await verifyAtomicTx(
        d,
        this.#env(at.baseFee, (id) => at.block.ancestorsSpent.has(id)),
      )) ?? (await transferAtomic(d, this.opts.ctx.avaxAssetId, overlay(at.state)))
    if (problem !== undefined) throw new FirnError(problem)
    this.mempool.add(pooled(d, gas, effectiveGasPrice(d.tx.unsigned, this.opts.ctx.avaxAssetId)), local)
  }

  /** The extData part of a block being built on `block` (the ids it took are then `issued`). */
  builder(block: AtomicBlockEnv): ExtendBlock {
    return async (run) => {
      const spent = new Set(block.ancestorsSpent)
      const taken: DecodedTx[] = []
      let gas = 0n
      let bytes = 0
      const room = (run.env.capacity ?? run.env.gasLimit) - run.used
      for (const c of this.mempool.candidates()) {
        if (block.ancestorTxs.has(c.d.id)) continue
        if (gas + c.gas > room || bytes + c.d.signedBytes.length > ATOMIC_TXS_SIZE_TARGET) continue
        const problem =
          (await verifyAtomicTx(
            c.d,
            this.#env(run.env.baseFee, (id) => spent.has(id)),
          )) ?? (await transferAtomic(c.d, this.opts.ctx.avaxAssetId, run.sm))
        if (problem !== undefined) {
          this.opts.warn?.('atomic tx dropped', { txID: idCb58(c.d.id), reason: problem })
          this.mempool.discard(c.d.id)
          continue
        }
        for (const id of c.inputIds) spent.add(id)
        taken.push(c.d)
        gas += c.gas
        bytes += c.d.signedBytes.length
      }
      if (taken.length === 0) return NO_EXTRAS
      this.mempool.markIssued(taken.map((d) => d.id))
      return { extData: encodeTxBatch(taken.map((d) => d.tx)), extDataGasUsed: gas, atomic: taken }
    }
  }

  /** The check of a received block's extData: every tx valid on its parent's state, applied in order. */
  verifier(block: AtomicBlockEnv): ExtendBlock {
    return async (run: BlockRun, extData?: Uint8Array): Promise<BlockExtras> => {
      if (extData === undefined || extData.length === 0) return NO_EXTRAS
      let txs: DecodedTx[]
      try {
        txs = decodeTxBatch(extData).map(decodedOf)
      } catch (err) {
        throw new BlockError((err as Error).message)
      }
      const spent = new Set(block.ancestorsSpent)
      let gas = 0n
      for (const d of txs) {
        const problem =
          (await verifyAtomicTx(
            d,
            this.#env(run.env.baseFee, (id) => spent.has(id)),
          )) ?? (await transferAtomic(d, this.opts.ctx.avaxAssetId, run.sm))
        if (problem !== undefined) throw new BlockError(`invalid atomic tx ${idCb58(d.id)}: ${problem}`)
        for (const id of inputIdsOf(d.tx.unsigned)) spent.add(id)
        gas += gasUsed(d.tx.unsigned, true, d.unsignedBytes.length)
      }
      return { extData, extDataGasUsed: gas, atomic: txs }
    }
  }

  /** An accepted block's shared-memory requests (by peer chain, CB58) and index writes. */
  acceptance(block: ExecutedBlock): { requests: Record<string, Requests>; writes: ExtraWrite[] } {
    const requests: Record<string, { removeRequests: Uint8Array[]; putRequests: Element[] }> = {}
    const peer = (chain: Hex) => {
      const key = idToString(fromHex(chain, 32, 'chain ID'))
      requests[key] ??= { removeRequests: [], putRequests: [] }
      return requests[key]
    }
    const writes: ExtraWrite[] = []
    const height = new Uint8Array(8)
    new DataView(height.buffer).setBigUint64(0, block.header.number)
    for (const d of block.atomic) {
      const u = d.tx.unsigned
      if (u.type === 'import') {
        const r = peer(u.sourceChain)
        for (const i of u.importedInputs) r.removeRequests.push(fromHex(utxoIdOf(i.txId, i.outputIndex), 32, 'UTXO'))
      } else {
        const r = peer(u.destinationChain)
        u.exportedOutputs.forEach((out, outputIndex) => {
          r.putRequests.push({
            key: fromHex(utxoIdOf(d.id, outputIndex), 32, 'UTXO ID'),
            value: encodeUtxo({ txId: d.id, outputIndex, assetId: out.assetId, output: out.output }),
            traits: out.output.addresses.map((a) => fromHex(a, 20, 'address')),
          })
        })
      }
      const value = new Uint8Array(8 + d.signedBytes.length)
      value.set(height)
      value.set(d.signedBytes, 8)
      writes.push({ sublevel: this.opts.index, key: fromHex(d.id, 32, 'tx ID'), value })
    }
    return { requests, writes }
  }

  /**
   * Accepts `block` through `write` (the chain's accept batch): its writes with the shared-memory changes and the
   * index, inside shared memory's lane; then its txs leave the mempool.
   */
  async accept(
    block: ExecutedBlock,
    extra: readonly ExtraWrite[],
    write: (writes: readonly ExtraWrite[]) => Promise<void>,
  ): Promise<void> {
    const { requests, writes } = this.acceptance(block)
    const { memory } = this.opts
    await memory.exclusive(async () => {
      const ops: SharedMemoryOp[] = []
      await memory.apply(requests, ops)
      await write([...extra, ...writes, ...ops])
    })
    this.accepted(block)
  }

  /** The block was accepted: its txs leave the mempool with every tx that spends their inputs. */
  accepted(block: ExecutedBlock): void {
    if (block.atomic.length === 0) return
    this.mempool.accepted(block.atomic.map((d) => pooled(d, 0n, 0n)))
  }

  /** The block was rejected: the txs this node had issued in it wait again. */
  rejected(block: ExecutedBlock): void {
    this.mempool.reissue(block.atomic.map((d) => d.id))
  }

  async #indexed(id: Hex): Promise<{ height: bigint; bytes: Uint8Array } | undefined> {
    const raw: Uint8Array | undefined = await this.opts.index.get(fromHex(id, 32, 'tx ID'))
    if (raw === undefined) return undefined
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength)
    return { height: view.getBigUint64(0), bytes: new Uint8Array(raw.subarray(8)) }
  }

  /** `getAtomicTxStatus` as the reference answers it (`processing`: the node's processing blocks). */
  async status(id: Hex, tipHeight: bigint, processing: Iterable<ExecutedBlock>): Promise<AtomicStatus> {
    // the mempool and the processing blocks are read BEFORE the index: an accept that lands while the index read
    // waits writes the index first and then takes the tx out of the mempool, so a tx read as pooled or processing
    // here is either still so or in the index by then (read the other way round it was briefly `Unknown`)
    const pooledStatus = this.mempool.status(id)
    const inProcessing = [...processing].some((b) => b.atomic.some((d) => d.id === id))
    const indexed = await this.#indexed(id)
    if (indexed !== undefined) {
      return indexed.height <= tipHeight
        ? { status: 'Accepted', blockHeight: indexed.height }
        : { status: 'Processing' }
    }
    if (pooledStatus === 'pending' || pooledStatus === 'issued' || inProcessing) return { status: 'Processing' }
    if (pooledStatus === 'discarded') return { status: 'Dropped' }
    return { status: 'Unknown' }
  }

  /** `getAtomicTx`: the signed bytes, with the height once accepted; undefined when the node never saw it. */
  async find(id: Hex, processing: Iterable<ExecutedBlock>): Promise<FoundAtomicTx | undefined> {
    const indexed = await this.#indexed(id)
    if (indexed !== undefined) return { bytes: indexed.bytes, blockHeight: indexed.height }
    const pooledTx = this.mempool.get(id)
    if (pooledTx !== undefined) return { bytes: pooledTx.d.signedBytes }
    for (const b of processing) {
      const d = b.atomic.find((x) => x.id === id)
      if (d !== undefined) return { bytes: d.signedBytes }
    }
    return undefined
  }

  close(): void {
    this.mempool.close()
  }
}

/** The ancestors' spent inputs and txs, from the processing blocks between `parentHash` and the last accepted one. */
export function atomicBlockEnv(pending: ReadonlyMap<string, ExecutedBlock>, parentHash: Uint8Array): AtomicBlockEnv {
  const ancestorsSpent = new Set<Hex>()
  const ancestorTxs = new Set<Hex>()
  for (let b = pending.get(bytesToHex(parentHash)); b !== undefined; b = pending.get(bytesToHex(b.header.parentHash))) {
    for (const d of b.atomic) {
      ancestorTxs.add(d.id)
      for (const id of inputIdsOf(d.tx.unsigned)) ancestorsSpent.add(id)
    }
  }
  return { ancestorsSpent, ancestorTxs }
}

/** A state whose writes stay in memory (the mempool's check must not change the preferred state). */
function overlay(state: AtomicState): AtomicState {
  const written = new Map<string, Parameters<AtomicState['putAccount']>[1]>()
  return {
    getAccount: async (address) => {
      const key = address.toString()
      return written.has(key) ? written.get(key) : state.getAccount(address)
    },
    putAccount: async (address, account) => {
      written.set(address.toString(), account)
    },
  }
}
