/**
 * The signed bytes of the handshake: the IP claim (16-byte IP ‖ port u16 BE ‖ signing time u64 BE, 26 bytes)
 * and the libp2p identity binding ("firn-libp2p-identity:" ‖ libp2p public key protobuf bytes), plus IP helpers.
 */

export const IDENTITY_PREFIX = 'firn-libp2p-identity:'
export const IP_SIGNING_MESSAGE_LEN = 26

/** 4-byte or 16-byte IP as 16 bytes (IPv4-mapped), or null for any other length (the reference's AddrFromSlice). */
export function ip16(ip: Uint8Array): Uint8Array | null {
  if (ip.length === 16) return ip.slice()
  if (ip.length !== 4) return null
  const out = new Uint8Array(16)
  out[10] = 0xff
  out[11] = 0xff
  out.set(ip, 12)
  return out
}

/** ip(16) ‖ port(u16 BE) ‖ signing time(u64 BE); the IP is mapped to 16 bytes first. Throws on a bad IP. */
export function ipSigningMessage(ip: Uint8Array, port: number, signingTime: bigint | number): Uint8Array {
  const ip16Bytes = ip16(ip)
  if (ip16Bytes === null) throw new RangeError(`bad ip: ${ip.length} bytes`)
  const out = new Uint8Array(IP_SIGNING_MESSAGE_LEN)
  out.set(ip16Bytes)
  const view = new DataView(out.buffer)
  view.setUint16(16, port)
  view.setBigUint64(18, BigInt(signingTime))
  return out
}

/** "firn-libp2p-identity:" ‖ the libp2p public key protobuf bytes: what `identity_sig` signs. */
export function identityMessage(libp2pPublicKey: Uint8Array): Uint8Array {
  const prefix = new TextEncoder().encode(IDENTITY_PREFIX)
  const out = new Uint8Array(prefix.length + libp2pPublicKey.length)
  out.set(prefix)
  out.set(libp2pPublicKey, prefix.length)
  return out
}

/** The public key protobuf bytes inside an identity-multihash peer id (Ed25519, secp256k1), else null. */
export function publicKeyOfPeerId(peerId: Uint8Array): Uint8Array | null {
  // identity multihash: code 0x00, one-byte varint length (keys are < 128 bytes), digest = key protobuf
  if (peerId.length < 2 || peerId[0] !== 0x00) return null
  const length = peerId[1] as number
  if (length >= 0x80 || peerId.length !== 2 + length) return null
  return peerId.slice(2)
}

/** Dotted IPv4 for IPv4 and IPv4-mapped addresses, else the full IPv6 text (no zero compression). */
export function ipText(ip: Uint8Array): string {
  const mapped = ip.length === 16 && ip.subarray(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff
  if (ip.length === 4 || mapped) return Array.from(ip.subarray(ip.length - 4)).join('.')
  const groups: string[] = []
  for (let i = 0; i + 1 < ip.length; i += 2)
    groups.push((((ip[i] as number) << 8) | (ip[i + 1] as number)).toString(16))
  return groups.join(':')
}
