/**
 * Packing a block: take txs from an ordered source until the capacity is used. A tx that does not fit is left
 * for a later block (the source moves on); a tx that is invalid for its sender (nonce, balance, type) makes the
 * source drop that sender's remaining txs for this block.
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import type { Address } from '@ethereumjs/util'
import type { BlockRun } from './block-run.js'

export interface TxSource {
  /** the next tx to try, best first; undefined when none is left */
  next(): TypedTransaction | undefined
  /** the sender's txs cannot go in this block (a tx of theirs failed) */
  skipSender(sender: Address): void
  /** told about each tx that went in, and each refused one with the reason (optional) */
  included?(tx: TypedTransaction): void
  refused?(tx: TypedTransaction, reason: string): void
}

/** Smallest gas a tx can use: below this much room the block is full. */
const MIN_TX_GAS = 21_000n

export async function fillBlock(run: BlockRun, source: TxSource, capacity: bigint, maxTxs = 100_000): Promise<void> {
  for (let count = 0; count < maxTxs && capacity - run.used >= MIN_TX_GAS; ) {
    const tx = source.next()
    if (tx === undefined) return
    const refusal = await run.add(tx)
    if (refusal === undefined) {
      count++
      source.included?.(tx)
    } else if (refusal.kind === 'invalid') {
      source.refused?.(tx, refusal.reason)
      try {
        source.skipSender(tx.getSenderAddress())
      } catch {
        // unrecoverable signature: nothing to skip
      }
    }
  }
}

/** A TxSource over an array (tests, benches): one pass, skipping senders that failed. */
export function arraySource(txs: TypedTransaction[]): TxSource {
  let i = 0
  const skipped = new Set<string>()
  return {
    next() {
      while (i < txs.length) {
        const tx = txs[i++]!
        if (!skipped.has(tx.getSenderAddress().toString())) return tx
      }
      return undefined
    },
    skipSender(sender) {
      skipped.add(sender.toString())
    },
  }
}
