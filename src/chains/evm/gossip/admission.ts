/**
 * Received gossip into the pool: each item is decoded as eth_sendRawTransaction decodes (canonical serialized
 * tx) and added as a remote tx, one per event-loop turn (sender recovery costs CPU), on one lane. Hashes of txs
 * that came in this way are remembered in `remote` (before the pool announces them) so they are never pushed.
 * Pool refusals ("already known", underpriced, ...) are counted, not thrown; the backlog is bounded.
 */
import type { Common } from '@ethereumjs/common'
import type { TypedTransaction } from '@ethereumjs/tx'
import { bytesToHex } from '@ethereumjs/util'
import type { VmLogger as Logger } from '../../vm.js'
import { decodeRawTransaction } from '../api/exec-rawtx.js'
import { TX_MAX_SIZE } from '../txpool/entry.js'
import { TxPoolError } from '../txpool/errors.js'
import type { GossipPool, TxGossipStats } from './types.js'

/** accepted tx hashes remembered (about 40 blocks of 400 transfers) */
const MAX_INCLUDED = 16_384

export class TxAdmission {
  /** hashes of txs this node received by gossip and that may still be in the pool */
  readonly remote = new Set<string>()
  /** hashes of txs in recently accepted blocks (bounded, oldest forgotten first): peers that lag a block re-send them */
  readonly #included = new Set<string>()
  #lane: Promise<void> = Promise.resolve()
  #backlog = 0

  constructor(
    private readonly pool: GossipPool,
    private readonly common: Common,
    private readonly stats: TxGossipStats,
    private readonly log: Logger,
    private readonly maxBacklog: number,
  ) {}

  /** Queues `items` (serialized txs from `from`); resolves once they have been tried. */
  admit(from: string, items: readonly Uint8Array[]): Promise<void> {
    const room = Math.max(0, this.maxBacklog - this.#backlog)
    const taken = items.length > room ? items.slice(0, room) : items
    if (taken.length < items.length) {
      this.stats.dropped += items.length - taken.length
      this.log.debug('tx gossip backlog full, dropping txs', { from, dropped: items.length - taken.length })
    }
    if (taken.length === 0) return this.#lane
    this.#backlog += taken.length
    const run = this.#lane.then(async () => {
      for (const bytes of taken) {
        await new Promise<void>((resolve) => setImmediate(resolve))
        try {
          await this.#addOne(from, bytes)
        } finally {
          this.#backlog--
        }
      }
    })
    this.#lane = run.catch((err) => this.log.error('tx gossip admission failed', { err: String(err) }))
    return this.#lane
  }

  /** Remembers txs an accepted block holds, so their gossip is dropped without recovering the sender. */
  markIncluded(hashes: readonly string[]): void {
    for (const h of hashes) this.#included.add(h)
    for (const h of this.#included) {
      if (this.#included.size <= MAX_INCLUDED) break
      this.#included.delete(h)
    }
  }

  /** Resolves when everything queued so far has been tried. */
  idle(): Promise<void> {
    return this.#lane
  }

  /** Forgets remembered hashes whose txs left the pool (when the set has grown past twice the pool). */
  prune(): void {
    const { pending, queued } = this.pool.stats()
    if (this.remote.size <= 1024 || this.remote.size <= 2 * (pending + queued)) return
    for (const hash of this.remote) if (!this.pool.has(hash)) this.remote.delete(hash)
  }

  async #addOne(from: string, bytes: Uint8Array): Promise<void> {
    let tx: TypedTransaction
    let hash: string
    try {
      if (bytes.length > TX_MAX_SIZE) throw new Error(`tx of ${bytes.length} bytes exceeds ${TX_MAX_SIZE}`)
      tx = decodeRawTransaction(bytes, this.common)
      if (!tx.isSigned()) throw new Error('invalid sender')
      hash = bytesToHex(tx.hash())
    } catch (err) {
      this.stats.invalid++
      this.log.debug('undecodable gossiped tx', { from, err: err instanceof Error ? err.message : String(err) })
      return
    }
    if (this.pool.has(hash) || this.#included.has(hash)) {
      this.stats.alreadyKnown++
      return
    }
    this.remote.add(hash)
    try {
      await this.pool.add(tx, { local: false })
      this.stats.added++
    } catch (err) {
      if (!this.pool.has(hash)) this.remote.delete(hash)
      if (err instanceof TxPoolError && err.kind === 'alreadyKnown') {
        this.stats.alreadyKnown++
        return
      }
      this.stats.rejected++
      this.log.debug('pool refused gossiped tx', { from, hash, err: err instanceof Error ? err.message : String(err) })
    }
  }
}
