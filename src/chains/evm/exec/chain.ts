/**
 * EvmChainCore: the C chain's execution and storage core. One Executor writes; everything else reads the
 * store or a state view at a root. Accepted blocks (with receipts and logs) are published on `accepted$`.
 */
import type { Common } from '@ethereumjs/common'
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm'
import { type Account, type Address, bytesToHex, equalsBytes } from '@ethereumjs/util'
import { Subject } from 'rxjs'
import { remember } from '../../../runtime/bounded-map.js'
import { ChainStoreError } from '../../store-error.js'
import { type AvaHeader, encodeBlock, headerHash } from '../header.js'
import { ACCOUNT_READS, accountKey, accountReads } from '../state/account-reads.js'
import { NodeLayer } from '../state/node-layer.js'
import { AvaStateManager } from '../state/state-manager.js'
import { openStateView } from '../state/view.js'
import { type ChainDb, ChainStore, type ExtraWrite, type TxLocation } from '../store/chain-store.js'
import { checkChainStore } from '../store/integrity.js'
import { type FoundLog, getLogs, type LogFilter } from '../store/logs.js'
import type { StoredReceipt } from '../store/receipt.js'
import type { BlockFields } from './block-fields.js'
import { type BlockEnv, createAvaVM, executionBlock } from './block-run.js'
import type { TxSource } from './builder.js'
import { type CallRequest, type CallResult, estimateGas, ethCall } from './call.js'
import { type ExecutedBlock, Executor, type ExtendBlock, type Pruning } from './executor.js'
import { type GenesisAlloc, writeGenesisAlloc } from './genesis-state.js'

export interface AcceptedEvent {
  hash: Uint8Array
  header: AvaHeader
  /** serialized txs */
  txs: Uint8Array[]
  receipts: StoredReceipt[]
}

export interface ChainCoreOptions {
  common: Common
  /** default: pruning with the last 32 roots */
  pruning?: Pruning
}

export interface Genesis {
  /** stateRoot is computed from `alloc` (any value given is replaced) */
  header: AvaHeader
  alloc: GenesisAlloc
}

export class EvmChainCore {
  readonly accepted$ = new Subject<AcceptedEvent>()

  private constructor(
    readonly common: Common,
    readonly store: ChainStore,
    readonly executor: Executor,
  ) {}

  /** Open the chain in `db` (a sublevel of the node's database); a fresh one starts from `genesis`. */
  static async open(db: ChainDb, genesis: Genesis, opts: ChainCoreOptions): Promise<EvmChainCore> {
    const store = new ChainStore(db)
    let hash = await store.lastAcceptedHash()
    let header: AvaHeader
    if (hash === undefined) {
      if (await store.hasBlocks())
        throw new ChainStoreError('the last accepted block pointer is missing while the chain holds blocks')
      const layer = new NodeLayer(store.nodes)
      const stateRoot = await writeGenesisAlloc(new AvaStateManager(opts.common, layer, undefined), genesis.alloc)
      header = { ...genesis.header, stateRoot }
      hash = headerHash(header)
      const rlp = encodeBlock(header, [], new Uint8Array(0))
      await store.accept(
        { hash, number: header.number, rlp, bloom: header.bloom, txHashes: [], receipts: [], stateRoot },
        layer,
      )
    } else {
      // the tip, its recent ancestors, genesis and the tip's state must be there (store/integrity.ts)
      header = await checkChainStore(store, hash)
    }
    const pruning = opts.pruning ?? { mode: 'pruning', stateHistory: 32 }
    const executor = new Executor({ common: opts.common, store, pruning, tip: { hash, header } })
    return new EvmChainCore(opts.common, store, executor)
  }

  lastAccepted(): { hash: Uint8Array; header: AvaHeader } {
    return this.executor.tip
  }

  async getBlockByHash(hash: Uint8Array): Promise<Uint8Array | undefined> {
    return this.executor.pending.get(bytesToHex(hash))?.rlp ?? (await this.store.getBlock(hash))
  }

  async getBlockByNumber(number: bigint): Promise<Uint8Array | undefined> {
    const hash = await this.store.canonicalHash(number)
    return hash === undefined ? undefined : this.store.getBlock(hash)
  }

  getReceipts(hash: Uint8Array): Promise<StoredReceipt[] | undefined> {
    return this.store.getReceipts(hash)
  }

  getTxLocation(txHash: Uint8Array): Promise<TxLocation | undefined> {
    return this.store.getTxLocation(txHash)
  }

  getLogs(filter: LogFilter, limit: number): Promise<FoundLog[]> {
    return getLogs(this.store, filter, limit)
  }

  /** The account at `root` (undefined: none), from the chain's account reads when it was read before. */
  async accountAt(root: Uint8Array, address: Address): Promise<Account | undefined> {
    const hit = this.accountRead(root, address)
    if (hit !== undefined) return hit ?? undefined
    const account = await (await this.stateAt(root)).getAccount(address)
    remember(accountReads(this.store.nodes), accountKey(root, address), account ?? null, ACCOUNT_READS)
    return account
  }

  /** The account at `root` when it was read before (null: no account there), without a promise; else undefined. */
  accountRead(root: Uint8Array, address: Address): Account | null | undefined {
    return accountReads(this.store.nodes).get(accountKey(root, address))
  }

  /** A read-only view at `root` (an accepted root still kept, or a pending block's). */
  stateAt(root: Uint8Array): Promise<AvaStateManager> {
    for (const p of this.executor.pending.values()) {
      if (equalsBytes(p.header.stateRoot, root)) return openStateView(this.common, this.store.nodes, root, p.layer)
    }
    return openStateView(this.common, this.store.nodes, root)
  }

  buildBlock(
    parentHash: Uint8Array,
    fields: BlockFields,
    source: TxSource,
    extend?: ExtendBlock,
  ): Promise<ExecutedBlock> {
    return this.executor.build(parentHash, fields, source, extend)
  }

  verifyBlock(rlp: Uint8Array, capacity?: bigint, extend?: ExtendBlock): Promise<ExecutedBlock> {
    return this.executor.verify(rlp, capacity, extend)
  }

  /** Makes a processing block final; `extra` puts go in the same batch. */
  async acceptBlock(hash: Uint8Array, extra: readonly ExtraWrite[] = []): Promise<void> {
    const block = await this.executor.accept(hash, extra)
    this.accepted$.next({
      hash: block.hash,
      header: block.header,
      txs: block.txs.map((tx) => tx.serialize()),
      receipts: block.receipts,
    })
  }

  rejectBlock(hash: Uint8Array): Promise<void> {
    return this.executor.reject(hash)
  }

  /** eth_call on the state after `header` (in a block on top of it, with the same base fee and gas limit). */
  call(header: AvaHeader, req: CallRequest, gasCap: bigint): Promise<CallResult> {
    return ethCall(this.callContext(header), req, gasCap)
  }

  estimateGas(header: AvaHeader, req: CallRequest, gasCap: bigint): Promise<bigint> {
    return estimateGas(this.callContext(header), req, gasCap)
  }

  private callContext(header: AvaHeader) {
    const env: BlockEnv = {
      parentHash: headerHash(header),
      number: header.number + 1n,
      time: header.time,
      gasLimit: header.gasLimit,
      baseFee: header.baseFee ?? 0n,
    }
    const blockchain = this.canonicalHashes()
    return async () => {
      const view = await this.stateAt(header.stateRoot)
      const vm = await createAvaVM(this.common, view, blockchain)
      return { vm, block: executionBlock(vm.common, env) }
    }
  }

  /** BLOCKHASH from the canonical index (what calls see; a block's own run sees its processing ancestors too) */
  canonicalHashes(): EVMMockBlockchainInterface {
    const store = this.store
    const self: EVMMockBlockchainInterface = {
      getBlock: async (n: number) => {
        const hash = await store.canonicalHash(BigInt(n))
        return { hash: () => hash ?? new Uint8Array(32) }
      },
      putBlock: async () => {},
      shallowCopy: () => self,
    }
    return self
  }

  close(): void {
    this.accepted$.complete()
  }
}
