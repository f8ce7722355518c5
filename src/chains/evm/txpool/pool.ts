/**
 * The C chain's tx pool: geth's legacypool as coreth configures it (legacy, 2930 and 1559 txs; blob and setcode
 * txs refused). Txs enter through `add` (the reference's refusal texts, see errors.ts), wait as `queued` until
 * their nonce is next, then sit `pending` (executable) until a block includes them. Account state comes from an
 * injected reader (cached until the next `onBlockAccepted`), time from an injected clock. Adds and block
 * updates run one at a time; the reads (content, status, get) are synchronous snapshots.
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import { type Address, hexToBytes } from '@ethereumjs/util'
import { type Observable, Subject } from 'rxjs'
import { prefixedHex } from '../../../runtime/hex.js'
import { comparePrice, makePoolTx, type PoolTx } from './entry.js'
import { TxPoolError } from './errors.js'
import { PricedNonceSource } from './ordered.js'
import {
  demoteUnexecutables,
  evictExpired,
  promoteExecutables,
  resetPendingNonces,
  truncatePending,
  truncateQueue,
} from './reorg.js'
import { type AccountState, DEFAULT_TX_POOL_CONFIG, PoolState, type TxPoolConfig } from './state.js'
import { validateBasics, validateWithState } from './validate.js'

export type AccountReader = (address: Uint8Array) => Promise<AccountState>

export interface TxPoolOptions {
  chainId: bigint
  /** nonce and balance of an account at the last accepted block */
  readAccount: AccountReader
  /** the base fee the next block would have (undefined before London rules) */
  baseFee: () => bigint | undefined
  /** the current block gas limit */
  gasLimit: () => bigint
  /** ms clock (heartbeats, lifetime, first-seen time) */
  now: () => number
  config?: Partial<TxPoolConfig>
  /** coreth's pool minimum fee cap (acp176.MinGasPrice): 1 wei */
  minimumFee?: bigint
}

export type TxStatus = 'pending' | 'queued' | 'unknown'

/** How often the owner should call `evictExpired` (geth's evictionInterval). */
export const EVICTION_INTERVAL_MS = 60_000
/** Account reads cached between blocks; beyond this the cache starts over. */
const MAX_CACHED_ACCOUNTS = 20_000

export class TxPool {
  readonly #s: PoolState
  readonly #opts: TxPoolOptions
  readonly #minimumFee: bigint
  #readAccount: AccountReader
  readonly #accounts = new Map<string, Promise<AccountState>>()
  #lock: Promise<unknown> = Promise.resolve()
  readonly #newPending = new Subject<string>()
  /** hashes of txs that became pending (promoted, or replacing a pending one) */
  readonly newPendingHashes: Observable<string> = this.#newPending.asObservable()

  constructor(opts: TxPoolOptions) {
    this.#opts = opts
    this.#s = new PoolState({ ...DEFAULT_TX_POOL_CONFIG, ...opts.config }, opts.now)
    this.#minimumFee = opts.minimumFee ?? 1n
    this.#readAccount = opts.readAccount
  }

  get config(): Readonly<TxPoolConfig> {
    return this.#s.config
  }

  /** Adds a signed tx; resolves to its hash or rejects with a TxPoolError carrying the reference's text. */
  async add(tx: TypedTransaction, opts: { local?: boolean } = {}): Promise<string> {
    if (!tx.isSigned()) throw new TxPoolError('invalidSender')
    const hash = prefixedHex(tx.hash())
    if (this.#s.all.has(hash)) throw new TxPoolError('alreadyKnown')
    const local = (opts.local ?? false) && this.#s.config.localsEnabled
    const sender = validateBasics(tx, {
      chainId: this.#opts.chainId,
      gasLimit: this.#opts.gasLimit(),
      minTip: local ? 0n : this.#s.config.priceLimit,
    })
    return this.#locked(async () => {
      if (this.#s.all.has(hash)) throw new TxPoolError('alreadyKnown')
      const from = sender.toString()
      const account = await this.#account(from, sender.bytes)
      this.#insert(tx, sender, account, local || this.#s.locals.has(from), local)
      return hash
    })
  }

  get(hash: string): TypedTransaction | undefined {
    return this.#s.all.get(hash.toLowerCase())?.tx
  }

  /** the pool's record of a tx (sender, costs, first-seen time) */
  entry(hash: string): PoolTx | undefined {
    return this.#s.all.get(hash.toLowerCase())
  }

  has(hash: string): boolean {
    return this.#s.all.has(hash.toLowerCase())
  }

  status(hash: string): TxStatus {
    const tx = this.#s.all.get(hash.toLowerCase())
    if (tx === undefined) return 'unknown'
    if (this.#s.pending.get(tx.from)?.get(tx.nonce)?.hash === tx.hash) return 'pending'
    if (this.#s.queue.get(tx.from)?.get(tx.nonce)?.hash === tx.hash) return 'queued'
    return 'unknown'
  }

  /** numbers of pending and queued txs (txpool_status) */
  stats(): { pending: number; queued: number } {
    return this.#s.counts()
  }

  /** every sender's pending and queued txs in nonce order, keyed by lowercase address (txpool_content) */
  content(): { pending: Map<string, PoolTx[]>; queued: Map<string, PoolTx[]> } {
    const flat = (m: Map<string, { flatten(): PoolTx[] }>) => new Map([...m].map(([a, l]) => [a, l.flatten()]))
    return { pending: flat(this.#s.pending), queued: flat(this.#s.queue) }
  }

  /** one sender's pending and queued txs (txpool_contentFrom) */
  contentFrom(address: Address | string): { pending: PoolTx[]; queued: PoolTx[] } {
    const from = addressKey(address)
    return { pending: this.#s.pending.get(from)?.flatten() ?? [], queued: this.#s.queue.get(from)?.flatten() ?? [] }
  }

  /** the next nonce with the sender's pending txs applied (eth_getTransactionCount "pending") */
  async nonce(address: Address | string): Promise<bigint> {
    const from = addressKey(address)
    const virtual = this.#s.pendingNonces.get(from)
    if (virtual !== undefined) return virtual
    return (await this.#account(from, hexToBytes(from as `0x${string}`))).nonce
  }

  /** The executable txs for a block at `baseFee`, best tip first, per-sender nonce order (see ordered.ts). */
  orderedSource(baseFee: bigint | undefined = this.#opts.baseFee()): PricedNonceSource {
    return new PricedNonceSource(
      [...this.#s.pending.values()].map((l) => l.flatten()),
      baseFee,
    )
  }

  /**
   * After a block is accepted: forget cached account state (optionally switch to a new reader), drop included,
   * stale and unpayable txs, re-queue what lost its predecessor, promote what became executable, trim to limits.
   */
  async onBlockAccepted(readAccount?: AccountReader): Promise<void> {
    await this.#locked(async () => {
      if (readAccount !== undefined) this.#readAccount = readAccount
      this.#accounts.clear()
      const addrs = new Set([...this.#s.pending.keys(), ...this.#s.queue.keys()])
      const accounts = new Map<string, AccountState>()
      await Promise.all(
        [...addrs].map(async (a) => accounts.set(a, await this.#account(a, hexToBytes(a as `0x${string}`)))),
      )
      const gasLimit = this.#opts.gasLimit()
      demoteUnexecutables(this.#s, accounts, gasLimit)
      resetPendingNonces(this.#s)
      const promoted = promoteExecutables(this.#s, [...this.#s.queue.keys()], accounts, gasLimit)
      truncatePending(this.#s)
      truncateQueue(this.#s)
      this.#announce(promoted)
    })
  }

  /** Drops queued txs of remote senders idle beyond the lifetime; call every EVICTION_INTERVAL_MS. */
  evictExpired(): number {
    return evictExpired(this.#s)
  }

  close(): void {
    this.#newPending.complete()
  }

  #insert(tx: TypedTransaction, sender: Address, account: AccountState, isLocal: boolean, markLocal: boolean): void {
    const s = this.#s
    const from = sender.toString()
    validateWithState(tx, from, { ...account, minimumFee: this.#minimumFee, pending: s.pending.get(from) })
    const ptx = makePoolTx(tx, sender, this.#opts.now(), isLocal)
    if (s.slots + ptx.slots > s.config.globalSlots + s.config.globalQueue) this.#makeRoom(ptx, account)
    const pending = s.pending.get(from)
    if (pending?.has(ptx.nonce)) {
      const { inserted, old } = pending.add(ptx, s.config.priceBump)
      if (!inserted) throw new TxPoolError('replaceUnderpriced')
      if (old !== undefined) s.untrack(old)
      s.track(ptx)
      s.beats.set(from, this.#opts.now())
      this.#announce([ptx])
      return
    }
    s.enqueue(ptx, true)
    if (markLocal && !s.locals.has(from)) {
      s.locals.add(from)
      for (const t of s.all.values()) if (t.from === from) t.local = true
    }
    const promoted = promoteExecutables(s, [from], new Map([[from, account]]), this.#opts.gasLimit())
    truncatePending(s)
    truncateQueue(s)
    this.#announce(promoted)
  }

  /** The pool is full: refuse `ptx` if it is no better than the cheapest remote tx, else evict enough of them. */
  #makeRoom(ptx: PoolTx, account: AccountState): void {
    const s = this.#s
    const baseFee = this.#opts.baseFee()
    const cheapest = s.cheapestRemote(baseFee, new Set())
    if (!ptx.local && cheapest !== undefined && comparePrice(cheapest, ptx, baseFee) >= 0) {
      throw new TxPoolError('underpriced')
    }
    const drops: PoolTx[] = []
    const taken = new Set<string>()
    let need = s.slots - (s.config.globalSlots + s.config.globalQueue) + ptx.slots
    while (need > 0) {
      const next = s.cheapestRemote(baseFee, taken)
      if (next === undefined) break
      drops.push(next)
      taken.add(next.hash)
      need -= next.slots
    }
    if (need > 0 && !ptx.local) throw new TxPoolError('poolOverflow')
    if (!ptx.local && this.#isGapped(ptx, account)) {
      if (drops.some((d) => s.pending.get(d.from)?.get(d.nonce)?.hash === d.hash)) {
        throw new TxPoolError('futureReplacePending')
      }
    }
    for (const d of drops) s.remove(d.hash)
  }

  /** geth's isGapped: the tx cannot become executable with what the pool holds now. */
  #isGapped(ptx: PoolTx, account: AccountState): boolean {
    const next = this.#s.pendingNonce(ptx.from, account.nonce)
    if (ptx.nonce <= next) return false
    const queue = this.#s.queue.get(ptx.from)
    if (queue === undefined) return true
    for (let n = next; n < ptx.nonce; n++) if (!queue.has(n)) return true
    return false
  }

  #announce(txs: readonly PoolTx[]): void {
    for (const tx of txs) this.#newPending.next(tx.hash)
  }

  #account(from: string, bytes: Uint8Array): Promise<AccountState> {
    let read = this.#accounts.get(from)
    if (read === undefined) {
      if (this.#accounts.size >= MAX_CACHED_ACCOUNTS) this.#accounts.clear()
      read = this.#readAccount(bytes)
      read.catch(() => this.#accounts.delete(from))
      this.#accounts.set(from, read)
    }
    return read
  }

  #locked<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#lock.then(work, work)
    this.#lock = run.catch(() => undefined)
    return run
  }
}

function addressKey(address: Address | string): string {
  return typeof address === 'string' ? address.toLowerCase() : address.toString()
}
