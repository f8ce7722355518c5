/**
 * Bech32 as the reference reads it (btcutil's `bech32.Decode`, which also takes a bech32m checksum) with its
 * error texts, and the reference's chain addresses `<chainAlias>-<hrp>1...` (`utils/formatting/address`).
 */
import { AtomicError } from './errors.js'

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'
const GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3]
const BECH32 = 1
const BECH32M = 0x2bc830a3

const fail = (message: string): AtomicError => new AtomicError(message, 'address')

function polymod(values: readonly number[]): number {
  let chk = 1
  for (const v of values) {
    const top = chk >>> 25
    chk = ((chk & 0x1ffffff) << 5) ^ v
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= GEN[i] as number
  }
  return chk >>> 0
}

function hrpExpand(hrp: string): number[] {
  const out: number[] = []
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) >> 5)
  out.push(0)
  for (let i = 0; i < hrp.length; i++) out.push(hrp.charCodeAt(i) & 31)
  return out
}

function checksum(hrp: string, data: readonly number[], constant: number): string {
  const mod = polymod([...hrpExpand(hrp), ...data, 0, 0, 0, 0, 0, 0]) ^ constant
  let out = ''
  for (let i = 0; i < 6; i++) out += CHARSET[(mod >>> (5 * (5 - i))) & 31]
  return out
}

/** `bits` conversion with padding (btcutil's ConvertBits(..., true)). */
function convertBits(data: readonly number[], from: number, to: number): number[] {
  let acc = 0
  let bits = 0
  const out: number[] = []
  const max = (1 << to) - 1
  for (const v of data) {
    acc = (acc << from) | v
    bits += from
    while (bits >= to) {
      bits -= to
      out.push((acc >> bits) & max)
    }
    acc &= (1 << bits) - 1
  }
  if (bits > 0) out.push((acc << (to - bits)) & max)
  return out
}

/** bech32 (BIP-173) of a payload under an HRP. */
export function bech32Encode(hrp: string, payload: Uint8Array): string {
  const data = convertBits([...payload], 8, 5)
  return `${hrp}1${data.map((d) => CHARSET[d]).join('')}${checksum(hrp, data, BECH32)}`
}

/** btcutil's `bech32.Decode` + ConvertBits(5 -> 8): the HRP and the payload, or btcutil's error texts. */
export function bech32Decode(text: string): { hrp: string; payload: Uint8Array } {
  // Go reads the string's UTF-8 bytes: lengths count bytes and a bad byte prints as the rune of its value
  const raw = Buffer.from(text, 'utf8')
  if (raw.length < 8 || raw.length > 90) throw fail(`invalid bech32 string length ${raw.length}`)
  let lower = false
  let upper = false
  for (const c of raw) {
    if (c < 33 || c > 126) throw fail(`invalid character in string: '${String.fromCharCode(c)}'`)
    lower ||= c >= 97 && c <= 122
    upper ||= c >= 65 && c <= 90
    if (lower && upper) throw fail('string not all lowercase or all uppercase')
  }
  const bech = upper ? text.toLowerCase() : text
  const one = bech.lastIndexOf('1')
  if (one < 1 || one + 7 > bech.length) throw fail(`invalid separator index ${one}`)
  const hrp = bech.slice(0, one)
  const decoded: number[] = []
  for (const ch of bech.slice(one + 1)) {
    const v = CHARSET.indexOf(ch)
    if (v < 0) throw fail(`invalid character not part of charset: ${ch.charCodeAt(0)}`)
    decoded.push(v)
  }
  const mod = polymod([...hrpExpand(hrp), ...decoded])
  const data = decoded.slice(0, decoded.length - 6)
  if (mod !== BECH32 && mod !== BECH32M) {
    // btcutil writes the bech32m checksum after the bech32 one into the same builder, so it prints both
    const expected = checksum(hrp, data, BECH32)
    const expectedM = expected + checksum(hrp, data, BECH32M)
    throw fail(`invalid checksum (expected (bech32=${expected}, bech32m=${expectedM}), got ${bech.slice(-6)})`)
  }
  return { hrp, payload: Uint8Array.from(convertBits(data, 5, 8)) }
}

/** `address.Format`: `<chainAlias>-<bech32>`. */
export const formatAddress = (chainAlias: string, hrp: string, shortAddr: Uint8Array): string =>
  `${chainAlias}-${bech32Encode(hrp, shortAddr)}`

/** `address.Parse`: the alias before the first `-`, the HRP and the payload (`no separator found in address`). */
export function parseAddress(text: string): { chainAlias: string; hrp: string; payload: Uint8Array } {
  const sep = text.indexOf('-')
  if (sep < 0) throw fail('no separator found in address')
  const { hrp, payload } = bech32Decode(text.slice(sep + 1))
  return { chainAlias: text.slice(0, sep), hrp, payload }
}
