/**
 * What a builder sets on a child header before execution, and the extra it writes after (reference/cchain.md 5.1,
 * 5.3–5.5). Only Granite-era rules are implemented: a child whose time is before Granite makes these functions throw
 * (every preset is past Granite for new blocks); the AP3 fee window and AP4 block gas cost are omitted.
 */
import { type AvaHeader, BLACKHOLE, EMPTY_EXT_DATA_HASH, headerHash } from '../header.js'
import { desiredTargetExcess, encodeFeeState, type FeeState, maxCapacity, price } from './acp176.js'
import { desiredDelayExcess } from './acp226.js'
import { childMinDelayExcess, feeStateAfter, feeStateBefore } from './fee-steps.js'
import { EMPTY_UNCLE_HASH } from './genesis.js'
import { type EvmPreset, isActive } from './presets.js'

export { feeStateAfter, feeStateBefore, headerTimeMs } from './fee-steps.js'
export { verifyChildHeader } from './verify-child.js'

export interface ChildOptions {
  /** Desired ACP-176 target, gas/s (overrides preset.gasTarget). */
  gasTarget?: bigint
  /** Desired ACP-226 minimum delay, ms (`min-delay-target`). */
  minDelayTargetMs?: bigint
}

export interface ChildFields {
  parentHash: Uint8Array
  uncleHash: Uint8Array
  number: bigint
  time: bigint
  timeMilliseconds: bigint
  baseFee: bigint
  gasLimit: bigint
  /** Gas available to this block (gasUsed + extDataGasUsed must not exceed it). */
  capacity: bigint
  minDelayExcess: bigint
  blockGasCost: bigint
  extDataHash: Uint8Array
  extDataGasUsed: bigint
  blobGasUsed: bigint
  excessBlobGas: bigint
  parentBeaconRoot: Uint8Array
  difficulty: bigint
  nonce: Uint8Array
  mixDigest: Uint8Array
  coinbase: Uint8Array
  /** The ACP-176 state before this block's gas. */
  feeState: FeeState
  /** header.extra (24 bytes) once gas used is known; throws `insufficient capacity: …` if it does not fit. */
  finishExtra(gasUsed: bigint, extDataGasUsed?: bigint): Uint8Array
}

function requireGranite(preset: EvmPreset, timeSec: bigint): void {
  if (!isActive(preset.upgrades, 'granite', timeSec)) {
    throw new Error(`pre-Granite block rules are not implemented (block time ${timeSec})`)
  }
}

export function childHeaderFields(
  parent: AvaHeader,
  preset: EvmPreset,
  timeMs: bigint,
  opts: ChildOptions = {},
): ChildFields {
  const timeSec = timeMs / 1000n
  requireGranite(preset, timeSec)
  const feeState = feeStateBefore(parent, preset, timeMs)
  const gasTarget = opts.gasTarget ?? preset.gasTarget
  const targetExcess = gasTarget === undefined ? undefined : desiredTargetExcess(gasTarget)
  const delayExcess = opts.minDelayTargetMs === undefined ? undefined : desiredDelayExcess(opts.minDelayTargetMs)
  return {
    parentHash: headerHash(parent),
    uncleHash: EMPTY_UNCLE_HASH,
    number: parent.number + 1n,
    time: timeSec,
    timeMilliseconds: timeMs,
    baseFee: price(feeState),
    gasLimit: maxCapacity(feeState),
    capacity: feeState.capacity,
    minDelayExcess: childMinDelayExcess(parent, preset, delayExcess),
    blockGasCost: 0n,
    extDataHash: EMPTY_EXT_DATA_HASH,
    extDataGasUsed: 0n,
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    parentBeaconRoot: new Uint8Array(32),
    difficulty: 1n,
    nonce: new Uint8Array(8),
    mixDigest: new Uint8Array(32),
    coinbase: BLACKHOLE,
    feeState,
    finishExtra: (gasUsed, extDataGasUsed = 0n) =>
      encodeFeeState(feeStateAfter(feeState, gasUsed, extDataGasUsed, targetExcess)),
  }
}
