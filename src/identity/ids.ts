/**
 * IDs (`ids/*` of the reference): 32-byte IDs and 20-byte short IDs written as CB58, NodeIDs written
 * `NodeID-<cb58>`, and NodeID = RIPEMD-160(SHA-256(DER of the staking certificate)).
 */
import { ripemd160 } from '@noble/hashes/legacy.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { cb58Decode, cb58Encode } from './cb58.js'
import { IdError } from './errors.js'

export const ID_LEN = 32
export const SHORT_ID_LEN = 20
export const NODE_ID_PREFIX = 'NodeID-'
/** The zero ID: primary network ID, primary subnet ID and P-chain ID. */
export const PRIMARY_NETWORK_ID = '11111111111111111111111111111111LpoYY'
/** The zero NodeID. */
export const EMPTY_NODE_ID = 'NodeID-111111111111111111116DBWJs'

function checkLength(bytes: Uint8Array, expected: number): Uint8Array {
  if (bytes.length !== expected) {
    throw new IdError(`invalid hash length: expected ${expected} bytes but got ${bytes.length}`, 'ID_ERROR_LENGTH')
  }
  return bytes
}

/** 32-byte ID -> CB58. */
export function idToString(id: Uint8Array): string {
  return cb58Encode(checkLength(id, ID_LEN))
}

/** CB58 -> 32-byte ID; CB58 errors first, then `invalid hash length: expected 32 bytes but got N`. */
export function idFromString(text: string): Uint8Array {
  return checkLength(cb58Decode(text), ID_LEN)
}

/** 20-byte short ID -> CB58. */
export function shortIdToString(id: Uint8Array): string {
  return cb58Encode(checkLength(id, SHORT_ID_LEN))
}

/** CB58 -> 20-byte short ID; CB58 errors first, then `invalid hash length: expected 20 bytes but got N`. */
export function shortIdFromString(text: string): Uint8Array {
  return checkLength(cb58Decode(text), SHORT_ID_LEN)
}

/** 20-byte NodeID -> `NodeID-<cb58>`. */
export function nodeIdToString(nodeId: Uint8Array): string {
  return NODE_ID_PREFIX + shortIdToString(nodeId)
}

/** `NodeID-<cb58>` -> 20 bytes; a missing prefix gives `ID: <s> is missing the prefix: NodeID-`. */
export function nodeIdFromString(text: string): Uint8Array {
  if (!text.startsWith(NODE_ID_PREFIX)) {
    throw new IdError(`ID: ${text} is missing the prefix: ${NODE_ID_PREFIX}`, 'ID_ERROR_PREFIX')
  }
  return shortIdFromString(text.slice(NODE_ID_PREFIX.length))
}

/** An ASCII name zero-padded to 32 bytes (how the reference names VMs: `evm`, `platformvm`, `avm`). */
export function idFromAscii(name: string): Uint8Array {
  if (!/^[\x00-\x7f]*$/.test(name)) throw new IdError(`not an ASCII name: ${name}`)
  if (name.length > ID_LEN) {
    throw new IdError(`invalid hash length: expected at most ${ID_LEN} bytes but got ${name.length}`, 'ID_ERROR_LENGTH')
  }
  const id = new Uint8Array(ID_LEN)
  for (let i = 0; i < name.length; i++) id[i] = name.charCodeAt(i)
  return id
}

/** NodeID bytes of a staking certificate: RIPEMD-160(SHA-256(DER)). */
export function nodeIdBytesFromCertDer(certDer: Uint8Array): Uint8Array {
  return ripemd160(sha256(certDer))
}

/** `NodeID-<cb58>` of a staking certificate. */
export function nodeIdFromCertDer(certDer: Uint8Array): string {
  return nodeIdToString(nodeIdBytesFromCertDer(certDer))
}
