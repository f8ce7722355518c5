/**
 * The atomic transactions' one error type. Messages are the reference's texts to the letter (its codec, its
 * address parser, its secp256k1 recovery, its `Verify` rules); `reason` says which family an error belongs to,
 * so callers can branch without matching on text. Over JSON-RPC it is a -32000 error like any `FirnError`.
 */
import { FirnError } from '../../../runtime/errors.js'

/** codec: malformed bytes; address: a bech32 or chain address; signature: recovery; syntax: `verifySyntax` */
export type AtomicErrorReason = 'codec' | 'address' | 'signature' | 'syntax'

export class AtomicError extends FirnError {
  readonly reason: AtomicErrorReason
  constructor(message: string, reason: AtomicErrorReason) {
    super(message)
    this.name = 'AtomicError'
    this.reason = reason
  }
}

export const codecError = (message: string): AtomicError => new AtomicError(message, 'codec')
