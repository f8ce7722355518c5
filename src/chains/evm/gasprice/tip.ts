/**
 * Effective tips (geth's `Transaction.EffectiveGasTip`): min(tipCap, feeCap - baseFee); without a base fee the
 * tip cap. Legacy and access-list txs have tipCap = feeCap = gasPrice.
 */
import type { TypedTransaction } from '@ethereumjs/tx'

export function feeCaps(tx: TypedTransaction): { feeCap: bigint; tipCap: bigint } {
  if ('maxFeePerGas' in tx && 'maxPriorityFeePerGas' in tx)
    return { feeCap: tx.maxFeePerGas, tipCap: tx.maxPriorityFeePerGas }
  const price = (tx as { gasPrice: bigint }).gasPrice
  return { feeCap: price, tipCap: price }
}

/** The tip, and whether the fee cap is below the base fee (geth's ErrGasFeeCapTooLow; the tip is then negative). */
export function effectiveGasTip(
  tx: TypedTransaction,
  baseFee: bigint | undefined,
): { tip: bigint; capTooLow: boolean } {
  const { feeCap, tipCap } = feeCaps(tx)
  if (baseFee === undefined) return { tip: tipCap, capTooLow: false }
  const room = feeCap - baseFee
  const capTooLow = feeCap < baseFee
  if (tipCap < room) return { tip: tipCap, capTooLow }
  return { tip: room, capTooLow }
}
