/**
 * The pool's bookkeeping (geth legacypool's pending / queue / all / beats / locals / pendingNonces) and the small
 * moves every path shares: enqueue, promote, remove. Nothing here reads account state or awaits; callers pass
 * the state they read. Addresses are 0x lowercase strings.
 */
import { comparePrice, type PoolTx } from './entry.js'
import { TxPoolError } from './errors.js'
import { TxList } from './list.js'

export interface TxPoolConfig {
  /** minimum tip for remote txs (tx-pool-price-limit), wei */
  priceLimit: bigint
  /** replacement bump in percent (tx-pool-price-bump) */
  priceBump: bigint
  accountSlots: number
  globalSlots: number
  accountQueue: number
  globalQueue: number
  /** how long a sender's queued txs may sit without activity (tx-pool-lifetime), ms */
  lifetimeMs: number
  /** local-txs-enabled: when false every tx is treated as remote (coreth's NoLocals = !local-txs-enabled) */
  localsEnabled: boolean
}

export const DEFAULT_TX_POOL_CONFIG: Readonly<TxPoolConfig> = Object.freeze({
  priceLimit: 1n,
  priceBump: 10n,
  accountSlots: 16,
  globalSlots: 5120,
  accountQueue: 64,
  globalQueue: 1024,
  lifetimeMs: 10 * 60_000,
  localsEnabled: false,
})

export interface AccountState {
  nonce: bigint
  balance: bigint
}

export class PoolState {
  readonly pending = new Map<string, TxList>()
  readonly queue = new Map<string, TxList>()
  /** last activity per sender with queued txs (ms) */
  readonly beats = new Map<string, number>()
  readonly all = new Map<string, PoolTx>()
  readonly locals = new Set<string>()
  /** virtual nonces: the state nonce with the sender's pending txs applied */
  readonly pendingNonces = new Map<string, bigint>()
  slots = 0

  constructor(
    readonly config: TxPoolConfig,
    readonly now: () => number,
  ) {}

  pendingNonce(addr: string, stateNonce: bigint): bigint {
    return this.pendingNonces.get(addr) ?? stateNonce
  }

  lowerPendingNonce(addr: string, nonce: bigint): void {
    const have = this.pendingNonces.get(addr)
    if (have !== undefined && nonce < have) this.pendingNonces.set(addr, nonce)
  }

  track(tx: PoolTx): void {
    this.all.set(tx.hash, tx)
    this.slots += tx.slots
  }

  untrack(tx: PoolTx): void {
    if (this.all.delete(tx.hash)) this.slots -= tx.slots
  }

  /** Into the sender's queue; `track` also records it in `all` (false for internal moves). */
  enqueue(tx: PoolTx, track: boolean): PoolTx | undefined {
    let list = this.queue.get(tx.from)
    if (list === undefined) {
      list = new TxList(false)
      this.queue.set(tx.from, list)
    }
    const { inserted, old } = list.add(tx, this.config.priceBump)
    if (!inserted) {
      if (list.size === 0) this.queue.delete(tx.from)
      throw new TxPoolError('replaceUnderpriced')
    }
    if (old !== undefined) this.untrack(old)
    if (track) this.track(tx)
    if (!this.beats.has(tx.from)) this.beats.set(tx.from, this.now())
    return old
  }

  /** An internal move back to the queue; a tx that loses to a queued one at its nonce leaves the pool. */
  requeue(tx: PoolTx): void {
    try {
      this.enqueue(tx, false)
    } catch {
      this.untrack(tx)
    }
  }

  /** Into the sender's pending list (geth's promoteTx); false if an older tx at that nonce was better. */
  promote(tx: PoolTx): boolean {
    let list = this.pending.get(tx.from)
    if (list === undefined) {
      list = new TxList(true)
      this.pending.set(tx.from, list)
    }
    const { inserted, old } = list.add(tx, this.config.priceBump)
    if (!inserted) {
      this.untrack(tx)
      return false
    }
    if (old !== undefined) this.untrack(old)
    this.pendingNonces.set(tx.from, tx.nonce + 1n)
    this.beats.set(tx.from, this.now())
    return true
  }

  /** Removes one tx; a pending removal sends the sender's later txs back to the queue. Returns how many left pending. */
  remove(hash: string): number {
    const tx = this.all.get(hash)
    if (tx === undefined) return 0
    this.untrack(tx)
    const pending = this.pending.get(tx.from)
    if (pending !== undefined) {
      const { removed, invalids } = pending.remove(tx)
      if (removed) {
        if (pending.size === 0) this.pending.delete(tx.from)
        for (const moved of invalids) this.requeue(moved)
        this.lowerPendingNonce(tx.from, tx.nonce)
        return 1 + invalids.length
      }
    }
    const queued = this.queue.get(tx.from)
    if (queued !== undefined) {
      queued.remove(tx)
      if (queued.size === 0) {
        this.queue.delete(tx.from)
        this.beats.delete(tx.from)
      }
    }
    return 0
  }

  /** geth's pricedList order: the cheapest remote tx first, and on a tie the higher nonce. */
  cheapestRemote(baseFee: bigint | undefined, exclude: ReadonlySet<string>): PoolTx | undefined {
    let best: PoolTx | undefined
    for (const tx of this.all.values()) {
      if (tx.local || exclude.has(tx.hash)) continue
      if (best === undefined) {
        best = tx
        continue
      }
      const c = comparePrice(tx, best, baseFee)
      if (c < 0 || (c === 0 && tx.nonce > best.nonce)) best = tx
    }
    return best
  }

  counts(): { pending: number; queued: number } {
    let pending = 0
    let queued = 0
    for (const list of this.pending.values()) pending += list.size
    for (const list of this.queue.values()) queued += list.size
    return { pending, queued }
  }
}
