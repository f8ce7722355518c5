/**
 * The C chain VM: the execution core, the tx pool and the chain rules put together, in the shape consensus
 * drives (build, verify, accept, reject, set preference) and the JSON-RPC namespaces read (`EthBackend`).
 * Blocks are built on the preferred block with the ACP-176 fee state and ACP-226 minimum delay of the rules;
 * received blocks are checked against their parent's rules before they are executed.
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import { Address, bytesToHex, equalsBytes } from '@ethereumjs/util'
import type { Observable } from 'rxjs'
import type { EthBackend, ResolvedBlock } from './api/backend.js'
import type { BlockSelector } from './api/hexutil.js'
import { type AtomicBackend, atomicBlockEnv } from './atomic/backend.js'
import type { DecodedTx } from './atomic/ids.js'
import type { EvmConfig } from './config.js'
import type { TxSource } from './exec/builder.js'
import { type AcceptedEvent, EvmChainCore } from './exec/chain.js'
import { createEvmCommon } from './exec/common.js'
import type { ExecutedBlock } from './exec/executor.js'
import { presetAlloc } from './exec/genesis-state.js'
import { type AvaHeader, decodeBlock } from './header.js'
import { maxCapacity, target } from './rules/acp176.js'
import { minDelayMs } from './rules/acp226.js'
import { childHeaderFields, feeStateBefore, headerTimeMs, verifyChildHeader } from './rules/child-header.js'
import { genesisHeader } from './rules/genesis.js'
import type { EvmPreset } from './rules/presets.js'
import type { ChainDb, ExtraWrite } from './store/chain-store.js'
import { TxPool } from './txpool/pool.js'

export interface EvmVmOptions {
  db: ChainDb
  preset: EvmPreset
  config: EvmConfig
  clientVersion: string
  now?: () => number
  /** the chain's atomic txs (where the node shares memory with it); built from the opened core */
  atomic?: (core: EvmChainCore, now: () => number) => AtomicBackend
}

/** `cannot query unfinalized data` (coreth), -32000. */
export const UNFINALIZED = 'cannot query unfinalized data'
/** Smallest gas a tx needs: below this much capacity a block would be empty. */
const MIN_TX_GAS = 21_000n

export class EvmVm implements EthBackend {
  readonly chainId: bigint
  readonly accepted$: Observable<AcceptedEvent>
  readonly pendingTx$: Observable<string>
  readonly now: () => number
  /** the block new blocks are built on (consensus moves it; a lone validator builds on what it accepts) */
  #preferred: Uint8Array
  /** the last accepted block's RLP */
  #tipRlp: Uint8Array
  /** the tail of the admission lane (submitTransaction) */
  #admission: Promise<void> = Promise.resolve()

  private constructor(
    readonly core: EvmChainCore,
    readonly pool: TxPool,
    readonly atomic: AtomicBackend | undefined,
    readonly preset: EvmPreset,
    readonly config: EvmConfig,
    readonly clientVersion: string,
    now: () => number,
    tipRlp: Uint8Array,
  ) {
    this.#tipRlp = tipRlp
    this.chainId = preset.chainId
    this.accepted$ = core.accepted$.asObservable()
    this.pendingTx$ = pool.newPendingHashes
    this.now = now
    this.#preferred = core.lastAccepted().hash
  }

  static async open(opts: EvmVmOptions): Promise<EvmVm> {
    const { preset, config } = opts
    const now = opts.now ?? Date.now
    const common = createEvmCommon(preset.chainId)
    const header = genesisHeader(preset, new Uint8Array(32))
    const pruning = config.pruningEnabled
      ? { mode: 'pruning' as const, stateHistory: config.stateHistory }
      : { mode: 'archive' as const }
    const core = await EvmChainCore.open(
      opts.db,
      { header, alloc: presetAlloc(preset.genesis.alloc) },
      { common, pruning },
    )
    let vm: EvmVm | undefined
    const pool = new TxPool({
      chainId: preset.chainId,
      readAccount: accountReader(core, core.lastAccepted().header.stateRoot),
      baseFee: () => vm?.estimateNextBaseFee(),
      gasLimit: () => core.lastAccepted().header.gasLimit,
      now,
      config: {
        priceLimit: BigInt(config.txPoolPriceLimit),
        priceBump: BigInt(config.txPoolPriceBump),
        accountSlots: config.txPoolAccountSlots,
        globalSlots: config.txPoolGlobalSlots,
        accountQueue: config.txPoolAccountQueue,
        globalQueue: config.txPoolGlobalQueue,
        lifetimeMs: config.txPoolLifetimeMs,
        localsEnabled: config.localTxsEnabled,
      },
    })
    const tipRlp = await core.getBlockByHash(core.lastAccepted().hash)
    if (tipRlp === undefined) throw new Error('last accepted block is missing')
    vm = new EvmVm(core, pool, opts.atomic?.(core, now), preset, config, opts.clientVersion, now, tipRlp)
    return vm
  }

  // ---- EthBackend: reads -------------------------------------------------------------------------------------

  lastAccepted(): ResolvedBlock {
    const { hash, header } = this.core.lastAccepted()
    return { hash, header, rlp: this.#tipRlp, accepted: true }
  }

  /** The block a tag names when it is at hand (every tag but `earliest`), without a promise; else undefined. */
  blockNow(sel: BlockSelector): ResolvedBlock | undefined {
    if (sel.kind !== 'tag' || sel.tag === 'earliest') return undefined
    return sel.tag === 'latest' || sel.tag === 'pending' ? this.latest() : this.lastAccepted()
  }

  latest(): ResolvedBlock {
    if (!this.config.allowUnfinalizedQueries) return this.lastAccepted()
    const pending = this.core.executor.pending.get(bytesToHex(this.#preferred))
    if (pending === undefined) return this.lastAccepted()
    return { hash: pending.hash, header: pending.header, rlp: pending.rlp, accepted: false }
  }

  async resolveBlock(sel: BlockSelector): Promise<ResolvedBlock | null> {
    const now = this.blockNow(sel)
    if (now !== undefined) return now
    if (sel.kind === 'tag') return this.#byNumber(0n)
    if (sel.kind === 'number') {
      const tip = this.core.lastAccepted().header.number
      if (sel.number <= tip) return this.#byNumber(sel.number)
      if (!this.config.allowUnfinalizedQueries) throw new Error(UNFINALIZED)
      for (const b of this.#preferredChain()) if (b.header.number === sel.number) return b
      return null
    }
    const key = bytesToHex(sel.hash)
    const pending = this.core.executor.pending.get(key)
    if (pending !== undefined) {
      if (!this.config.allowUnfinalizedQueries) throw new Error(UNFINALIZED)
      return { hash: pending.hash, header: pending.header, rlp: pending.rlp, accepted: false }
    }
    const rlp = await this.core.store.getBlock(sel.hash)
    if (rlp === undefined) return null
    const { header } = decodeBlock(rlp)
    const canonical = await this.core.store.canonicalHash(header.number)
    if (canonical === undefined || !equalsBytes(canonical, sel.hash)) return null
    return { hash: sel.hash, header, rlp, accepted: true }
  }

  estimateNextBaseFee(): bigint {
    return this.estimateBaseFeeAfter(this.latest().header)
  }

  /** The base fee of a child of `parent` built now (eth_feeHistory's next base fee after the head). */
  estimateBaseFeeAfter(parent: AvaHeader): bigint {
    const nowMs = BigInt(this.now())
    const parentMs = headerTimeMs(parent)
    try {
      return childHeaderFields(parent, this.preset, nowMs > parentMs ? nowMs : parentMs).baseFee
    } catch {
      return parent.baseFee ?? 0n
    }
  }

  /**
   * Admission runs one tx per event-loop turn (sender recovery is ~1.3 ms of CPU): with many sends in flight,
   * cheap requests that arrive meanwhile (eth_blockNumber, receipts) are answered between txs, not after all of them.
   */
  submitTransaction(tx: TypedTransaction): Promise<string> {
    const turn = this.#admission.then(() => new Promise<void>((resolve) => setImmediate(resolve)))
    const added = turn.then(() => this.pool.add(tx, { local: true }))
    this.#admission = added.then(
      () => undefined,
      () => undefined,
    )
    return added
  }

  // ---- consensus operations ----------------------------------------------------------------------------------

  get preferred(): Uint8Array {
    return this.#preferred
  }

  setPreference(hash: Uint8Array): void {
    this.#preferred = hash
  }

  /** A processing block or the last accepted one, by hash. */
  #known(hash: Uint8Array): { hash: Uint8Array; header: AvaHeader } | undefined {
    const pending = this.core.executor.pending.get(bytesToHex(hash))
    if (pending !== undefined) return pending
    const tip = this.core.lastAccepted()
    return equalsBytes(tip.hash, hash) ? tip : undefined
  }

  /** The header blocks are built on now: the preferred block. */
  #parent(): { hash: Uint8Array; header: AvaHeader } {
    const pending = this.core.executor.pending.get(bytesToHex(this.#preferred))
    return pending ?? this.core.lastAccepted()
  }

  /**
   * When a child of the preferred block (or of `parentHash`, a processing or the last accepted block) may be built
   * (ms): after the parent's ACP-226 minimum delay, and once the ACP-176 capacity has refilled enough for the
   * smallest tx. An unknown parent: now.
   */
  nextBuildTime(parentHash?: Uint8Array): number {
    const parent = parentHash === undefined ? this.#parent().header : this.#known(parentHash)?.header
    if (parent === undefined) return this.now()
    const parentMs = headerTimeMs(parent)
    const earliest = parentMs + minDelayMs(parent.minDelayExcess ?? 0n)
    const nowMs = BigInt(this.now())
    const at = nowMs > earliest ? nowMs : earliest
    const state = feeStateBefore(parent, this.preset, at)
    if (state.capacity >= MIN_TX_GAS || maxCapacity(state) < MIN_TX_GAS) return Number(at)
    // capacity refills at 2 x target gas per second
    const perSecond = 2n * target(state)
    const waitMs = ((MIN_TX_GAS - state.capacity) * 1000n + perSecond - 1n) / perSecond
    return Number(at + waitMs)
  }

  /** Build a block on the preferred block from the pool's executable txs; it becomes processing (verified). */
  async buildBlock(): Promise<ExecutedBlock> {
    const parent = this.#parent()
    const parentMs = headerTimeMs(parent.header)
    const nowMs = BigInt(this.now())
    const fields = childHeaderFields(parent.header, this.preset, nowMs > parentMs ? nowMs : parentMs, {
      ...(this.config.gasTarget === null ? {} : { gasTarget: BigInt(this.config.gasTarget) }),
      ...(this.config.minDelayTarget === null ? {} : { minDelayTargetMs: BigInt(this.config.minDelayTarget) }),
    })
    return this.core.buildBlock(
      parent.hash,
      {
        time: fields.time,
        gasLimit: fields.gasLimit,
        baseFee: fields.baseFee,
        extra: (gasUsed, extDataGasUsed) => fields.finishExtra(gasUsed, extDataGasUsed),
        capacity: fields.capacity,
        timeMilliseconds: fields.timeMilliseconds,
        minDelayExcess: fields.minDelayExcess,
      },
      this.#withoutProcessed(parent.hash, this.pool.orderedSource(fields.baseFee)),
      this.atomic?.builder(atomicBlockEnv(this.core.executor.pending, parent.hash)),
    )
  }

  /**
   * The pool keeps txs until their block is accepted; a block built on a processing parent must not offer them
   * again (their nonces are used on that branch, and a used nonce would drop the sender from the block).
   */
  #withoutProcessed(parentHash: Uint8Array, source: TxSource): TxSource {
    const used = new Set<string>()
    const { pending } = this.core.executor
    for (
      let b = pending.get(bytesToHex(parentHash));
      b !== undefined;
      b = pending.get(bytesToHex(b.header.parentHash))
    ) {
      for (const tx of b.txs) used.add(bytesToHex(tx.hash()))
    }
    if (used.size === 0) return source
    return {
      next() {
        for (;;) {
          const tx = source.next()
          if (tx === undefined || !used.has(bytesToHex(tx.hash()))) return tx
        }
      },
      skipSender: (sender) => source.skipSender(sender),
      ...(source.included === undefined ? {} : { included: (tx: TypedTransaction) => source.included?.(tx) }),
      ...(source.refused === undefined
        ? {}
        : { refused: (tx: TypedTransaction, reason: string) => source.refused?.(tx, reason) }),
    }
  }

  /** Check a received block against its parent's rules, then execute it; it becomes processing. */
  async verifyBlock(rlp: Uint8Array): Promise<ExecutedBlock> {
    const { header } = decodeBlock(rlp)
    const parentRlp = await this.core.getBlockByHash(header.parentHash)
    if (parentRlp === undefined) throw new Error(`unknown parent ${bytesToHex(header.parentHash)}`)
    const parent = decodeBlock(parentRlp).header
    verifyChildHeader(parent, header, BigInt(this.now()), this.preset)
    const capacity = feeStateBefore(parent, this.preset, headerTimeMs(header)).capacity
    return this.core.verifyBlock(
      rlp,
      capacity,
      this.atomic?.verifier(atomicBlockEnv(this.core.executor.pending, header.parentHash)),
    )
  }

  /**
   * Make a processing block final: one batch to disk (with `extra`, and its atomic txs' shared-memory changes and
   * index), then the pools drop what it included.
   */
  async acceptBlock(hash: Uint8Array, extra: readonly ExtraWrite[] = []): Promise<void> {
    const block = this.core.executor.pending.get(bytesToHex(hash))
    if (block !== undefined && this.atomic !== undefined && block.atomic.length > 0) {
      await this.atomic.accept(block, extra, (writes) => this.core.acceptBlock(hash, writes))
    } else {
      await this.core.acceptBlock(hash, extra)
    }
    const rlp = block?.rlp
    if (rlp !== undefined) this.#tipRlp = rlp
    if (equalsBytes(this.#preferred, hash) || this.core.executor.pending.size === 0) this.#preferred = hash
    await this.pool.onBlockAccepted(accountReader(this.core, this.core.lastAccepted().header.stateRoot))
  }

  async rejectBlock(hash: Uint8Array): Promise<void> {
    const dropped = this.#withDescendants(hash)
    await this.core.rejectBlock(hash)
    for (const b of dropped) this.atomic?.rejected(b)
    if (!this.core.executor.pending.has(bytesToHex(this.#preferred))) this.#preferred = this.core.lastAccepted().hash
  }

  /** A lone validator's step: build on the last accepted block and accept at once. */
  async buildAndAccept(): Promise<ExecutedBlock> {
    const block = await this.buildBlock()
    await this.acceptBlock(block.hash)
    return block
  }

  /** executable txs waiting in the pool, or atomic txs in the atomic mempool */
  hasPendingTxs(): boolean {
    return this.pool.stats().pending > 0 || (this.atomic?.mempool.pendingCount ?? 0) > 0
  }

  /**
   * The atomic mempool's admission (`issueTx`, gossip): verified on the preferred block's state at the estimated
   * next base fee; throws the reference's text.
   */
  async issueAtomicTx(d: DecodedTx, local: boolean): Promise<void> {
    if (this.atomic === undefined) throw new Error('this chain takes no atomic transactions')
    const parent = this.#parent()
    await this.atomic.admit(d, local, {
      baseFee: this.estimateNextBaseFee(),
      block: atomicBlockEnv(this.core.executor.pending, parent.hash),
      state: await this.core.stateAt(parent.header.stateRoot),
    })
  }

  /** the processing block `hash` and every processing block built on it */
  #withDescendants(hash: Uint8Array): ExecutedBlock[] {
    const { pending } = this.core.executor
    const out: ExecutedBlock[] = []
    const keys: string[] = [bytesToHex(hash)]
    while (keys.length > 0) {
      const key = keys.pop() as string
      const b = pending.get(key)
      if (b !== undefined) out.push(b)
      for (const [k, c] of pending) if (bytesToHex(c.header.parentHash) === key) keys.push(k)
    }
    return out
  }

  close(): void {
    this.atomic?.close()
    this.pool.close()
    this.core.close()
  }

  // ---- helpers -------------------------------------------------------------------------------------------------

  async #byNumber(n: bigint): Promise<ResolvedBlock | null> {
    const hash = await this.core.store.canonicalHash(n)
    if (hash === undefined) return null
    const rlp = await this.core.store.getBlock(hash)
    if (rlp === undefined) return null
    return { hash, header: decodeBlock(rlp).header, rlp, accepted: true }
  }

  /** processing blocks from the last accepted one up to the preferred block */
  #preferredChain(): ResolvedBlock[] {
    const out: ResolvedBlock[] = []
    let key = bytesToHex(this.#preferred)
    for (let p = this.core.executor.pending.get(key); p !== undefined; p = this.core.executor.pending.get(key)) {
      out.push({ hash: p.hash, header: p.header, rlp: p.rlp, accepted: false })
      key = bytesToHex(p.header.parentHash)
    }
    return out.reverse()
  }
}

/** The tx pool's reads of accounts at `root`: the chain's account reads (exec/chain.ts accountAt). */
function accountReader(core: EvmChainCore, root: Uint8Array) {
  return async (address: Uint8Array) => {
    const account = await core.accountAt(root, new Address(address))
    return { nonce: account?.nonce ?? 0n, balance: account?.balance ?? 0n }
  }
}
