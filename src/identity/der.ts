/**
 * The little DER (ASN.1) this package needs: an encoder for building X.509 certificates, and a strict reader
 * in the spirit of Go's `cryptobyte` (definite, minimal lengths; low tag numbers only).
 */

export const Tag = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  SEQUENCE: 0x30,
} as const

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let offset = 0
  for (const p of parts) {
    out.set(p, offset)
    offset += p.length
  }
  return out
}

function lengthBytes(length: number): number[] {
  if (length < 0x80) return [length]
  const bytes: number[] = []
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff)
  return [0x80 | bytes.length, ...bytes]
}

/** One tag-length-value. */
export function tlv(tag: number, ...content: Uint8Array[]): Uint8Array {
  const body = concat(content)
  return concat([Uint8Array.of(tag, ...lengthBytes(body.length)), body])
}

export const sequence = (...items: Uint8Array[]): Uint8Array => tlv(Tag.SEQUENCE, ...items)

/** `[n] EXPLICIT` context-specific constructed wrapper. */
export const explicit = (n: number, ...items: Uint8Array[]): Uint8Array => tlv(0xa0 | n, ...items)

export const boolean = (value: boolean): Uint8Array => tlv(Tag.BOOLEAN, Uint8Array.of(value ? 0xff : 0))

export const octetString = (bytes: Uint8Array): Uint8Array => tlv(Tag.OCTET_STRING, bytes)

export const nullValue = (): Uint8Array => tlv(Tag.NULL)

/** BIT STRING with `unusedBits` padding bits in the last byte. */
export const bitString = (bytes: Uint8Array, unusedBits = 0): Uint8Array =>
  tlv(Tag.BIT_STRING, Uint8Array.of(unusedBits), bytes)

/** INTEGER in minimal two's complement. */
export function integer(value: bigint | number): Uint8Array {
  let v = BigInt(value)
  const bytes: number[] = []
  for (;;) {
    const byte = Number(v & 0xffn)
    bytes.unshift(byte)
    v >>= 8n
    if ((v === 0n && (byte & 0x80) === 0) || (v === -1n && (byte & 0x80) !== 0)) break
  }
  return tlv(Tag.INTEGER, Uint8Array.from(bytes))
}

/** OBJECT IDENTIFIER from dotted text. */
export function oid(dotted: string): Uint8Array {
  const arcs = dotted.split('.').map((a) => BigInt(a))
  const [first = 0n, second = 0n, ...rest] = arcs
  const bytes: number[] = []
  for (const arc of [first * 40n + second, ...rest]) {
    const chunk: number[] = [Number(arc & 0x7fn)]
    for (let v = arc >> 7n; v > 0n; v >>= 7n) chunk.unshift(Number(v & 0x7fn) | 0x80)
    bytes.push(...chunk)
  }
  return tlv(Tag.OID, Uint8Array.from(bytes))
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0')

/** X.509 time as Go writes it: UTCTime for 1950..2049, GeneralizedTime otherwise. */
export function x509Time(date: Date): Uint8Array {
  const year = date.getUTCFullYear()
  const rest = `${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z`
  const ascii = (s: string): Uint8Array => new TextEncoder().encode(s)
  if (year >= 1950 && year < 2050) return tlv(Tag.UTC_TIME, ascii(`${pad(year % 100)}${rest}`))
  return tlv(Tag.GENERALIZED_TIME, ascii(`${pad(year, 4)}${rest}`))
}

/** One element read by `readElement`: its tag, its content, and everything after it. */
export interface DerElement {
  tag: number
  content: Uint8Array
  /** the whole element, header included */
  raw: Uint8Array
  rest: Uint8Array
}

/** Reads one element from the start of `input`; `null` when it is not strict DER. */
export function readElement(input: Uint8Array): DerElement | null {
  if (input.length < 2) return null
  const tag = input[0] as number
  if ((tag & 0x1f) === 0x1f) return null
  const first = input[1] as number
  let length: number
  let header = 2
  if (first < 0x80) length = first
  else {
    const count = first & 0x7f
    if (count === 0 || count > 4 || input.length < 2 + count) return null
    length = 0
    for (let i = 0; i < count; i++) length = length * 256 + (input[2 + i] as number)
    if (length < 0x80 || (input[2] as number) === 0) return null // not minimal
    header += count
  }
  if (input.length < header + length) return null
  return {
    tag,
    content: input.subarray(header, header + length),
    raw: input.subarray(0, header + length),
    rest: input.subarray(header + length),
  }
}

/** Reads one element and requires its tag. */
export function readTagged(input: Uint8Array, tag: number): DerElement | null {
  const element = readElement(input)
  return element !== null && element.tag === tag ? element : null
}

/** INTEGER content -> bigint, rejecting empty and non-minimal encodings (as `cryptobyte`). */
export function integerValue(content: Uint8Array): bigint | null {
  if (content.length === 0) return null
  const b0 = content[0] as number
  const b1 = content[1]
  if (b1 !== undefined && ((b0 === 0 && (b1 & 0x80) === 0) || (b0 === 0xff && (b1 & 0x80) !== 0))) return null
  let v = 0n
  for (const b of content) v = (v << 8n) | BigInt(b)
  if ((b0 & 0x80) !== 0) v -= 1n << BigInt(content.length * 8)
  return v
}

/** BIT STRING content -> right-aligned bytes (Go's `BitString.RightAlign`); `null` when malformed. */
export function bitStringValue(content: Uint8Array): Uint8Array | null {
  if (content.length === 0) return null
  const unused = content[0] as number
  const bytes = content.subarray(1)
  if (unused > 7 || (bytes.length === 0 && unused !== 0)) return null
  if (bytes.length > 0 && ((bytes[bytes.length - 1] as number) & ((1 << unused) - 1)) !== 0) return null
  if (unused === 0) return bytes
  const out = new Uint8Array(bytes.length)
  out[0] = (bytes[0] as number) >> unused
  for (let i = 1; i < bytes.length; i++) {
    out[i] = (((bytes[i - 1] as number) << (8 - unused)) | ((bytes[i] as number) >> unused)) & 0xff
  }
  return out
}

/** OID content well-formed (non-empty base-128 arcs without leading 0x80 bytes)? */
export function isValidOidContent(content: Uint8Array): boolean {
  if (content.length === 0 || ((content[content.length - 1] as number) & 0x80) !== 0) return false
  let start = true
  for (const b of content) {
    if (start && b === 0x80) return false
    start = (b & 0x80) === 0
  }
  return true
}

/** Equal bytes? */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
