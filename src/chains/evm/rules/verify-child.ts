/**
 * Header checks of a Granite-era child against its parent (reference/cchain.md 5.1, 5.3–5.5), in the reference's
 * order: syntactic checks, min delay excess, time, gas used vs capacity, then gas limit, fee state, base fee, block
 * gas cost and number. Error texts are the reference's. Body checks (tx root, intrinsic gas, block fee, predicates)
 * need the transactions and are left to the executor. Pre-Granite children are rejected as not implemented.
 */
import { keccak_256 } from '@noble/hashes/sha3.js'
import { type AvaHeader, BLACKHOLE, headerHash } from '../header.js'
import { decodeFeeState, FEE_STATE_SIZE, feeStatesEqual, formatFeeState, maxCapacity, price } from './acp176.js'
import { minDelayMs } from './acp226.js'
import { U64_MAX } from './fake-exp.js'
import { childMinDelayExcess, feeStateAfter, feeStateBefore, headerTimeMs } from './fee-steps.js'
import { EMPTY_UNCLE_HASH } from './genesis.js'
import { type EvmPreset, isActive } from './presets.js'

/** How far ahead of the local clock a header may be. */
export const MAX_FUTURE_BLOCK_TIME_MS = 10_000n

const hex = (b: Uint8Array): string => '0x' + Buffer.from(b).toString('hex')
const isZero = (b: Uint8Array): boolean => b.every((x) => x === 0)
const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i])
const bytesToBig = (b: Uint8Array): bigint => b.reduce((n, x) => (n << 8n) | BigInt(x), 0n)

/** EIP-55 mixed-case address, as Go prints a common.Address. */
function checksummed(address: Uint8Array): string {
  const lower = Buffer.from(address).toString('hex')
  const hash = Buffer.from(keccak_256(new TextEncoder().encode(lower))).toString('hex')
  let out = '0x'
  for (let i = 0; i < lower.length; i++) {
    out += Number.parseInt(hash[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i]!
  }
  return out
}

function verifySyntax(child: AvaHeader): void {
  if (child.number > U64_MAX) throw new Error(`invalid block number: ${child.number}`)
  if (child.difficulty !== 1n) throw new Error(`invalid difficulty: ${child.difficulty}`)
  const nonce = bytesToBig(child.nonce)
  if (nonce !== 0n) throw new Error(`expected nonce to be 0 but got ${nonce}: invalid nonce`)
  if (!isZero(child.mixDigest)) throw new Error(`invalid mix digest: ${hex(child.mixDigest)}`)
  if (child.extra.length < FEE_STATE_SIZE) {
    throw new Error(`invalid header.Extra length: expected >= ${FEE_STATE_SIZE} but got ${child.extra.length}`)
  }
  if (!same(child.uncleHash, EMPTY_UNCLE_HASH)) {
    throw new Error(
      `invalid uncle hash ${hex(child.uncleHash)} does not match calculated uncle hash ${hex(EMPTY_UNCLE_HASH)}`,
    )
  }
  if (!same(child.coinbase, BLACKHOLE)) {
    throw new Error(
      `invalid coinbase ${checksummed(child.coinbase)} does not match required blackhole address ${checksummed(BLACKHOLE)}`,
    )
  }
  if (child.baseFee === undefined) throw new Error('nil base fee is invalid after apricotPhase3')
  if (child.blockGasCost === undefined) throw new Error('nil blockGasCost is invalid after apricotPhase4')
  if (child.blockGasCost > U64_MAX) throw new Error(`too large blockGasCost: ${child.blockGasCost}`)
  if (child.parentBeaconRoot === undefined) throw new Error('header is missing parentBeaconRoot')
  if (!isZero(child.parentBeaconRoot)) {
    throw new Error(`invalid non-empty parentBeaconRoot: have ${hex(child.parentBeaconRoot)}, expected empty hash`)
  }
  if (child.blobGasUsed === undefined) throw new Error('blob gas used must not be nil in Cancun')
  if (child.blobGasUsed !== 0n) {
    throw new Error(`blobs not enabled on avalanche networks: used ${child.blobGasUsed} blob gas, expected 0`)
  }
  if (child.excessBlobGas === undefined) throw new Error('invalid excessBlobGas: have nil, expected 0')
  if (child.excessBlobGas !== 0n) throw new Error(`invalid excessBlobGas: have ${child.excessBlobGas}, expected 0`)
}

function verifyTime(parent: AvaHeader, child: AvaHeader, nowMs: bigint): void {
  const parentMs = headerTimeMs(parent)
  const childMs = headerTimeMs(child)
  if (childMs < parentMs) throw new Error(`block timestamp is too old: ${childMs} < parent ${parentMs}`)
  const allowed = nowMs + MAX_FUTURE_BLOCK_TIME_MS
  if (childMs > allowed) throw new Error(`block timestamp is too far in the future: ${childMs} > allowed ${allowed}`)
  if (child.timeMilliseconds === undefined) throw new Error('TimeMilliseconds is required after Granite activation')
  const expected = child.timeMilliseconds / 1000n
  if (child.time !== expected) {
    throw new Error(
      `TimeMilliseconds does not match header.Time: header.Time (${child.time}) != TimeMilliseconds/1000 = (${expected})`,
    )
  }
  if (parent.minDelayExcess === undefined) return
  const actual = childMs - parentMs
  const required = minDelayMs(parent.minDelayExcess)
  if (actual < required) {
    throw new Error(`minimum block delay not met: actual delay ${actual}ms < required ${required}ms`)
  }
}

/** Throws the reference's error for the first rule `child` breaks; `nowMs` is the local clock. */
export function verifyChildHeader(parent: AvaHeader, child: AvaHeader, nowMs: bigint, preset: EvmPreset): void {
  if (!isActive(preset.upgrades, 'granite', child.time)) {
    throw new Error(`pre-Granite block rules are not implemented (block time ${child.time})`)
  }
  if (!same(child.parentHash, headerHash(parent))) throw new Error('unknown ancestor')
  verifySyntax(child)

  if (child.minDelayExcess === undefined) {
    throw new Error(`remote min delay excess should not be nil: ${hex(headerHash(child))}`)
  }
  const expectedDelayExcess = childMinDelayExcess(parent, preset, child.minDelayExcess)
  if (expectedDelayExcess !== child.minDelayExcess) {
    throw new Error(`incorrect min delay excess: expected ${expectedDelayExcess}, found ${child.minDelayExcess}`)
  }
  verifyTime(parent, child, nowMs)

  const extDataGasUsed = child.extDataGasUsed
  if (extDataGasUsed !== undefined && extDataGasUsed > U64_MAX) {
    throw new Error(`invalid extra data gas used: ${extDataGasUsed} is not a uint64`)
  }
  const before = feeStateBefore(parent, preset, headerTimeMs(child))
  const used = child.gasUsed + (extDataGasUsed ?? 0n)
  if (used > U64_MAX) throw new Error('integer overflow while calculating gas used')
  if (used > before.capacity) {
    throw new Error(
      `invalid gas used relative to capacity: invalid gas used: have ${used}, capacity ${before.capacity}`,
    )
  }

  const limit = maxCapacity(before)
  if (child.gasLimit !== limit) throw new Error(`invalid gas limit: have ${child.gasLimit}, want ${limit}`)
  const remote = decodeFeeState(child.extra)
  const expected = feeStateAfter(before, child.gasUsed, extDataGasUsed, remote.targetExcess)
  if (!feeStatesEqual(remote, expected)) {
    throw new Error(`incorrect fee state: expected ${formatFeeState(expected)}, found ${formatFeeState(remote)}`)
  }
  const baseFee = price(before)
  if (child.baseFee !== baseFee) throw new Error(`expected base fee ${baseFee}, found ${child.baseFee}`)
  if (child.blockGasCost !== 0n) throw new Error(`invalid block gas cost: have ${child.blockGasCost}, want 0`)
  if (extDataGasUsed === undefined) throw new Error('extDataGasUsed is nil')
  if (child.number !== parent.number + 1n) throw new Error('invalid block number')
}
