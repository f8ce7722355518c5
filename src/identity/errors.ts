/**
 * Typed errors of the identity modules. Messages are the reference's texts to the letter; `reason` says which
 * family an error belongs to, so callers can branch without matching on text. Over JSON-RPC they are -32000
 * errors like any other `FirnError`.
 */
import { FirnError } from '../runtime/errors.js'

/** Reasons of `IdError`: CB58/hex decoding, ID lengths and prefixes. */
export type IdErrorReason = 'ID_ERROR_DECODE' | 'ID_ERROR_LENGTH' | 'ID_ERROR_PREFIX'

/** Reasons of `StakingError`: the staking TLS key and certificate. */
export type StakingErrorReason =
  | 'STAKING_ERROR_MISSING_FILE'
  | 'STAKING_ERROR_GENERATE'
  | 'STAKING_ERROR_LOAD'
  | 'STAKING_ERROR_INVALID_CERT'

/** Reasons of `BlsError`: BLS keys, signatures and the signer key file. */
export type BlsErrorReason =
  | 'BLS_ERROR_MISSING_FILE'
  | 'BLS_ERROR_SECRET_KEY'
  | 'BLS_ERROR_PUBLIC_KEY'
  | 'BLS_ERROR_SIGNATURE'
  | 'BLS_ERROR_IO'

/** A malformed CB58/hex string, ID or NodeID. */
export class IdError extends FirnError {
  readonly reason: IdErrorReason
  constructor(message: string, reason: IdErrorReason = 'ID_ERROR_DECODE') {
    super(message)
    this.name = 'IdError'
    this.reason = reason
  }
}

/** A staking key/certificate that is missing, unreadable or not acceptable. */
export class StakingError extends FirnError {
  readonly reason: StakingErrorReason
  constructor(message: string, reason: StakingErrorReason) {
    super(message)
    this.name = 'StakingError'
    this.reason = reason
  }
}

/** A BLS key, signature or signer key file that cannot be used. */
export class BlsError extends FirnError {
  readonly reason: BlsErrorReason
  constructor(message: string, reason: BlsErrorReason) {
    super(message)
    this.name = 'BlsError'
    this.reason = reason
  }
}
