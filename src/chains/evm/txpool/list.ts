/**
 * One account's txs in one tier (pending or queued), keyed by nonce: geth's legacypool `list` over a sorted map.
 * `strict` lists (pending) hold contiguous nonces, so removing or filtering one tx also cuts every later one
 * (returned as `invalids` for the caller to queue again). `totalCost` is the sum of the txs' costs.
 */
import type { PoolTx } from './entry.js'

export class TxList {
  readonly #items = new Map<bigint, PoolTx>()
  #sorted: PoolTx[] | undefined
  totalCost = 0n

  constructor(readonly strict: boolean) {}

  get size(): number {
    return this.#items.size
  }

  get(nonce: bigint): PoolTx | undefined {
    return this.#items.get(nonce)
  }

  has(nonce: bigint): boolean {
    return this.#items.has(nonce)
  }

  /** txs by ascending nonce (a fresh array) */
  flatten(): PoolTx[] {
    if (this.#sorted === undefined) {
      this.#sorted = [...this.#items.values()].sort((a, b) => (a.nonce < b.nonce ? -1 : 1))
    }
    return [...this.#sorted]
  }

  last(): PoolTx | undefined {
    return this.flatten().at(-1)
  }

  /**
   * Inserts `tx`, replacing a same-nonce tx only if both its fee cap and tip cap are at least `priceBump` percent
   * higher (and strictly higher). Returns whether it went in, and the tx it replaced.
   */
  add(tx: PoolTx, priceBump: bigint): { inserted: boolean; old: PoolTx | undefined } {
    const old = this.#items.get(tx.nonce)
    if (old !== undefined) {
      if (old.feeCap >= tx.feeCap || old.tipCap >= tx.tipCap) return { inserted: false, old: undefined }
      const factor = 100n + priceBump
      if (tx.feeCap < (old.feeCap * factor) / 100n || tx.tipCap < (old.tipCap * factor) / 100n) {
        return { inserted: false, old: undefined }
      }
      this.totalCost -= old.cost
    }
    this.totalCost += tx.cost
    this.#put(tx)
    return { inserted: true, old }
  }

  /** Removes and returns every tx with a nonce below `threshold`. */
  forward(threshold: bigint): PoolTx[] {
    return this.#removeWhere((tx) => tx.nonce < threshold)
  }

  /**
   * Removes txs costing more than `costLimit` or needing more than `gasLimit` gas; in a strict list every tx
   * after the lowest removed nonce is removed too and returned as `invalids`.
   */
  filter(costLimit: bigint, gasLimit: bigint): { removed: PoolTx[]; invalids: PoolTx[] } {
    const removed = this.#removeWhere((tx) => tx.gas > gasLimit || tx.cost > costLimit)
    if (removed.length === 0 || !this.strict) return { removed, invalids: [] }
    const lowest = removed[0]!.nonce // removed in ascending nonce order
    return { removed, invalids: this.#removeWhere((tx) => tx.nonce > lowest) }
  }

  /** Keeps the `threshold` lowest nonces; removes and returns the rest (highest nonces). */
  cap(threshold: number): PoolTx[] {
    if (this.#items.size <= threshold) return []
    const drops = this.flatten().slice(Math.max(threshold, 0))
    for (const tx of drops) this.#delete(tx)
    return drops
  }

  /** Removes `tx`; in a strict list the later nonces are removed too and returned as `invalids`. */
  remove(tx: PoolTx): { removed: boolean; invalids: PoolTx[] } {
    const have = this.#items.get(tx.nonce)
    if (have === undefined) return { removed: false, invalids: [] }
    this.#delete(have)
    if (!this.strict) return { removed: true, invalids: [] }
    return { removed: true, invalids: this.#removeWhere((t) => t.nonce > tx.nonce) }
  }

  /** Removes and returns the run of consecutive nonces starting at the lowest, if the lowest is <= `start`. */
  ready(start: bigint): PoolTx[] {
    const sorted = this.flatten()
    const first = sorted[0]
    if (first === undefined || first.nonce > start) return []
    const ready: PoolTx[] = []
    for (let next = first.nonce, i = 0; i < sorted.length && sorted[i]!.nonce === next; i++, next++) {
      ready.push(sorted[i]!)
    }
    for (const tx of ready) this.#delete(tx)
    return ready
  }

  #put(tx: PoolTx): void {
    this.#items.set(tx.nonce, tx)
    this.#sorted = undefined
  }

  #delete(tx: PoolTx): void {
    this.#items.delete(tx.nonce)
    this.totalCost -= tx.cost
    this.#sorted = undefined
  }

  #removeWhere(pred: (tx: PoolTx) => boolean): PoolTx[] {
    const removed = this.flatten().filter(pred)
    for (const tx of removed) this.#delete(tx)
    return removed
  }
}
