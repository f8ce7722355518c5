/**
 * secp256k1 signing as geth's crypto package does it: 65-byte [R || S || V] signatures with V = 0/1, EIP-191
 * text hashes (accounts.TextHash) and public-key recovery to an address.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { keccak_256 } from '@noble/hashes/sha3.js'

/** keccak256("\x19Ethereum Signed Message:\n" + len(data) + data) */
export function textHash(data: Uint8Array): Uint8Array {
  const prefix = Buffer.from(`\x19Ethereum Signed Message:\n${data.length}`, 'latin1')
  return keccak_256(Buffer.concat([prefix, data]))
}

/** crypto.Sign: [R || S || V], V = 0 or 1, low S. */
export function signHash(hash: Uint8Array, key: Uint8Array): Uint8Array {
  const rec = secp256k1.sign(hash, key, { prehash: false, format: 'recovered' })
  const out = new Uint8Array(65)
  out.set(rec.subarray(1, 65), 0)
  out[64] = rec[0]!
  return out
}

/** crypto.SigToPub + PubkeyToAddress for a [R || S || V] signature with V = 0/1; geth's `recovery failed`. */
export function recoverAddress(hash: Uint8Array, sig: Uint8Array): string {
  const v = sig[64]
  if (sig.length !== 65 || v === undefined || v > 3) throw new Error('invalid signature recovery id')
  let pub: Uint8Array
  try {
    const rec = new Uint8Array(65)
    rec[0] = v
    rec.set(sig.subarray(0, 64), 1)
    const point = secp256k1.Signature.fromBytes(rec, 'recovered').recoverPublicKey(hash)
    pub = point.toBytes(false)
  } catch {
    throw new Error('recovery failed')
  }
  return `0x${Buffer.from(keccak_256(pub.subarray(1)))
    .subarray(12)
    .toString('hex')}`
}
