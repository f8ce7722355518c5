/**
 * Avalanche's two differences in how state is laid out (reference/cchain.md 5.6):
 * - the account RLP has a 5th field `isMultiCoin` (false encodes as 0x80);
 * - every storage slot key has bit 0 of byte 0 cleared before use, so slots 0x01.. and 0x00.. alias.
 */
import { RLP } from '@ethereumjs/rlp'

/** RLP item for false: the empty string, encoded 0x80 */
const FALSE = new Uint8Array(0)

/** The 5-field account RLP from ethereumjs' 4-field one; an input that already has 5 fields is returned as is.
 * Firn has no multicoin balances, so the flag written is always false. */
export function withMultiCoin(accountRlp: Uint8Array): Uint8Array {
  const fields = RLP.decode(accountRlp)
  if (!Array.isArray(fields) || fields.length !== 4) return accountRlp
  return RLP.encode([...(fields as Uint8Array[]), FALSE])
}

/** A copy of the 32-byte key with bit 0 of byte 0 cleared; the key itself is returned when already normal. */
export function normaliseStorageKey(key: Uint8Array): Uint8Array {
  if (key.length === 0 || (key[0]! & 1) === 0) return key
  const out = key.slice()
  out[0] = out[0]! & 0xfe
  return out
}
