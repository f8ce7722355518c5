/** What jayson hands each method of a chain's `/rpc` or `/ws` server (`useContext`), and the handler shape. */
import type { WireError } from '../jsonrpc/errors.js'
import type { RpcMessage } from './message.js'
import type { CallProc, Session } from './session.js'

/** The message as read, its proc (deadline signal, subscriptions it creates) and the transport. */
export interface EthCallContext {
  readonly msg: RpcMessage
  readonly proc: CallProc
  readonly session: Session
}

export type EthCallback = (err: WireError | null, result?: unknown) => void

/** `args`: the positional params when `params` was a JSON array, else undefined (absent, null or not an array). */
export type EthHandler = (args: unknown[] | undefined, ctx: EthCallContext, callback: EthCallback) => void
