/**
 * Transaction admission as a message to the chain actor: `eth_sendRawTransaction` and the keystore's sends park the
 * decoded transaction under a ticket and go to `chain:<alias>` as one command (`chain.submitTxs`); the chain decides
 * (it takes transactions only in normal operation) and its `chainIo` slot admits the parked transactions into the
 * VM's pool, in order, answering one result per transaction. The transactions' bytes stay out of actor events;
 * every ticket is dropped whatever the outcome.
 *
 * One command in flight per chain: a transaction that finds none goes at once (a lone send waits for no timer);
 * what arrives while one is in flight goes together as the next command when it is answered. Under load (32 sends
 * in flight) an actor step per transaction cost about 100 µs of CPU and slowed admission enough that blocks held
 * fewer transactions; batching per event-loop turn (setImmediate) instead added a turn to every lone send (on
 * 2026-11-27, serial eth_sendRawTransaction p50 3.17 ms against 2.93 ms now, and one sender with 32 in flight
 * 396 against 427 tx/s; docs/architecture.md). One in flight also keeps one sender's nonces in order.
 */
import type { AnyActorRef } from 'xstate'
import type { ChainEmitted, ParkedTx, TxAdmission, TxsAdmitted } from '../../actors/chains/chain.machine.js'
import type { ReplyError } from '../../actors/reply.js'
import { type AskStatsSink, ask } from '../runtime/ask.js'
import { ErrorCode, FirnError } from '../runtime/errors.js'

type AdmitTxs = Extract<ChainEmitted, { type: 'chain.admitTxs' }>

/** most transactions in one command; more go in the next one */
export const MAX_TXS_PER_COMMAND = 256

/** Transactions waiting for their chain's verdict, by ticket. */
export class TxTickets<T extends { hash(): Uint8Array }> {
  #next = 1
  readonly #parked = new Map<number, T>()

  park(tx: T): number {
    const ticket = this.#next
    this.#next = this.#next >= Number.MAX_SAFE_INTEGER ? 1 : this.#next + 1
    this.#parked.set(ticket, tx)
    return ticket
  }

  take(ticket: number): T | undefined {
    const tx = this.#parked.get(ticket)
    this.#parked.delete(ticket)
    return tx
  }

  get size(): number {
    return this.#parked.size
  }
}

interface Waiting extends ParkedTx {
  resolve(hash: string): void
  reject(err: unknown): void
}

/** The API's `SubmitTransaction` for a chain: park, one command in flight, ask the chain actor, drop the tickets. */
export function submitThroughChain<T extends { hash(): Uint8Array }>(
  tickets: TxTickets<T>,
  chain: () => AnyActorRef | undefined,
  stats?: AskStatsSink,
): (tx: T) => Promise<string> {
  const batch: Waiting[] = []
  let inFlight = false
  const flush = async (): Promise<void> => {
    const sent = batch.splice(0, MAX_TXS_PER_COMMAND)
    inFlight = true
    const txs = sent.map(({ ticket, hash }) => ({ ticket, hash }))
    try {
      const ref = chain()
      if (ref === undefined) throw new FirnError('the chain is not running')
      const results = await ask<TxAdmission[]>(
        ref,
        { type: 'chain.submitTxs', txs },
        stats === undefined ? {} : { stats },
      )
      sent.forEach((w, i) => {
        const r = results[i]
        if (r?.ok === true) w.resolve(r.hash)
        else w.reject(r?.ok === false ? r.error : new FirnError('the chain gave no answer for this transaction'))
      })
    } catch (err) {
      for (const w of sent) w.reject(err)
    } finally {
      for (const w of sent) tickets.take(w.ticket)
      inFlight = false
      if (batch.length > 0) void flush()
    }
  }
  return (tx) =>
    new Promise<string>((resolve, reject) => {
      const ticket = tickets.park(tx)
      const hash = `0x${Buffer.from(tx.hash()).toString('hex')}`
      batch.push({ ticket, hash, resolve, reject })
      if (!inFlight) void flush()
    })
}

/** What the `chainIo` slot answers a `chain.admitTxs` with: admissions started in order, one result each. */
export async function admitTickets<T extends { hash(): Uint8Array }>(
  e: AdmitTxs,
  tickets: TxTickets<T>,
  admit: (tx: T) => Promise<string>,
): Promise<TxsAdmitted> {
  const admissions = e.txs.map(({ ticket }): Promise<TxAdmission> => {
    const tx = tickets.take(ticket)
    if (tx === undefined) {
      return Promise.resolve({ ok: false, error: replyErrorOf(new FirnError('transaction no longer waiting')) })
    }
    return admit(tx).then(
      (hash): TxAdmission => ({ ok: true, hash }),
      (err: unknown): TxAdmission => ({ ok: false, error: replyErrorOf(err) }),
    )
  })
  return { type: 'chain.txsAdmitted', requestId: e.requestId, results: await Promise.all(admissions) }
}

function replyErrorOf(err: unknown): ReplyError {
  if (err instanceof FirnError) return { code: err.code, message: err.message, data: err.data ?? null }
  return { code: ErrorCode.server, message: err instanceof Error ? err.message : String(err), data: null }
}
