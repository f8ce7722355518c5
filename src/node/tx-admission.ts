/**
 * Transaction admission as a message to the chain actor: `eth_sendRawTransaction` and the keystore's sends park the
 * decoded transaction under a ticket and ask `chain:<alias>` (`chain.submitTx`); the chain decides (it takes
 * transactions only in normal operation) and its `chainIo` slot admits the parked transaction into the VM's pool.
 * The transaction's bytes stay out of actor events; the ticket is dropped whatever the outcome.
 */
import type { AnyActorRef } from 'xstate'
import type { ChainEmitted, TxAdmitted } from '../../actors/chains/chain.machine.js'
import type { ReplyError } from '../../actors/reply.js'
import { type AskStatsSink, ask } from '../runtime/ask.js'
import { ErrorCode, FirnError } from '../runtime/errors.js'

type AdmitTx = Extract<ChainEmitted, { type: 'chain.admitTx' }>

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

/** The API's `SubmitTransaction` for a chain: park, ask the chain actor, drop the ticket. */
export function submitThroughChain<T extends { hash(): Uint8Array }>(
  tickets: TxTickets<T>,
  chain: () => AnyActorRef | undefined,
  stats?: AskStatsSink,
): (tx: T) => Promise<string> {
  return async (tx) => {
    const ref = chain()
    if (ref === undefined) throw new FirnError('the chain is not running')
    const ticket = tickets.park(tx)
    try {
      const hash = `0x${Buffer.from(tx.hash()).toString('hex')}`
      return await ask<string>(ref, { type: 'chain.submitTx', ticket, hash }, stats === undefined ? {} : { stats })
    } finally {
      tickets.take(ticket)
    }
  }
}

/** What the `chainIo` slot answers a `chain.admitTx` with: the pool's hash, or its error as a reply error. */
export async function admitTicket<T extends { hash(): Uint8Array }>(
  e: AdmitTx,
  tickets: TxTickets<T>,
  admit: (tx: T) => Promise<string>,
): Promise<TxAdmitted> {
  try {
    const tx = tickets.take(e.ticket)
    if (tx === undefined) throw new FirnError('transaction no longer waiting (its submission gave up)')
    return { type: 'chain.txAdmitted', requestId: e.requestId, ok: true, hash: await admit(tx) }
  } catch (err) {
    return { type: 'chain.txAdmitted', requestId: e.requestId, ok: false, error: replyErrorOf(err) }
  }
}

function replyErrorOf(err: unknown): ReplyError {
  if (err instanceof FirnError) return { code: err.code, message: err.message, data: err.data ?? null }
  return { code: ErrorCode.server, message: err instanceof Error ? err.message : String(err), data: null }
}
