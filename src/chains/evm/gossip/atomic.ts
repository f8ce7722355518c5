/**
 * Atomic tx gossip, on handler 1 of the p2p SDK (the reference's atomic tx gossip handler): push only.
 * - out: every tx that enters the atomic mempool other than by gossip (issueTx, a rejected block's txs waiting
 *   again) goes, on the next turn with whatever else came, to every connected validator as a PushGossip of signed
 *   tx bytes in messages of at most 20 KiB;
 * - in: PushGossip from validators only; each item decoded and admitted as a remote tx (verified as issueTx
 *   verifies; `already known` and invalid txs are dropped, counted in `stats`), never pushed on.
 * The EVM's pull gossip carries EVM txs only: a node that misses a push sees the tx when a block holds it.
 */
import type { Subscription } from 'rxjs'
import { type DecodedTx, decodeSignedTx } from '../atomic/ids.js'
import type { AtomicMempool } from '../atomic/mempool.js'
import { connectedValidators, isValidator } from './targets.js'
import type { GossipTransport } from './types.js'
import {
  ATOMIC_TX_GOSSIP_HANDLER_ID,
  batchBySize,
  decodePushGossip,
  encodePushGossip,
  TARGET_GOSSIP_BYTES,
  withHandlerPrefix,
} from './wire.js'

export interface AtomicGossipDeps {
  mempool: AtomicMempool
  /** the mempool's admission of a remote tx (throws the reason it was refused) */
  admit(d: DecodedTx): Promise<void>
  transport: GossipTransport
}

export interface AtomicGossipStats {
  pushedTxs: number
  receivedTxs: number
  admittedTxs: number
  droppedTxs: number
}

export class AtomicGossiper {
  readonly stats: AtomicGossipStats = { pushedTxs: 0, receivedTxs: 0, admittedTxs: 0, droppedTxs: 0 }
  #subscription: Subscription | undefined
  #queue: DecodedTx[] = []
  /** IDs admitted from gossip: not pushed on */
  readonly #remote = new Set<string>()

  constructor(private readonly deps: AtomicGossipDeps) {}

  start(): void {
    if (this.#subscription !== undefined) return
    this.#subscription = this.deps.mempool.added$.subscribe((d) => {
      if (this.#remote.delete(d.id)) return
      this.#queue.push(d)
      if (this.#queue.length === 1) setImmediate(() => this.#push())
    })
  }

  stop(): void {
    this.#subscription?.unsubscribe()
    this.#subscription = undefined
    this.#queue = []
  }

  #push(): void {
    const txs = this.#queue.splice(0)
    if (txs.length === 0 || this.#subscription === undefined) return
    const { transport } = this.deps
    const targets = connectedValidators(transport.validators(), transport.connectedNodeIds(), transport.self)
    if (targets.length === 0) return
    const items = txs.map((d) => ({ bytes: d.signedBytes }))
    for (const batch of batchBySize(items, TARGET_GOSSIP_BYTES)) {
      const payload = encodePushGossip(batch.map((i) => i.bytes))
      transport.appGossip(targets, withHandlerPrefix(ATOMIC_TX_GOSSIP_HANDLER_ID, payload))
      this.stats.pushedTxs += batch.length
    }
  }

  /** A PushGossip payload (handler prefix removed) from `from`. Never throws. */
  onPush(from: string, payload: Uint8Array): void {
    if (this.#subscription === undefined || !isValidator(this.deps.transport.validators(), from)) return
    let items: Uint8Array[]
    try {
      items = decodePushGossip(payload)
    } catch {
      return
    }
    this.stats.receivedTxs += items.length
    for (const bytes of items) {
      let d: DecodedTx
      try {
        d = decodeSignedTx(bytes)
      } catch {
        this.stats.droppedTxs++
        continue
      }
      this.#remote.add(d.id)
      this.deps.admit(d).then(
        () => {
          this.stats.admittedTxs++
        },
        () => {
          this.#remote.delete(d.id)
          this.stats.droppedTxs++
        },
      )
    }
  }
}
