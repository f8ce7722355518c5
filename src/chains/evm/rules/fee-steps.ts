/** The per-block steps shared by building (child-header.ts) and verifying (verify-child.ts) a Granite-era child. */
import type { AvaHeader } from '../header.js'
import { advance, consume, decodeFeeState, type FeeState, moveTarget, ZERO_FEE_STATE } from './acp176.js'
import { moveDelayExcess } from './acp226.js'
import { type EvmPreset, isActive } from './presets.js'

/** A header's time in ms (timeMilliseconds, or time × 1000 before Granite). */
export function headerTimeMs(h: AvaHeader): bigint {
  return h.timeMilliseconds ?? h.time * 1000n
}

/** The ACP-176 state before a child at `timeMs`: the parent's (if it is a Fortuna block other than genesis) or zeros,
 * advanced by the elapsed milliseconds (Granite) or whole seconds (Fortuna). */
export function feeStateBefore(parent: AvaHeader, preset: EvmPreset, timeMs: bigint): FeeState {
  const parentMs = headerTimeMs(parent)
  if (timeMs < parentMs) {
    throw new Error(`invalid timestamp: timestamp ${timeMs / 1000n} prior to parent timestamp ${parent.time}`)
  }
  const start =
    isActive(preset.upgrades, 'fortuna', parent.time) && parent.number !== 0n
      ? decodeFeeState(parent.extra)
      : { ...ZERO_FEE_STATE, targetExcess: preset.initialTargetExcess ?? 0n }
  const timeSec = timeMs / 1000n
  if (isActive(preset.upgrades, 'granite', timeSec)) return advance(start, timeMs - parentMs, true)
  if (isActive(preset.upgrades, 'fortuna', timeSec)) return advance(start, timeSec - parent.time, false)
  return start
}

/** The fee state after a child's gas, with the target moved toward `desiredTargetExcess`. */
export function feeStateAfter(
  before: FeeState,
  gasUsed: bigint,
  extDataGasUsed: bigint | undefined,
  desiredTargetExcessValue?: bigint,
): FeeState {
  return moveTarget(consume(before, gasUsed, extDataGasUsed), desiredTargetExcessValue)
}

/** The parent's minDelayExcess, moved ≤200 toward `desiredExcess`. A pre-Granite parent gives the preset's initial
 * excess: the reference's INITIAL_MIN_DELAY_EXCESS, or 0 under `--dev` (a declared chain whose genesis predates
 * Granite keeps `--dev`'s 1 ms delay, as a dev genesis at Granite does). */
export function childMinDelayExcess(parent: AvaHeader, preset: EvmPreset, desiredExcess?: bigint): bigint {
  let excess = preset.initialMinDelayExcess
  if (isActive(preset.upgrades, 'granite', parent.time)) {
    if (parent.minDelayExcess === undefined) throw new Error('parent min delay excess should not be nil')
    excess = parent.minDelayExcess
  }
  return desiredExcess === undefined ? excess : moveDelayExcess(excess, desiredExcess)
}
