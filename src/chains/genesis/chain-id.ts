/**
 * The ID of a chain declared in the genesis file without an `id` (docs/operations.md, "Chain IDs"):
 *
 *   chainId = CB58( SHA-256( UTF-8( canonicalJson([CHAIN_ID_DOMAIN, networkId, name, vm, genesis]) ) ) )
 *
 * where canonicalJson is RFC 8785 (JSON Canonicalization Scheme): no whitespace, object members sorted by their
 * names' UTF-16 code units, strings and numbers written as ECMAScript's JSON.stringify writes them. `vm` is the
 * string as declared (`evm`, a plugin VM's alias or its CB58 ID). CB58 is the reference's: base58 of the 32 bytes
 * followed by the last 4 bytes of their SHA-256.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { idToString } from '../../identity/ids.js'

export const CHAIN_ID_DOMAIN = 'firn/chain-id/v1'

/** RFC 8785 text of a JSON value (throws on values JSON cannot hold: undefined, functions, NaN, Infinity). */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`not a JSON number: ${value}`)
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return JSON.stringify(value)
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>
    const members = Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`)
    return `{${members.join(',')}}`
  }
  throw new TypeError(`not a JSON value: ${typeof value}`)
}

/** The bytes a declared chain's ID is the SHA-256 of. */
export function chainIdPreimage(networkId: number, name: string, vm: string, genesis: unknown): Uint8Array {
  return new TextEncoder().encode(canonicalJson([CHAIN_ID_DOMAIN, networkId, name, vm, genesis]))
}

export function deriveChainId(networkId: number, name: string, vm: string, genesis: unknown): string {
  return idToString(sha256(chainIdPreimage(networkId, name, vm, genesis)))
}
