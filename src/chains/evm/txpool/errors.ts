/**
 * The tx pool's refusals, with the reference's texts (geth core/txpool/errors.go, core/error.go and
 * legacypool, as coreth wraps them: `<base>: <detail>`). `kind` names the base error so callers can branch
 * without parsing the message.
 */
import { FirnError } from '../../../runtime/errors.js'

export const TX_POOL_ERRORS = {
  alreadyKnown: 'already known',
  invalidSender: 'invalid sender',
  underpriced: 'transaction underpriced',
  replaceUnderpriced: 'replacement transaction underpriced',
  gasLimit: 'exceeds block gas limit',
  negativeValue: 'negative value',
  oversizedData: 'oversized data',
  futureReplacePending: 'future transaction tries to replace pending',
  poolOverflow: 'txpool is full',
  nonceTooLow: 'nonce too low',
  insufficientFunds: 'insufficient funds for gas * price + value',
  intrinsicGas: 'intrinsic gas too low',
  txTypeNotSupported: 'transaction type not supported',
  tipAboveFeeCap: 'max priority fee per gas higher than max fee per gas',
  tipVeryHigh: 'max priority fee per gas higher than 2^256-1',
  feeCapVeryHigh: 'max fee per gas higher than 2^256-1',
  feeCapTooLow: 'max fee per gas less than block base fee',
  maxInitCodeSizeExceeded: 'max initcode size exceeded',
  unprotected: 'only replay-protected (EIP-155) transactions allowed over RPC',
} as const

export type TxPoolErrorKind = keyof typeof TX_POOL_ERRORS

export class TxPoolError extends FirnError {
  override readonly name = 'TxPoolError'
  constructor(
    readonly kind: TxPoolErrorKind,
    detail?: string,
  ) {
    super(detail === undefined ? TX_POOL_ERRORS[kind] : `${TX_POOL_ERRORS[kind]}: ${detail}`)
  }
}

/** The state-transition text for a fee cap below the block's base fee (for the block builder). */
export function feeCapTooLow(address: string, maxFeePerGas: bigint, baseFee: bigint): TxPoolError {
  return new TxPoolError('feeCapTooLow', `address ${address}, maxFeePerGas: ${maxFeePerGas}, baseFee: ${baseFee}`)
}
