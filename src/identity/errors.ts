/**
 * Typed errors of the identity modules. Messages are the reference's texts to the letter; `code` says which
 * family an error belongs to, so callers can branch without matching on text.
 */

/** Codes of `IdError`: CB58/hex decoding, ID lengths and prefixes. */
export type IdErrorCode = 'ID_ERROR_DECODE' | 'ID_ERROR_LENGTH' | 'ID_ERROR_PREFIX'

/** Codes of `StakingError`: the staking TLS key and certificate. */
export type StakingErrorCode =
  | 'STAKING_ERROR_MISSING_FILE'
  | 'STAKING_ERROR_GENERATE'
  | 'STAKING_ERROR_LOAD'
  | 'STAKING_ERROR_INVALID_CERT'

/** Codes of `BlsError`: BLS keys, signatures and the signer key file. */
export type BlsErrorCode =
  | 'BLS_ERROR_MISSING_FILE'
  | 'BLS_ERROR_SECRET_KEY'
  | 'BLS_ERROR_PUBLIC_KEY'
  | 'BLS_ERROR_SIGNATURE'
  | 'BLS_ERROR_IO'

/** A malformed CB58/hex string, ID or NodeID. */
export class IdError extends Error {
  readonly code: IdErrorCode
  constructor(message: string, code: IdErrorCode = 'ID_ERROR_DECODE') {
    super(message)
    this.name = 'IdError'
    this.code = code
  }
}

/** A staking key/certificate that is missing, unreadable or not acceptable. */
export class StakingError extends Error {
  readonly code: StakingErrorCode
  constructor(message: string, code: StakingErrorCode) {
    super(message)
    this.name = 'StakingError'
    this.code = code
  }
}

/** A BLS key, signature or signer key file that cannot be used. */
export class BlsError extends Error {
  readonly code: BlsErrorCode
  constructor(message: string, code: BlsErrorCode) {
    super(message)
    this.name = 'BlsError'
    this.code = code
  }
}
