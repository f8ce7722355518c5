/**
 * Atomic signatures as the reference makes and checks them: the message is SHA-256 of the unsigned bytes; a
 * signature is 65 bytes r ‖ s ‖ v with v in {0, 1}; low S is required (`signature was mutated from its original
 * format`); the signer is recovered, as a short address (RIPEMD-160(SHA-256(compressed key))) for an import's
 * UTXO owners and as an EVM address (keccak) for an export's inputs.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { shortAddressOf } from './address.js'
import { encodeTx, encodeUnsignedTx } from './codec.js'
import { AtomicError } from './errors.js'
import { fromHex, toHex } from './hex.js'
import type { AtomicTx, Credential, Hex, UnsignedAtomicTx } from './types.js'

const N = secp256k1.Point.CURVE().n
const HALF_N = N >> 1n

const fail = (message: string): AtomicError => new AtomicError(message, 'signature')

/** SHA-256 of the unsigned bytes: what every credential signs. */
export const signingHash = (unsignedBytes: Uint8Array): Uint8Array => sha256(unsignedBytes)

/** A 65-byte r ‖ s ‖ v signature of a 32-byte hash (RFC 6979, low S), as the reference's `SignHash`. */
export function signHash(hash: Uint8Array, privateKey: Uint8Array): Hex {
  const rec = secp256k1.sign(hash, privateKey, { prehash: false, format: 'recovered' })
  const out = new Uint8Array(65)
  out.set(rec.subarray(1, 65), 0)
  out[64] = rec[0] as number
  return toHex(out)
}

/** `RecoverPublicKeyFromHash`: the 33-byte compressed public key, or the reference's errors. */
export function recoverPublicKey(hash: Uint8Array, signature: Hex): Uint8Array {
  if (typeof signature !== 'string' || signature.length !== 132) throw fail('invalid signature length')
  const sig = fromHex(signature, 65, 'signature')
  const s = BigInt(toHex(sig.subarray(32, 64)))
  // Go's scalar takes S modulo N before the check
  if (s % N > HALF_N) throw fail('signature was mutated from its original format')
  // Go adds 27 (in a byte); RecoverCompact takes 27..34, where 31..34 mean a compressed key, refused after recovery
  const code = ((sig[64] as number) + 27) & 0xff
  if (code < 27 || code > 34) throw fail('invalid signature')
  let key: Uint8Array
  try {
    const rec = new Uint8Array(65)
    rec[0] = (code - 27) & 3
    rec.set(sig.subarray(0, 64), 1)
    key = secp256k1.Signature.fromBytes(rec, 'recovered').recoverPublicKey(hash).toBytes(true)
  } catch {
    throw fail('invalid signature')
  }
  if (code >= 31) throw fail("wasn't expecting a compressed key")
  return key
}

/** The short address (20 bytes) that signed `hash`. */
export const recoverShortAddress = (hash: Uint8Array, signature: Hex): Hex =>
  shortAddressOf(recoverPublicKey(hash, signature))

/** The EVM address (keccak of the uncompressed key) that signed `hash`. */
export function recoverEvmAddress(hash: Uint8Array, signature: Hex): Hex {
  const key = secp256k1.Point.fromBytes(recoverPublicKey(hash, signature)).toBytes(false)
  return toHex(keccak_256(key.subarray(1)).subarray(12))
}

/** The short address of a private key. */
export const shortAddressOfKey = (privateKey: Uint8Array): Hex =>
  shortAddressOf(secp256k1.getPublicKey(privateKey, true))

/** The EVM address of a private key. */
export const evmAddressOfKey = (privateKey: Uint8Array): Hex =>
  toHex(keccak_256(secp256k1.getPublicKey(privateKey, false).subarray(1)).subarray(12))

/** `Tx.Sign`: one credential per entry of `signers` (one list of keys per input, in input order). */
export function signTx(unsigned: UnsignedAtomicTx, signers: readonly (readonly Uint8Array[])[]): AtomicTx {
  const hash = signingHash(encodeUnsignedTx(unsigned))
  const credentials: Credential[] = signers.map((keys) => ({ signatures: keys.map((k) => signHash(hash, k)) }))
  const tx = { unsigned, credentials }
  encodeTx(tx) // the signed tx must encode (the reference marshals it in Sign)
  return tx
}

/** Each credential's signers as short addresses (import: compare with the UTXOs' owners at the sigIndices). */
export function recoverSigners(tx: AtomicTx): Hex[][] {
  const hash = signingHash(encodeUnsignedTx(tx.unsigned))
  return tx.credentials.map((c) => c.signatures.map((s) => recoverShortAddress(hash, s)))
}
