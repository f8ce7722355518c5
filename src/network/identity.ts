/**
 * The node's libp2p identity and its binding to the staking certificate. libp2p cannot make a PeerId from an
 * ECDSA P-256 key (the reference's staking key type), so the libp2p key is an Ed25519 key derived from the staking
 * key (HKDF-SHA256), and the handshake carries the staking certificate plus the staking key's signature over the
 * libp2p public key. A peer's NodeID is taken from the certificate only after that signature verifies against the
 * key Noise authenticated (protocols/handshake/validate.ts).
 */
import { sign as cryptoSign, verify as cryptoVerify, hkdfSync, X509Certificate } from 'node:crypto'
import { generateKeyPairFromSeed, publicKeyToProtobuf } from '@libp2p/crypto/keys'
import type { PrivateKey } from '@libp2p/interface'
import type { StakingIdentity } from '../identity/staking.js'

const HKDF_INFO = 'firn/libp2p-identity/v1'

/** The Ed25519 libp2p key of a staking identity (the same staking key always gives the same key). */
export async function libp2pKeyOf(staking: StakingIdentity): Promise<PrivateKey> {
  const secret = staking.privateKey.export({ type: 'pkcs8', format: 'der' })
  const seed = new Uint8Array(hkdfSync('sha256', secret, new Uint8Array(0), HKDF_INFO, 32))
  return generateKeyPairFromSeed('Ed25519', seed)
}

/** The libp2p public key as its protobuf bytes (what the identity signature covers). */
export function publicKeyBytes(key: PrivateKey): Uint8Array {
  return publicKeyToProtobuf(key.publicKey)
}

/** Sign with the staking key: ECDSA/RSA over SHA-256, DER for ECDSA (as Go's crypto.Signer does). */
export function stakingSign(staking: StakingIdentity, message: Uint8Array): Uint8Array {
  return new Uint8Array(cryptoSign('sha256', message, staking.privateKey))
}

/** Verify a staking-key signature against a certificate (DER); false on any malformed input. */
export function verifyStakingSig(certDer: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    const cert = new X509Certificate(certDer)
    return cryptoVerify('sha256', message, cert.publicKey, signature)
  } catch {
    return false
  }
}
