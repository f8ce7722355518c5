/**
 * The signing message of a typed (EIP-2718) transaction, cut from its signed encoding. ethereumjs encodes it
 * from the tx's fields (`getMessageToSign`: the type byte, then the RLP list of every field but the last three, v,
 * r and s), converting each bigint through a hex string: ~25 us per tx under load, paid on every sent tx by the
 * sender's recovery (recover-ahead.ts). The signed encoding is the type byte and the RLP list of all fields: the
 * items of a list are encoded one after another, each on its own, so the unsigned list's items are, byte for byte,
 * the signed list's items up to v. The cut walks the items' headers, keeps those bytes and writes a new list header
 * for their length: the same bytes as ethereumjs' own encoding, for every typed tx (tx-sender.test.ts compares
 * both for each type).
 */

/** where the RLP item at `at` ends (its header and payload), or -1 when `encoded` is too short */
function itemEnd(encoded: Uint8Array, at: number): number {
  const b = encoded[at]
  if (b === undefined) return -1
  if (b < 0x80) return at + 1
  if (b <= 0xb7) return at + 1 + (b - 0x80)
  if (b < 0xc0) return longEnd(encoded, at, b - 0xb7)
  if (b <= 0xf7) return at + 1 + (b - 0xc0)
  return longEnd(encoded, at, b - 0xf7)
}

/** the end of an item whose length is written in `lengthBytes` bytes after its first byte */
function longEnd(encoded: Uint8Array, at: number, lengthBytes: number): number {
  let length = 0
  for (let i = 1; i <= lengthBytes; i++) {
    const byte = encoded[at + i]
    if (byte === undefined) return -1
    length = length * 256 + byte
  }
  return at + 1 + lengthBytes + length
}

/** an RLP list header for a payload of `length` bytes */
function listHeader(length: number): number[] {
  if (length < 56) return [0xc0 + length]
  const bytes: number[] = []
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256)
  return [0xf7 + bytes.length, ...bytes]
}

/**
 * The type byte and the RLP list of every item of `signed`'s list but the last three: a typed tx's signing message
 * from its signed encoding (`type || rlp([...fields, v, r, s])`). Undefined when `signed` is not such an encoding.
 */
export function unsignedPart(signed: Uint8Array): Uint8Array | undefined {
  const first = signed[1]
  if (signed.length < 2 || first === undefined || first < 0xc0) return undefined
  const payload = first <= 0xf7 ? 2 : 2 + (first - 0xf7)
  if (itemEnd(signed, 1) !== signed.length) return undefined
  const ends: number[] = []
  for (let at = payload; at < signed.length; ) {
    at = itemEnd(signed, at)
    if (at < 0 || at > signed.length) return undefined
    ends.push(at)
  }
  if (ends.length < 3) return undefined
  const cut = ends.length === 3 ? payload : ends[ends.length - 4]!
  const header = listHeader(cut - payload)
  const out = new Uint8Array(1 + header.length + (cut - payload))
  out[0] = signed[0]!
  out.set(header, 1)
  out.set(signed.subarray(payload, cut), 1 + header.length)
  return out
}
