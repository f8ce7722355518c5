/**
 * The atomic mempool (../shared/reference/cchain.md 2.8): verified import/export txs waiting for a block, by ID,
 * with the reference's rules and texts.
 *
 * - Capacity 4096 txs (pending + issued); a full pool takes a newcomer only if it pays more per gas than the
 *   cheapest pending tx, which it then evicts (`insufficient fee currentMin=<p> provided=<q>`, or `mempool full`
 *   when nothing is pending).
 * - Conflicts are by input ID (an import's UTXO IDs, an export's nonce+address IDs): the newcomer must pay strictly
 *   more per gas than every pending tx it conflicts with, which are then discarded; otherwise `conflict present:
 *   issued tx (<id>) gas price <p> <= conflict tx (<id>) gas price <q> (<n> total conflicts in mempool)`.
 * - A tx already pending or issued is `already known` (the API still answers its ID); a discarded one is known
 *   for gossip but a local issue verifies it again.
 * - `issued`: in a block being built or processing. A rejected block's txs come back as pending; an accepted
 *   block's leave the pool, with every pending tx spending one of their inputs (discarded).
 * - Discarded txs (failed verification, lost a conflict, evicted) are remembered, the last 50, for the `Dropped`
 *   status and `getAtomicTx`.
 *
 * Verification is the caller's: `add` takes a tx that passed it, with its gas and effective price.
 */
import { Subject } from 'rxjs'
import { FirnError } from '../../../runtime/errors.js'
import type { DecodedTx } from './ids.js'
import { idCb58, inputIdsOf } from './ids.js'
import type { Hex } from './types.js'

export const ATOMIC_MEMPOOL_SIZE = 4096
export const DISCARDED_CACHE_SIZE = 50

/** A tx in the pool: decoded, with what the pool orders and conflicts by. */
export interface PooledAtomicTx {
  d: DecodedTx
  /** gas used (AP5: with the intrinsic gas) */
  gas: bigint
  /** burned AVAX x 1e9 / gas: wei per gas */
  price: bigint
  inputIds: Hex[]
}

export type AtomicPoolStatus = 'pending' | 'issued' | 'discarded'

/** `already known: ...` (the API answers the tx ID anyway). */
export class AlreadyKnownError extends FirnError {}

export function pooled(d: DecodedTx, gas: bigint, price: bigint): PooledAtomicTx {
  return { d, gas, price, inputIds: inputIdsOf(d.tx.unsigned) }
}

export class AtomicMempool {
  readonly #pending = new Map<Hex, PooledAtomicTx>()
  readonly #issued = new Map<Hex, PooledAtomicTx>()
  readonly #discarded = new Map<Hex, PooledAtomicTx>()
  /** input ID -> the pending or issued tx that spends it */
  readonly #spenders = new Map<Hex, Hex>()
  /** a tx entered the pending set (gossip, block building) */
  readonly added$ = new Subject<DecodedTx>()

  constructor(
    readonly capacity = ATOMIC_MEMPOOL_SIZE,
    readonly discardedSize = DISCARDED_CACHE_SIZE,
  ) {}

  get pendingCount(): number {
    return this.#pending.size
  }

  get size(): number {
    return this.#pending.size + this.#issued.size
  }

  status(id: Hex): AtomicPoolStatus | undefined {
    if (this.#pending.has(id)) return 'pending'
    if (this.#issued.has(id)) return 'issued'
    if (this.#discarded.has(id)) return 'discarded'
    return undefined
  }

  get(id: Hex): PooledAtomicTx | undefined {
    return this.#pending.get(id) ?? this.#issued.get(id) ?? this.#discarded.get(id)
  }

  /**
   * Throws `already known: ...` for a tx that is pending or issued (or discarded, unless `local`), else the
   * reference's conflict and capacity errors; otherwise the tx is pending.
   */
  add(tx: PooledAtomicTx, local: boolean): void {
    const id = tx.d.id
    const text = idCb58(id)
    const known = this.alreadyKnown(id, local)
    if (known !== undefined) throw known
    this.#discarded.delete(id)
    const conflicts = new Set<Hex>()
    for (const input of tx.inputIds) {
      const spender = this.#spenders.get(input)
      if (spender !== undefined) conflicts.add(spender)
    }
    let highest: PooledAtomicTx | undefined
    for (const c of conflicts) {
      const other = this.#pending.get(c) ?? this.#issued.get(c)
      if (other !== undefined && (highest === undefined || other.price > highest.price)) highest = other
    }
    if (highest !== undefined && (tx.price <= highest.price || this.#issued.has(highest.d.id))) {
      throw new FirnError(
        `conflict present: issued tx (${text}) gas price ${tx.price} <= conflict tx (${idCb58(highest.d.id)}) gas price ${highest.price} (${conflicts.size} total conflicts in mempool)`,
      )
    }
    if (this.size - conflicts.size >= this.capacity) {
      const cheapest = this.#cheapestPending(conflicts)
      if (cheapest === undefined) throw new FirnError('mempool full')
      if (cheapest.price >= tx.price) {
        throw new FirnError(`insufficient fee currentMin=${cheapest.price} provided=${tx.price}`)
      }
      this.discard(cheapest.d.id)
    }
    for (const c of conflicts) this.discard(c)
    this.#pending.set(id, tx)
    for (const input of tx.inputIds) this.#spenders.set(input, id)
    this.added$.next(tx.d)
  }

  /** `already known: ...` for a tx pending or issued, or discarded unless `local` (a local issue tries again). */
  alreadyKnown(id: Hex, local: boolean): AlreadyKnownError | undefined {
    const text = idCb58(id)
    if (this.#issued.has(id)) return new AlreadyKnownError(`already known: tx ${text} was issued previously`)
    if (this.#pending.has(id)) return new AlreadyKnownError(`already known: tx ${text} is pending`)
    if (!local && this.#discarded.has(id)) return new AlreadyKnownError(`already known: tx ${text} was discarded`)
    return undefined
  }

  #cheapestPending(except: ReadonlySet<Hex>): PooledAtomicTx | undefined {
    let min: PooledAtomicTx | undefined
    for (const tx of this.#pending.values()) {
      if (!except.has(tx.d.id) && (min === undefined || tx.price < min.price)) min = tx
    }
    return min
  }

  /** Pending txs, best price first (ties: the earlier one). */
  candidates(): PooledAtomicTx[] {
    return [...this.#pending.values()].sort((a, b) => (a.price === b.price ? 0 : a.price > b.price ? -1 : 1))
  }

  /** The txs went into a block (built or verified here). */
  markIssued(ids: readonly Hex[]): void {
    for (const id of ids) {
      const tx = this.#pending.get(id)
      if (tx === undefined) continue
      this.#pending.delete(id)
      this.#issued.set(id, tx)
    }
  }

  /** A block holding them was rejected: they wait again (verified again when a block is built). */
  reissue(ids: readonly Hex[]): void {
    for (const id of ids) {
      const tx = this.#issued.get(id)
      if (tx === undefined) continue
      this.#issued.delete(id)
      this.#pending.set(id, tx)
      this.added$.next(tx.d)
    }
  }

  /** A block holding `txs` was accepted: they leave the pool, and every tx spending one of their inputs too. */
  accepted(txs: readonly PooledAtomicTx[]): void {
    for (const tx of txs) {
      this.#forget(tx.d.id)
      this.#discarded.delete(tx.d.id)
    }
    for (const tx of txs) {
      for (const input of tx.inputIds) {
        const other = this.#spenders.get(input)
        if (other !== undefined) this.discard(other)
      }
    }
  }

  /** Moves a tx to the discarded cache (it failed verification, lost a conflict or was evicted). */
  discard(id: Hex): void {
    const tx = this.#forget(id)
    if (tx === undefined) return
    this.#discarded.set(id, tx)
    if (this.#discarded.size > this.discardedSize) {
      this.#discarded.delete(this.#discarded.keys().next().value as Hex)
    }
  }

  #forget(id: Hex): PooledAtomicTx | undefined {
    const tx = this.#pending.get(id) ?? this.#issued.get(id)
    if (tx === undefined) return undefined
    this.#pending.delete(id)
    this.#issued.delete(id)
    for (const input of tx.inputIds) if (this.#spenders.get(input) === id) this.#spenders.delete(input)
    return tx
  }

  close(): void {
    this.added$.complete()
  }
}
