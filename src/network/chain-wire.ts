/**
 * Conversions between the chain protocols' wire fields and the chain router's API: IDs are 32 bytes on the wire,
 * block IDs lowercase 0x-hex strings and chain IDs CB58 strings in TypeScript. Readers return undefined for a
 * malformed field (the message is then dropped); writers throw on a malformed argument (a caller's bug).
 */
import type { Chits } from '../../actors/consensus/types.js'
import type { Chits as WireChits } from '../../protocols/consensus/service.js'
import { hexNC } from '../identity/cb58.js'
import { ID_LEN, idFromString, idToString } from '../identity/ids.js'

const BLOCK_ID = /^0x[0-9a-f]{64}$/

/** `0x` + 64 lowercase hex digits -> 32 bytes; throws a RangeError otherwise. */
export function blockIdBytes(id: string): Uint8Array {
  if (!BLOCK_ID.test(id)) throw new RangeError(`invalid block ID ${JSON.stringify(id)}: want 0x and 64 lowercase hex`)
  return Uint8Array.from(Buffer.from(id.slice(2), 'hex'))
}

/** 32 bytes -> `0x...`; undefined for any other length */
export const blockIdOf = (bytes: Uint8Array): string | undefined =>
  bytes.byteLength === ID_LEN ? hexNC(bytes) : undefined

/** 32 bytes -> CB58 chain ID; undefined for any other length */
export const chainIdOf = (bytes: Uint8Array): string | undefined =>
  bytes.byteLength === ID_LEN ? idToString(bytes) : undefined

/** CB58 chain ID -> 32 bytes; throws the ID errors of src/identity/ids.ts */
export const chainIdBytes = (chainId: string): Uint8Array => idFromString(chainId)

/** every ID, or undefined if one is malformed */
export function blockIdsOf(list: readonly Uint8Array[]): string[] | undefined {
  const ids: string[] = []
  for (const bytes of list) {
    const id = blockIdOf(bytes)
    if (id === undefined) return undefined
    ids.push(id)
  }
  return ids
}

/** A non-negative safe integer height, or undefined. */
export const heightOf = (n: number): number | undefined => (Number.isSafeInteger(n) && n >= 0 ? n : undefined)

export function chitsToWire(chainId: Uint8Array, chits: Chits): WireChits {
  return {
    chainId,
    preferredId: blockIdBytes(chits.preferredId),
    preferredIdAtHeight: blockIdBytes(chits.preferredIdAtHeight),
    acceptedId: blockIdBytes(chits.acceptedId),
    acceptedHeight: chits.acceptedHeight,
  }
}

export function chitsFromWire(wire: WireChits): Chits | undefined {
  const preferredId = blockIdOf(wire.preferredId)
  const preferredIdAtHeight = blockIdOf(wire.preferredIdAtHeight)
  const acceptedId = blockIdOf(wire.acceptedId)
  const acceptedHeight = heightOf(wire.acceptedHeight)
  if (
    preferredId === undefined ||
    preferredIdAtHeight === undefined ||
    acceptedId === undefined ||
    acceptedHeight === undefined
  ) {
    return undefined
  }
  return { preferredId, preferredIdAtHeight, acceptedId, acceptedHeight }
}
