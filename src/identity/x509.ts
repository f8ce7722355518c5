/**
 * Self-signed X.509 v3 certificates built the way the reference's Go code builds its staking certificate
 * (`staking/tls.go` through `x509.CreateCertificate`). Node's crypto can sign but not build certificates.
 */
import { type KeyObject, sign } from 'node:crypto'
import { bitString, boolean, explicit, integer, nullValue, octetString, oid, sequence, tlv, x509Time } from './der.js'

export const OID = {
  ecPublicKey: '1.2.840.10045.2.1',
  prime256v1: '1.2.840.10045.3.1.7',
  rsaEncryption: '1.2.840.113549.1.1.1',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  keyUsage: '2.5.29.15',
  basicConstraints: '2.5.29.19',
} as const

/** What goes into a self-signed certificate. */
export interface SelfSignedCertInput {
  privateKey: KeyObject
  publicKey: KeyObject
  notBefore: Date
  notAfter: Date
  serial?: bigint
}

/** NotBefore of the reference's staking certificates: `time.Date(2000, time.January, 0, ...)`. */
export const STAKING_CERT_NOT_BEFORE = new Date(Date.UTC(1999, 11, 31, 0, 0, 0))

/** NotAfter of a new staking certificate: now + 100 years, whole seconds (as Go's `AddDate(100, 0, 0)`). */
export function stakingCertNotAfter(now: Date): Date {
  const date = new Date(Math.floor(now.getTime() / 1000) * 1000)
  date.setUTCFullYear(date.getUTCFullYear() + 100)
  return date
}

function signatureAlgorithm(key: KeyObject): Uint8Array {
  if (key.asymmetricKeyType === 'ec') return sequence(oid(OID.ecdsaWithSha256))
  if (key.asymmetricKeyType === 'rsa') return sequence(oid(OID.sha256WithRsa), nullValue())
  throw new Error(`cannot sign a certificate with a ${key.asymmetricKeyType} key`)
}

function extension(id: string, critical: boolean, value: Uint8Array): Uint8Array {
  return sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value))
}

/**
 * DER of a self-signed v3 certificate with an empty subject and issuer, KeyUsage DigitalSignature (critical)
 * and BasicConstraints "not a CA" (critical), signed with SHA-256 (ECDSA or PKCS#1 v1.5).
 */
export function buildSelfSignedCertDer(input: SelfSignedCertInput): Uint8Array {
  const algorithm = signatureAlgorithm(input.privateKey)
  const emptyName = sequence()
  const spki = new Uint8Array(input.publicKey.export({ type: 'spki', format: 'der' }))
  const extensions = sequence(
    extension(OID.keyUsage, true, bitString(Uint8Array.of(0x80), 7)),
    extension(OID.basicConstraints, true, sequence()),
  )
  const tbs = sequence(
    explicit(0, integer(2)),
    integer(input.serial ?? 0n),
    algorithm,
    emptyName,
    sequence(x509Time(input.notBefore), x509Time(input.notAfter)),
    emptyName,
    spki,
    explicit(3, extensions),
  )
  const signature = new Uint8Array(sign('sha256', tbs, input.privateKey))
  return sequence(tbs, algorithm, tlv(0x03, Uint8Array.of(0), signature))
}
