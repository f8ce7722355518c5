/**
 * Readers of the C-chain genesis JSON's values with the rules geth/coreth decode them by (core/genesis.go's field
 * types): quantities are math.HexOrDecimal64/256 (a "0x" hex or decimal string, or a JSON integer), byte strings are
 * hexutil.Bytes ("0x" required, even length), hashes and addresses are fixed-length "0x" hex, alloc keys are
 * unprefixed-or-prefixed addresses, storage words are at most 32 bytes of hex. Every error names the field by its
 * path in the genesis (`alloc.0x8db9….balance: …`).
 *
 * Firn rule: a JSON integer above 2^53 is refused (JSON.parse has already rounded it); such numbers are written as
 * strings, as every reference genesis does.
 */
import { FirnError } from '../../../runtime/errors.js'

/** A genesis the EVM cannot run; `path` names the field ('' for the whole genesis). */
export class EvmGenesisError extends FirnError {
  override readonly name = 'EvmGenesisError'
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(path === '' ? problem : `${path}: ${problem}`)
  }
}

export function fail(path: string, problem: string): never {
  throw new EvmGenesisError(path, problem)
}

export const joinPath = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`)

/** A value as an error shows it (JSON, at most 80 characters). */
export function shown(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v)
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

export function kindOf(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'object') return 'an object'
  return `a ${typeof v}`
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * The members of a JSON object by their canonical names. Names match exactly, else case-insensitively (as Go's
 * encoding/json does); a member that matches no known name is an error (Firn is stricter than Go, which ignores it).
 */
export function members(v: unknown, path: string, known: readonly string[]): Map<string, unknown> {
  if (!isObject(v)) fail(path, `expected a JSON object, got ${kindOf(v)}`)
  const folded = new Map(known.map((k) => [k.toLowerCase(), k]))
  const out = new Map<string, unknown>()
  const exact = new Set<string>()
  for (const [key, value] of Object.entries(v)) {
    const name = known.includes(key) ? key : folded.get(key.toLowerCase())
    if (name === undefined) fail(joinPath(path, key), `unknown field (known: ${known.join(', ')})`)
    if (exact.has(name) && name !== key) continue
    if (name === key) exact.add(name)
    out.set(name, value)
  }
  return out
}

function parseQuantityText(s: string): bigint | undefined {
  if (s === '') return 0n
  if (/^0[xX][0-9a-fA-F]+$/.test(s)) return BigInt(`0x${s.slice(2)}`)
  if (/^[0-9]+$/.test(s)) return BigInt(s)
  return undefined
}

/** math.HexOrDecimal64 (bits 64) or math.HexOrDecimal256 (bits 256). */
export function quantity(v: unknown, path: string, bits: 64 | 256): bigint {
  let n: bigint
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || v < 0) {
      fail(path, `${v} is not an integer in [0, 2^53); write larger numbers as "0x..." strings`)
    }
    n = BigInt(v)
  } else if (typeof v === 'string') {
    n = parseQuantityText(v) ?? fail(path, `invalid hex or decimal integer ${shown(v)}`)
  } else {
    fail(path, `expected a hex or decimal integer, got ${kindOf(v)}`)
  }
  if (n >= 1n << BigInt(bits)) fail(path, `${shown(v)} does not fit in ${bits} bits`)
  return n
}

function hexBody(v: unknown, path: string, prefix: 'required' | 'optional'): string {
  if (typeof v !== 'string') fail(path, `expected a hex string, got ${kindOf(v)}`)
  const prefixed = v.startsWith('0x') || v.startsWith('0X')
  if (!prefixed && prefix === 'required') fail(path, `hex string without 0x prefix: ${shown(v)}`)
  const body = prefixed ? v.slice(2) : v
  if (!/^[0-9a-fA-F]*$/.test(body)) fail(path, `invalid hex string: ${shown(v)}`)
  return body
}

/** hexutil.Bytes: "0x" and an even number of hex digits. */
export function hexBytes(v: unknown, path: string): Uint8Array {
  const body = hexBody(v, path, 'required')
  if (body.length % 2 !== 0) fail(path, `hex string of odd length: ${shown(v)}`)
  return Uint8Array.from(Buffer.from(body, 'hex'))
}

/** common.Hash / common.Address: "0x" and exactly `size` bytes. */
export function fixedHex(v: unknown, path: string, size: number): Uint8Array {
  const body = hexBody(v, path, 'required')
  if (body.length !== 2 * size) fail(path, `hex string has length ${body.length}, want ${2 * size}`)
  return Uint8Array.from(Buffer.from(body, 'hex'))
}

/** An alloc key (common.UnprefixedAddress): 40 hex digits, "0x" optional; lower-cased with "0x". */
export function allocAddress(key: string, path: string): string {
  const body = hexBody(key, path, 'optional')
  if (body.length !== 40) fail(path, `an address is 20 bytes (40 hex digits), got ${body.length} digits`)
  return `0x${body.toLowerCase()}`
}

/** A storage slot or value (geth's storageJSON): at most 32 bytes of hex, "0x" optional, left-padded to 32 bytes. */
export function storageWord(v: unknown, path: string): string {
  const body = hexBody(v, path, 'optional')
  if (body.length > 64) fail(path, `too many hex characters in storage key/value ${shown(v)}`)
  if (body.length % 2 !== 0) fail(path, `invalid hex storage key/value ${shown(v)}`)
  return `0x${body.toLowerCase().padStart(64, '0')}`
}
