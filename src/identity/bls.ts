/**
 * BLS12-381, minimal-pubkey variant (public keys in G1, 48 bytes; signatures in G2, 96 bytes), as the
 * reference's `utils/crypto/bls` over blst: signing, proofs of possession, parsing and the `signer.key` file.
 */
import { randomBytes } from 'node:crypto'
import { bls12_381 } from '@noble/curves/bls12-381.js'
import { expand, extract } from '@noble/hashes/hkdf.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { hexNC } from './cb58.js'
import { BlsError } from './errors.js'
import { ensureParentDir, goPathError, pathExists, readCapped, writeKeyFile } from './files.js'

/** DST of ordinary signatures. */
export const SIGNATURE_DST = 'BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_'
/** DST of proofs of possession and of the handshake's IP signature. */
export const POP_DST = 'BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_'
export const SECRET_KEY_LEN = 32
export const PUBLIC_KEY_LEN = 48
export const SIGNATURE_LEN = 96

const bls = bls12_381.longSignatures
const CURVE_ORDER = bls12_381.fields.Fr.ORDER
/** Larger signer key files are refused without reading them. */
const MAX_SIGNER_FILE_LEN = 4096

/** A parsed, validated G1 public key. */
export type BlsPublicKey = ReturnType<typeof bls.getPublicKey>
/** A parsed, validated G2 signature. */
export type BlsSignature = ReturnType<typeof bls.Signature.fromBytes>

/** The node's BLS signer. */
export interface BlsSigner {
  /** 48-byte compressed public key */
  readonly publicKey: Uint8Array
  /** 96-byte signature with the signature DST */
  sign(message: Uint8Array): Uint8Array
  /** 96-byte signature with the proof-of-possession DST (also the handshake's IP signature) */
  signProofOfPossession(message: Uint8Array): Uint8Array
  /** `info.getNodeID`'s `nodePOP`: HexNC public key and proof of possession over it */
  proofOfPossession(): { publicKey: string; proofOfPossession: string }
}

/** The IETF KeyGen blst uses (`blst_keygen`, also EIP-2333's master key): HKDF-SHA256 to a non-zero scalar. */
export function blsKeyGen(ikm: Uint8Array): Uint8Array {
  if (ikm.length < 32) throw new BlsError('key material must be at least 32 bytes', 'BLS_ERROR_SECRET_KEY')
  const input = new Uint8Array(ikm.length + 1) // IKM || I2OSP(0, 1)
  input.set(ikm)
  const info = Uint8Array.of(0, 48) // key_info (empty) || I2OSP(L, 2)
  let salt = sha256(new TextEncoder().encode('BLS-SIG-KEYGEN-SALT-'))
  for (;;) {
    const okm = expand(sha256, extract(sha256, input, salt), info, 48)
    const sk = BigInt(hexNC(okm)) % CURVE_ORDER
    if (sk !== 0n) return Uint8Array.from(Buffer.from(sk.toString(16).padStart(64, '0'), 'hex'))
    salt = sha256(salt)
  }
}

function checkSecretKey(bytes: Uint8Array): void {
  const value = bytes.length === SECRET_KEY_LEN ? BigInt(hexNC(bytes)) : 0n
  if (value === 0n || value >= CURVE_ORDER)
    throw new BlsError("couldn't deserialize secret key", 'BLS_ERROR_SECRET_KEY')
}

/** A signer over a 32-byte big-endian secret key; throws `couldn't deserialize secret key`. */
export function signerFromSecretKey(secretKey: Uint8Array): BlsSigner {
  checkSecretKey(secretKey)
  const sk = Uint8Array.from(secretKey)
  const publicKey = bls.getPublicKey(sk).toBytes(true)
  const signWith = (message: Uint8Array, dst: string): Uint8Array =>
    bls.Signature.toBytes(bls.sign(bls.hash(message, dst), sk))
  let pop: { publicKey: string; proofOfPossession: string } | undefined
  return {
    publicKey,
    sign: (message) => signWith(message, SIGNATURE_DST),
    signProofOfPossession: (message) => signWith(message, POP_DST),
    proofOfPossession: () => {
      pop ??= { publicKey: hexNC(publicKey), proofOfPossession: hexNC(signWith(publicKey, POP_DST)) }
      return { ...pop }
    },
  }
}

/** A signer with a fresh random key (`--staking-ephemeral-signer-enabled`). */
export function newSigner(): BlsSigner {
  return signerFromSecretKey(blsKeyGen(randomBytes(32)))
}

/** The secret key bytes a new `signer.key` holds. */
export function newSecretKey(): Uint8Array {
  return blsKeyGen(randomBytes(32))
}

/**
 * Loads `signer.key` (32 raw bytes), creating it (mode 0400, directory 0750) when absent and not set explicitly.
 * Errors use the reference's texts: `missing staking signing key file`, `couldn't parse signing key: ...`.
 */
export async function loadOrCreateSigner(options: { path: string; explicit: boolean }): Promise<BlsSigner> {
  const { path } = options
  if (await pathExists(path)) {
    let bytes: Uint8Array
    try {
      bytes = await readCapped(path, MAX_SIGNER_FILE_LEN)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === undefined) {
        throw new BlsError("couldn't parse signing key: couldn't deserialize secret key", 'BLS_ERROR_SECRET_KEY')
      }
      throw new BlsError(goPathError('open', path, err), 'BLS_ERROR_IO')
    }
    try {
      return signerFromSecretKey(bytes)
    } catch (err) {
      throw new BlsError(`couldn't parse signing key: ${(err as Error).message}`, 'BLS_ERROR_SECRET_KEY')
    }
  }
  if (options.explicit) throw new BlsError('missing staking signing key file', 'BLS_ERROR_MISSING_FILE')
  const secretKey = newSecretKey()
  try {
    await ensureParentDir(path)
  } catch (err) {
    throw new BlsError(`couldn't create path for signing key at ${path}: ${(err as Error).message}`, 'BLS_ERROR_IO')
  }
  try {
    await writeKeyFile(path, secretKey)
  } catch (err) {
    throw new BlsError(`couldn't write new signing key to ${path}: ${(err as Error).message}`, 'BLS_ERROR_IO')
  }
  return signerFromSecretKey(secretKey)
}

/** 48 compressed bytes -> public key; `couldn't decompress public key` / `invalid public key` (infinity, subgroup). */
export function blsPublicKeyFromBytes(bytes: Uint8Array): BlsPublicKey {
  if (bytes.length !== PUBLIC_KEY_LEN || ((bytes[0] as number) & 0x80) === 0) {
    throw new BlsError("couldn't decompress public key", 'BLS_ERROR_PUBLIC_KEY')
  }
  let point: BlsPublicKey
  try {
    point = bls12_381.G1.Point.fromBytes(bytes)
  } catch (err) {
    const notInSubgroup = (err as Error).message.includes('subgroup')
    throw new BlsError(notInSubgroup ? 'invalid public key' : "couldn't decompress public key", 'BLS_ERROR_PUBLIC_KEY')
  }
  if (point.is0()) throw new BlsError('invalid public key', 'BLS_ERROR_PUBLIC_KEY')
  return point
}

/** 96 compressed bytes -> signature; `couldn't decompress signature` / `invalid signature` (not in the subgroup). */
export function blsSignatureFromBytes(bytes: Uint8Array): BlsSignature {
  if (bytes.length !== SIGNATURE_LEN) throw new BlsError("couldn't decompress signature", 'BLS_ERROR_SIGNATURE')
  try {
    return bls.Signature.fromBytes(bytes)
  } catch (err) {
    const notInSubgroup = (err as Error).message.includes('subgroup')
    throw new BlsError(notInSubgroup ? 'invalid signature' : "couldn't decompress signature", 'BLS_ERROR_SIGNATURE')
  }
}

function verifyWith(
  dst: string,
  publicKey: Uint8Array | BlsPublicKey,
  message: Uint8Array,
  signature: Uint8Array | BlsSignature,
): boolean {
  try {
    const pk = publicKey instanceof Uint8Array ? blsPublicKeyFromBytes(publicKey) : publicKey
    const sig = signature instanceof Uint8Array ? blsSignatureFromBytes(signature) : signature
    if (sig.is0()) return false
    return bls.verify(sig, bls.hash(message, dst), pk)
  } catch {
    return false
  }
}

/** Does `signature` (signature DST) over `message` verify against `publicKey`? Bad input gives false. */
export function verifySignature(
  publicKey: Uint8Array | BlsPublicKey,
  message: Uint8Array,
  signature: Uint8Array | BlsSignature,
): boolean {
  return verifyWith(SIGNATURE_DST, publicKey, message, signature)
}

/** Does `signature` (proof-of-possession DST) over `message` verify against `publicKey`? Bad input gives false. */
export function verifyProofOfPossession(
  publicKey: Uint8Array | BlsPublicKey,
  message: Uint8Array,
  signature: Uint8Array | BlsSignature,
): boolean {
  return verifyWith(POP_DST, publicKey, message, signature)
}
