/**
 * The reference's byte encodings (`utils/cb58`, `utils/formatting`): CB58 (Base58 of payload ‖ 4-byte SHA-256
 * checksum), HexNC (`0x` + lower-case hex) and the checksummed Hex form (`0x` + hex of payload ‖ checksum).
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { prefixedHex } from '../runtime/hex.js'
import { base58Decode, base58Encode } from './base58.js'
import { IdError } from './errors.js'

export { IdError } from './errors.js'

const CHECKSUM_LEN = 4

/** The last 4 bytes of SHA-256(payload). */
function checksum(payload: Uint8Array): Uint8Array {
  return sha256(payload).subarray(32 - CHECKSUM_LEN)
}

function withChecksum(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(payload.length + CHECKSUM_LEN)
  out.set(payload)
  out.set(checksum(payload), payload.length)
  return out
}

function stripChecksum(checked: Uint8Array): Uint8Array {
  if (checked.length < CHECKSUM_LEN) throw new IdError('input string is smaller than the checksum size')
  const payload = checked.slice(0, checked.length - CHECKSUM_LEN)
  const expected = checksum(payload)
  for (let i = 0; i < CHECKSUM_LEN; i++) {
    if (checked[payload.length + i] !== expected[i]) throw new IdError('invalid input checksum')
  }
  return payload
}

/** Bytes -> CB58 text. */
export function cb58Encode(bytes: Uint8Array): string {
  return base58Encode(withChecksum(bytes))
}

/** CB58 text -> bytes; throws `IdError` with the reference's texts. */
export function cb58Decode(text: string): Uint8Array {
  let checked: Uint8Array
  try {
    checked = base58Decode(text)
  } catch (err) {
    throw new IdError(`base58 decoding error: ${(err as Error).message}`)
  }
  return stripChecksum(checked)
}

/** Bytes -> HexNC (`0x` + lower-case hex, no checksum). */
export function hexNC(bytes: Uint8Array): string {
  return prefixedHex(bytes)
}

/** HexNC -> bytes; the `0x` prefix is required; an empty string is empty bytes (as the reference). */
export function hexNCDecode(text: string): Uint8Array {
  if (text.length === 0) return new Uint8Array(0)
  if (!text.startsWith('0x')) throw new IdError('missing 0x prefix to hex encoding')
  return goHexDecode(text.slice(2))
}

/** Bytes -> checksummed Hex (`0x` + hex of payload ‖ 4-byte SHA-256 checksum). */
export function hexCEncode(bytes: Uint8Array): string {
  return hexNC(withChecksum(bytes))
}

/** Checksummed Hex -> bytes; throws the reference's prefix, hex and checksum errors. */
export function hexCDecode(text: string): Uint8Array {
  if (text.length === 0) return new Uint8Array(0)
  return stripChecksum(hexNCDecode(text))
}

/** Go's `%#U` of a byte read as a rune: `U+0067 'g'`, or `U+0000` when not printable. */
function goUnicodeVerb(byte: number): string {
  const code = `U+${byte.toString(16).toUpperCase().padStart(4, '0')}`
  const printable = (byte >= 0x20 && byte < 0x7f) || (byte > 0xa0 && byte !== 0xad)
  return printable ? `${code} '${String.fromCharCode(byte)}'` : code
}

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x61 + 10
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x41 + 10
  return -1
}

/** Go's `hex.DecodeString` over the UTF-8 bytes of `text`, with its error texts. */
function goHexDecode(text: string): Uint8Array {
  const src = new TextEncoder().encode(text)
  const out = new Uint8Array(src.length >> 1)
  let j = 1
  for (; j < src.length; j += 2) {
    const hi = hexValue(src[j - 1] as number)
    const lo = hexValue(src[j] as number)
    if (hi < 0) throw new IdError(`encoding/hex: invalid byte: ${goUnicodeVerb(src[j - 1] as number)}`)
    if (lo < 0) throw new IdError(`encoding/hex: invalid byte: ${goUnicodeVerb(src[j] as number)}`)
    out[(j - 1) >> 1] = (hi << 4) | lo
  }
  if (src.length % 2 === 1) {
    const last = src[j - 1] as number
    if (hexValue(last) < 0) throw new IdError(`encoding/hex: invalid byte: ${goUnicodeVerb(last)}`)
    throw new IdError('encoding/hex: odd length hex string')
  }
  return out
}
