/**
 * The builder's view of the pool (geth's miner `transactionsByPriceAndNonce`): the executable txs of every
 * sender, best effective tip at `baseFee` first, each sender's txs in nonce order. A sender whose next tx cannot
 * pay the base fee drops out. `next()` hands out the best tx and moves its sender on to the following nonce;
 * `skipSender` drops the sender's remaining txs for this block. Ties go to the tx the pool saw first.
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import { type Address, bytesToHex } from '@ethereumjs/util'
import type { TxSource } from '../exec/builder.js'
import { effectiveTip, type PoolTx } from './entry.js'
import { Heap } from './heap.js'

interface Head {
  tx: PoolTx
  tip: bigint
  rest: PoolTx[]
  index: number
}

export class PricedNonceSource implements TxSource {
  readonly #heap = new Heap<Head>((a, b) => (a.tip !== b.tip ? a.tip > b.tip : a.tx.time < b.tx.time))
  readonly #skipped = new Set<string>()

  /** `bySender`: each sender's executable txs in nonce order (the source keeps its own copy of the arrays). */
  constructor(
    bySender: Iterable<readonly PoolTx[]>,
    readonly baseFee: bigint | undefined,
  ) {
    for (const txs of bySender) this.#pushFrom([...txs], 0)
  }

  /** the next tx's pool entry (hash, sender) without taking it */
  peek(): PoolTx | undefined {
    let head = this.#heap.peek()
    while (head !== undefined && this.#skipped.has(head.tx.from)) {
      this.#heap.pop()
      head = this.#heap.peek()
    }
    return head?.tx
  }

  next(): TypedTransaction | undefined {
    for (let head = this.#heap.pop(); head !== undefined; head = this.#heap.pop()) {
      if (this.#skipped.has(head.tx.from)) continue
      this.#pushFrom(head.rest, head.index + 1)
      return head.tx.tx
    }
    return undefined
  }

  skipSender(sender: Address | Uint8Array | string): void {
    const key =
      typeof sender === 'string'
        ? sender.toLowerCase()
        : sender instanceof Uint8Array
          ? bytesToHex(sender)
          : sender.toString()
    this.#skipped.add(key)
  }

  #pushFrom(txs: PoolTx[], index: number): void {
    const tx = txs[index]
    if (tx === undefined || this.#skipped.has(tx.from)) return
    const tip = effectiveTip(tx, this.baseFee)
    if (tip < 0n) return
    this.#heap.push({ tx, tip, rest: txs, index })
  }
}
