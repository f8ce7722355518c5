/**
 * Revert data as geth reports it (accounts/abi.UnpackRevert, internal/ethapi newRevertError): `Error(string)`
 * gives its reason, `Panic(uint256)` a fixed text per code, anything else (custom errors) no reason. The RPC
 * error is code 3, `execution reverted[: <reason>]`, with the revert bytes as hex in `data`.
 */
import { ErrorCode, FirnError } from '../../../runtime/errors.js'
import { hex } from './hexutil.js'

export const EXECUTION_REVERTED = 'execution reverted'

const ERROR_SELECTOR = 0x08c379a0
const PANIC_SELECTOR = 0x4e487b71

const PANIC_REASONS = new Map<bigint, string>([
  [0x00n, 'generic panic'],
  [0x01n, 'assert(false)'],
  [0x11n, 'arithmetic underflow or overflow'],
  [0x12n, 'division or modulo by zero'],
  [0x21n, 'enum overflow'],
  [0x22n, 'invalid encoded storage byte array accessed'],
  [0x31n, 'out-of-bounds array access; popping on an empty array'],
  [0x32n, 'out-of-bounds access of an array or bytesN'],
  [0x41n, 'out of memory'],
  [0x51n, 'uninitialized function'],
])

const word = (b: Uint8Array, at: number): bigint => BigInt(hex(b.subarray(at, at + 32)))

/** The ABI `string` at the head of `body`, or undefined where geth's unpacker fails. */
function abiString(body: Uint8Array): string | undefined {
  if (body.length < 32) return undefined
  const offset = word(body, 0)
  if (offset + 32n > BigInt(body.length)) return undefined
  const length = word(body, Number(offset))
  const start = Number(offset) + 32
  if (BigInt(start) + length > BigInt(body.length)) return undefined
  return new TextDecoder().decode(body.subarray(start, start + Number(length)))
}

/** abi.UnpackRevert: the reason, or undefined when the data is neither Error(string) nor Panic(uint256). */
export function unpackRevert(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined
  const selector = ((data[0]! << 24) | (data[1]! << 16) | (data[2]! << 8) | data[3]!) >>> 0
  const body = data.subarray(4)
  if (selector === ERROR_SELECTOR) return abiString(body)
  if (selector === PANIC_SELECTOR) {
    if (body.length < 32) return undefined
    const code = word(body, 0)
    return PANIC_REASONS.get(code) ?? `unknown panic code: 0x${code.toString(16)}`
  }
  return undefined
}

/** `execution reverted` or `execution reverted: <reason>`. */
export function revertMessage(data: Uint8Array): string {
  const reason = unpackRevert(data)
  return reason === undefined ? EXECUTION_REVERTED : `${EXECUTION_REVERTED}: ${reason}`
}

/** geth's revertError: code 3, the message above, data = the revert bytes. */
export function revertError(data: Uint8Array): FirnError {
  return new FirnError(revertMessage(data), ErrorCode.revert, hex(data))
}
