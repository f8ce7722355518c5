/** `0x` hex strings <-> bytes for the atomic values, checking lengths when a value is encoded. */
import { prefixedHex } from '../../../runtime/hex.js'
import { codecError } from './errors.js'
import type { Hex } from './types.js'

export const toHex = (bytes: Uint8Array): Hex => prefixedHex(bytes)

/** A value's bytes; anything but `0x` + 2n lower- or upper-case hex digits is refused with the field's name. */
export function fromHex(hex: Hex, length: number, field: string): Uint8Array {
  if (typeof hex !== 'string' || !/^0x[0-9a-fA-F]*$/.test(hex) || hex.length !== 2 + 2 * length) {
    throw codecError(`${field} must be ${length} bytes as 0x-prefixed hex`)
  }
  return Uint8Array.from(Buffer.from(hex.slice(2), 'hex'))
}

/** The zero ID (the reference's `ids.Empty`). */
export const EMPTY_ID: Hex = `0x${'00'.repeat(32)}`
