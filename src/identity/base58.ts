/**
 * Base58 with the Bitcoin alphabet, decoding errors worded as Go's `mr-tron/base58` (which the reference uses).
 * Each leading zero byte is written as '1'.
 */
import { IdError } from './errors.js'

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const DIGITS: ReadonlyMap<string, number> = new Map([...ALPHABET].map((c, i) => [c, i]))
const GO_ESCAPES: Readonly<Record<number, string>> = { 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r' }

/** Go's `%q` of an ASCII rune: `'0'`, `'\''`, `'\n'`, `'\x00'`. */
function goQuoteAscii(code: number): string {
  const escaped = GO_ESCAPES[code]
  if (escaped !== undefined) return `'\\${escaped}'`
  if (code === 0x27 || code === 0x5c) return `'\\${String.fromCharCode(code)}'`
  if (code < 0x20 || code === 0x7f) return `'\\x${code.toString(16).padStart(2, '0')}'`
  return `'${String.fromCharCode(code)}'`
}

/** Bytes -> Base58 text. */
export function base58Encode(bytes: Uint8Array): string {
  let zeros = 0
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++
  const digits: number[] = [] // little-endian base-58 digits
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i] as number
    for (let j = 0; j < digits.length; j++) {
      carry += (digits[j] as number) << 8
      digits[j] = carry % 58
      carry = (carry / 58) | 0
    }
    while (carry > 0) {
      digits.push(carry % 58)
      carry = (carry / 58) | 0
    }
  }
  let out = '1'.repeat(zeros)
  for (let i = digits.length - 1; i >= 0; i--) out += ALPHABET[digits[i] as number]
  return out
}

/** Base58 text -> bytes; throws `IdError('zero length string' | 'invalid base58 digit (...)' | ...)`. */
export function base58Decode(text: string): Uint8Array {
  if (text.length === 0) throw new IdError('zero length string')
  const values: number[] = []
  for (const char of text) {
    const code = char.codePointAt(0) as number
    if (code > 127) throw new IdError('high-bit set on invalid digit')
    const value = DIGITS.get(char)
    if (value === undefined) throw new IdError(`invalid base58 digit (${goQuoteAscii(code)})`)
    values.push(value)
  }
  let zeros = 0
  while (zeros < values.length && values[zeros] === 0) zeros++
  const bytes: number[] = [] // little-endian base-256 digits
  for (let i = zeros; i < values.length; i++) {
    let carry = values[i] as number
    for (let j = 0; j < bytes.length; j++) {
      carry += (bytes[j] as number) * 58
      bytes[j] = carry & 0xff
      carry >>= 8
    }
    while (carry > 0) {
      bytes.push(carry & 0xff)
      carry >>= 8
    }
  }
  const out = new Uint8Array(zeros + bytes.length)
  for (let i = 0; i < bytes.length; i++) out[out.length - 1 - i] = bytes[i] as number
  return out
}
