/**
 * The single writer of chain state. Build, verify, accept and reject are separate operations, run one at a
 * time in arrival order. A built or verified block keeps its new trie nodes in memory (its NodeLayer, over its
 * parent's layer while the parent is not accepted); accept writes them with the block, receipts and indexes in
 * one level batch; reject drops them. Reads never go through here: they open views at a root.
 */
import type { Common } from '@ethereumjs/common'
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm'
import { createTxFromBlockBodyData, type TypedTransaction } from '@ethereumjs/tx'
import { bytesToHex, equalsBytes } from '@ethereumjs/util'
import type { DecodedTx } from '../atomic/ids.js'
import { type AvaHeader, decodeBlock, encodeBlock, extDataHashOf, headerHash } from '../header.js'
import { NodeLayer } from '../state/node-layer.js'
import { pruneState } from '../state/prune.js'
import { AvaStateManager } from '../state/state-manager.js'
import type { ChainStore, ExtraWrite } from '../store/chain-store.js'
import type { StoredReceipt } from '../store/receipt.js'
import { assembleHeader, type BlockExtData, type BlockFields, envFor, envOfHeader } from './block-fields.js'
import { type BlockEnv, BlockRun, createAvaVM, type RunResult } from './block-run.js'
import { fillBlock, type TxSource } from './builder.js'

export interface ExecutedBlock {
  hash: Uint8Array
  header: AvaHeader
  rlp: Uint8Array
  txs: TypedTransaction[]
  receipts: StoredReceipt[]
  /** the atomic txs of its extData, applied after its EVM txs */
  atomic: readonly DecodedTx[]
  layer: NodeLayer
}

/** What a block's extData holds, applied to the run's state after the EVM txs. */
export interface BlockExtras extends BlockExtData {
  atomic: readonly DecodedTx[]
}

/**
 * The block's extData part, run after its EVM txs on the same state: when building, it picks what goes in (and
 * gets the `extData` of nothing); when verifying, it checks and applies the block's `extData` (throwing the reason).
 */
export type ExtendBlock = (run: BlockRun, extData?: Uint8Array) => Promise<BlockExtras>

export const NO_EXTRAS: BlockExtras = { extData: new Uint8Array(0), extDataGasUsed: 0n, atomic: [] }

export type Pruning = { mode: 'archive' } | { mode: 'pruning'; stateHistory: number }

export interface ExecutorOptions {
  common: Common
  store: ChainStore
  pruning: Pruning
  /** last accepted block */
  tip: { hash: Uint8Array; header: AvaHeader }
}

export class BlockError extends Error {}

export class Executor {
  readonly pending = new Map<string, ExecutedBlock>()
  tip: { hash: Uint8Array; header: AvaHeader }
  private queue: Promise<unknown> = Promise.resolve()
  /** trie nodes accepted since the last prune, and how many the last prune kept (pruning's amortisation) */
  #written = 0
  #keptAtPrune = 0

  constructor(private readonly opts: ExecutorOptions) {
    this.tip = opts.tip
  }

  /** Run `fn` after every operation queued before it (the writer's one lane). */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn)
    this.queue = next.catch(() => undefined)
    return next
  }

  private parent(hash: Uint8Array): { header: AvaHeader; layer: NodeLayer | undefined } {
    if (equalsBytes(hash, this.tip.hash)) return { header: this.tip.header, layer: undefined }
    const p = this.pending.get(bytesToHex(hash))
    if (p === undefined) throw new BlockError(`unknown ancestor ${bytesToHex(hash)}`)
    return { header: p.header, layer: p.layer }
  }

  /** BLOCKHASH: ancestors among pending blocks, then the canonical index. */
  private blockchain(parentHash: Uint8Array): EVMMockBlockchainInterface {
    const self: EVMMockBlockchainInterface = {
      getBlock: async (n: number) => {
        let hash = parentHash
        for (let p = this.pending.get(bytesToHex(hash)); p !== undefined; p = this.pending.get(bytesToHex(hash))) {
          if (p.header.number === BigInt(n)) return { hash: () => p!.hash }
          hash = p.header.parentHash
        }
        const found = await this.opts.store.canonicalHash(BigInt(n))
        return { hash: () => found ?? new Uint8Array(32) }
      },
      putBlock: async () => {},
      shallowCopy: () => self,
    }
    return self
  }

  private async run(
    parentHash: Uint8Array,
    env: BlockEnv,
    fill: (run: BlockRun) => Promise<void>,
  ): Promise<{ result: RunResult; layer: NodeLayer; parent: AvaHeader }> {
    const parent = this.parent(parentHash)
    const layer = new NodeLayer(this.opts.store.nodes, parent.layer)
    const sm = new AvaStateManager(this.opts.common, layer, parent.header.stateRoot)
    const vm = await createAvaVM(this.opts.common, sm, this.blockchain(parentHash))
    const run = new BlockRun(vm, sm, env)
    await fill(run)
    const result = await run.finish()
    layer.writable = false
    return { result, layer, parent: parent.header }
  }

  /** Build a block on `parentHash` from `source` (then `extend`'s extData); it becomes pending (verified). */
  build(parentHash: Uint8Array, fields: BlockFields, source: TxSource, extend?: ExtendBlock): Promise<ExecutedBlock> {
    return this.serial(async () => {
      const parentHeader = this.parent(parentHash).header
      const env = envFor(parentHeader, fields)
      let extras = NO_EXTRAS
      const { result, layer } = await this.run(parentHash, env, async (run) => {
        await fillBlock(run, source, fields.capacity ?? fields.gasLimit)
        if (extend !== undefined) extras = await extend(run)
      })
      const header = assembleHeader(parentHeader, fields, result, extras)
      const rlp = encodeBlock(
        header,
        result.txs.map((tx) => tx.serialize()),
        extras.extData,
      )
      return this.remember({
        hash: headerHash(header),
        header,
        rlp,
        txs: result.txs,
        receipts: result.receipts,
        atomic: extras.atomic,
        layer,
      })
    })
  }

  /** Re-execute a received block on its parent and compare; on success it becomes pending. */
  verify(rlp: Uint8Array, capacity?: bigint, extend?: ExtendBlock): Promise<ExecutedBlock> {
    return this.serial(async () => {
      const { header, txs: rawTxs, extData } = decodeBlock(rlp)
      const hash = headerHash(header)
      const known = this.pending.get(bytesToHex(hash))
      if (known !== undefined) return known
      const parent = this.parent(header.parentHash).header
      if (header.number !== parent.number + 1n) throw new BlockError('invalid block number')
      const want = extDataHashOf(extData)
      if (!equalsBytes(header.extDataHash, want)) {
        throw new BlockError(
          `extra data hash mismatch: have ${bytesToHex(header.extDataHash)}, want ${bytesToHex(want)}`,
        )
      }
      const txs = rawTxs.map((raw: Uint8Array) => createTxFromBlockBodyData(raw, { common: this.opts.common }))
      let extras = NO_EXTRAS
      const { result, layer } = await this.run(header.parentHash, envOfHeader(header, capacity), async (run) => {
        for (const [i, tx] of txs.entries()) {
          const refusal = await run.add(tx)
          if (refusal?.kind === 'no-room') {
            throw new BlockError(
              `invalid gas used: have ${run.used + tx.gasLimit}, capacity ${capacity ?? header.gasLimit}`,
            )
          }
          if (refusal !== undefined)
            throw new BlockError(`could not apply tx ${i} [${bytesToHex(tx.hash())}]: ${refusal.reason}`)
        }
        if (extend !== undefined) extras = await extend(run, extData)
        else if (extData.length > 0) throw new BlockError('this chain takes no atomic transactions')
      })
      if ((header.extDataGasUsed ?? 0n) !== extras.extDataGasUsed) {
        throw new BlockError(
          `invalid extDataGasUsed: have ${header.extDataGasUsed ?? 0n}, want ${extras.extDataGasUsed}`,
        )
      }
      if (txs.length === 0 && extras.atomic.length === 0) throw new BlockError('empty block')
      const mismatch = compare(header, result)
      if (mismatch !== undefined) throw new BlockError(mismatch)
      return this.remember({
        hash,
        header,
        rlp,
        txs: result.txs,
        receipts: result.receipts,
        atomic: extras.atomic,
        layer,
      })
    })
  }

  private remember(block: ExecutedBlock): ExecutedBlock {
    const key = bytesToHex(block.hash)
    const known = this.pending.get(key)
    if (known !== undefined) return known
    this.pending.set(key, block)
    return block
  }

  /** Persist a pending child of the last accepted block in one batch (with `extra`); returns it. */
  accept(hash: Uint8Array, extra: readonly ExtraWrite[] = []): Promise<ExecutedBlock> {
    return this.serial(async () => {
      const key = bytesToHex(hash)
      const block = this.pending.get(key)
      if (block === undefined) throw new BlockError(`unknown block ${key}`)
      if (!equalsBytes(block.header.parentHash, this.tip.hash))
        throw new BlockError('parent is not the last accepted block')
      await this.opts.store.accept(
        {
          hash,
          number: block.header.number,
          rlp: block.rlp,
          bloom: block.header.bloom,
          txHashes: block.txs.map((tx) => tx.hash()),
          receipts: block.receipts,
          stateRoot: block.header.stateRoot,
        },
        block.layer,
        extra,
      )
      // the nodes are in the database now; children read them there
      this.#written += block.layer.writes.size
      block.layer.writes.clear()
      block.layer.parent = undefined
      this.pending.delete(key)
      this.tip = { hash, header: block.header }
      const { pruning } = this.opts
      // every state-history blocks, once as many nodes were accepted since the last prune as it kept: the mark walks
      // the whole kept state, so pruning after a fixed number of blocks cost the same for small blocks as for large
      // ones; this way its cost per accepted node is bounded, and the store holds at most about as many dead nodes
      // as live ones (docs/performance.md, "Fourth round")
      if (
        pruning.mode === 'pruning' &&
        block.header.number % BigInt(pruning.stateHistory) === 0n &&
        this.#written >= this.#keptAtPrune
      ) {
        const { kept } = await pruneState(this.opts.store.nodes, await this.recentRoots(pruning.stateHistory))
        this.#written = 0
        this.#keptAtPrune = kept
      }
      return block
    })
  }

  /** Drop a pending block and everything built on it. */
  reject(hash: Uint8Array): Promise<void> {
    return this.serial(async () => {
      const drop: string[] = [bytesToHex(hash)]
      while (drop.length > 0) {
        const key = drop.pop()!
        this.pending.delete(key)
        for (const [k, b] of this.pending) if (bytesToHex(b.header.parentHash) === key) drop.push(k)
      }
    })
  }

  private async recentRoots(count: number): Promise<Uint8Array[]> {
    const roots: Uint8Array[] = [this.tip.header.stateRoot]
    for (let n = this.tip.header.number - 1n; n >= 0n && roots.length < count; n--) {
      const hash = await this.opts.store.canonicalHash(n)
      const rlp = hash === undefined ? undefined : await this.opts.store.getBlock(hash)
      if (rlp === undefined) break
      roots.push(decodeBlock(rlp).header.stateRoot)
    }
    return roots
  }
}

function compare(header: AvaHeader, run: RunResult): string | undefined {
  if (header.gasUsed !== run.gasUsed) return `invalid gas used (remote: ${header.gasUsed} local: ${run.gasUsed})`
  if (!equalsBytes(header.txRoot, run.txRoot)) return 'transaction root hash mismatch'
  if (!equalsBytes(header.receiptRoot, run.receiptRoot)) return 'invalid receipt root hash'
  if (!equalsBytes(header.bloom, run.bloom)) return 'invalid bloom'
  if (!equalsBytes(header.stateRoot, run.stateRoot)) {
    return `invalid merkle root (remote: ${bytesToHex(header.stateRoot)} local: ${bytesToHex(run.stateRoot)})`
  }
  return undefined
}
