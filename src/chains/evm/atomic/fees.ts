/**
 * An atomic tx's gas and burn as the reference counts them (`GasUsed`, `Burned`, `CalculateDynamicFee`,
 * `EffectiveGasPrice`): gas = unsigned bytes + 1000 per signature (an import's sigIndices, an export's inputs)
 * + 10,000 from AP5; the fee in nAVAX = ceil(gas x base fee (wei) / 1e9); 1 nAVAX = 1e9 wei.
 */
import { encodeUnsignedTx } from './codec.js'
import { AtomicError } from './errors.js'
import type { Hex, UnsignedAtomicTx } from './types.js'

export const X2C_RATE = 1_000_000_000n
export const TX_BYTES_GAS = 1n
export const COST_PER_SIGNATURE = 1000n
/** AP5's intrinsic gas per atomic tx */
export const ATOMIC_TX_INTRINSIC_GAS = 10_000n
/** AP5's atomic gas limit per block (before Fortuna) and the mempool's gas cap per tx */
export const ATOMIC_GAS_LIMIT = 100_000n
const MAX_U64 = 0xffffffffffffffffn

const syntax = (message: string): AtomicError => new AtomicError(message, 'syntax')

function add(a: bigint, b: bigint): bigint {
  const sum = a + b
  if (sum > MAX_U64) throw syntax('overflow')
  return sum
}

/** `GasUsed(fixedFee)`: `fixedFee` is AP5+ (the intrinsic gas); the unsigned length is computed if not given. */
export function gasUsed(tx: UnsignedAtomicTx, fixedFee = true, unsignedLength?: number): bigint {
  const bytes = BigInt(unsignedLength ?? encodeUnsignedTx(tx).length) * TX_BYTES_GAS
  const sigs =
    tx.type === 'import'
      ? tx.importedInputs.reduce((n, i) => n + BigInt(i.input.sigIndices.length), 0n)
      : BigInt(tx.inputs.length)
  return add(bytes + sigs * COST_PER_SIGNATURE, fixedFee ? ATOMIC_TX_INTRINSIC_GAS : 0n)
}

/** `Burned(assetID)`: what goes in minus what comes out, in that asset (`overflow` / `underflow`). */
export function burned(tx: UnsignedAtomicTx, assetId: Hex): bigint {
  const same = (a: Hex) => a.toLowerCase() === assetId.toLowerCase()
  let input = 0n
  let spent = 0n
  if (tx.type === 'import') {
    for (const out of tx.outputs) if (same(out.assetId)) spent = add(spent, out.amount)
    for (const i of tx.importedInputs) if (same(i.assetId)) input = add(input, i.input.amount)
  } else {
    for (const out of tx.exportedOutputs) if (same(out.assetId)) spent = add(spent, out.output.amount)
    for (const i of tx.inputs) if (same(i.assetId)) input = add(input, i.amount)
  }
  if (input < spent) throw syntax('underflow')
  return input - spent
}

/** `CalculateDynamicFee`: ceil(gas x baseFee / 1e9) nAVAX. */
export function dynamicFee(gas: bigint, baseFeeWei: bigint): bigint {
  const fee = (gas * baseFeeWei + X2C_RATE - 1n) / X2C_RATE
  if (fee > MAX_U64) throw syntax('overflow occurred while calculating the fee')
  return fee
}

/** `EffectiveGasPrice`: burned AVAX x 1e9 / gas (wei per gas), the mempool's priority. */
export function effectiveGasPrice(tx: UnsignedAtomicTx, avaxAssetId: Hex, fixedFee = true): bigint {
  const gas = gasUsed(tx, fixedFee)
  if (gas === 0n) throw syntax('no gas used')
  return (burned(tx, avaxAssetId) * X2C_RATE) / gas
}
