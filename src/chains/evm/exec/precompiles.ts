/**
 * Avalanche's precompiles on top of Cancun: P256VERIFY at 0x100 (EIP-7951, 6900 gas) and the deprecated
 * native-asset precompiles 0x0100..00/01/02, which always revert and give all the supplied gas back
 * (reference/cchain.md 5.6).
 */

import type { CustomPrecompile, ExecResult, PrecompileInput } from '@ethereumjs/evm'
import { EVMError } from '@ethereumjs/evm'
import { p256 } from '@noble/curves/nist.js'

export const P256VERIFY_ADDRESS = '0x0000000000000000000000000000000000000100'
export const P256VERIFY_GAS = 6900n
export const DEPRECATED_PRECOMPILES = [
  '0x0100000000000000000000000000000000000000',
  '0x0100000000000000000000000000000000000001',
  '0x0100000000000000000000000000000000000002',
] as const

const SUCCESS = new Uint8Array(32)
SUCCESS[31] = 1

function verifies(data: Uint8Array): boolean {
  if (data.length !== 160) return false
  const hash = data.subarray(0, 32)
  const sig = data.subarray(32, 96)
  const point = new Uint8Array(65)
  point[0] = 4
  point.set(data.subarray(96, 160), 1)
  try {
    // EIP-7951: 0 < r, s < n (high s allowed), the key on the curve and not infinity; the hash is used as is
    return p256.verify(sig, hash, point, { prehash: false, lowS: false, format: 'compact' })
  } catch {
    return false
  }
}

export function p256Verify(input: PrecompileInput): ExecResult {
  if (input.gasLimit < P256VERIFY_GAS) {
    return {
      returnValue: new Uint8Array(0),
      executionGasUsed: input.gasLimit,
      exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS),
    }
  }
  return { returnValue: verifies(input.data) ? SUCCESS : new Uint8Array(0), executionGasUsed: P256VERIFY_GAS }
}

export function deprecatedPrecompile(_input: PrecompileInput): ExecResult {
  return {
    returnValue: new Uint8Array(0),
    executionGasUsed: 0n,
    exceptionError: new EVMError(EVMError.errorMessages.REVERT),
  }
}

export function avalanchePrecompiles(): CustomPrecompile[] {
  return [
    { address: P256VERIFY_ADDRESS, function: p256Verify },
    ...DEPRECATED_PRECOMPILES.map((address) => ({ address, function: deprecatedPrecompile })),
  ]
}
