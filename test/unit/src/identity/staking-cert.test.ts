import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import { describe, it } from 'node:test'
import { bitString, explicit, integer, nullValue, oid, sequence, tlv, x509Time } from '../../../../src/identity/der.js'
import { StakingError } from '../../../../src/identity/errors.js'
import { nodeIdFromCertDer } from '../../../../src/identity/ids.js'
import { checkStakingCert } from '../../../../src/identity/staking-cert.js'
import { buildSelfSignedCertDer, OID } from '../../../../src/identity/x509.js'

const spkiOf = (key: KeyObject): Uint8Array => new Uint8Array(key.export({ type: 'spki', format: 'der' }))

/** A structurally valid certificate around any SPKI (the signature is not checked by these rules). */
function certWithSpki(spki: Uint8Array): Uint8Array {
  const algorithm = sequence(oid(OID.ecdsaWithSha256))
  const validity = sequence(x509Time(new Date(Date.UTC(2000, 0, 1))), x509Time(new Date(Date.UTC(2100, 0, 1))))
  const tbs = sequence(explicit(0, integer(2)), integer(0), algorithm, sequence(), validity, sequence(), spki)
  return sequence(tbs, algorithm, bitString(Uint8Array.of(1, 2, 3)))
}

const rsaSpki = (modulus: bigint, exponent: bigint): Uint8Array =>
  sequence(sequence(oid(OID.rsaEncryption), nullValue()), bitString(sequence(integer(modulus), integer(exponent))))

const ecSpki = (curve: string, point: Uint8Array): Uint8Array =>
  sequence(sequence(oid(OID.ecPublicKey), oid(curve)), bitString(point))

function rejects(der: Uint8Array, message: string): void {
  assert.throws(
    () => checkStakingCert(der),
    (err: unknown) =>
      err instanceof StakingError && err.reason === 'STAKING_ERROR_INVALID_CERT' && err.message === message,
  )
}

function selfSigned(privateKey: KeyObject, publicKey: KeyObject): Uint8Array {
  return buildSelfSignedCertDer({
    privateKey,
    publicKey,
    notBefore: new Date(0),
    notAfter: new Date(Date.UTC(2100, 0)),
  })
}

describe('checkStakingCert', () => {
  it('accepts an ECDSA P-256 certificate and gives its NodeID', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const der = selfSigned(privateKey, publicKey)
    const cert = checkStakingCert(der)
    assert.equal(cert.keyType, 'ecdsa-p256')
    assert.equal(cert.nodeId, nodeIdFromCertDer(der))
    assert.deepEqual(spkiOf(cert.publicKey), spkiOf(publicKey))
  })

  it('accepts RSA-4096 and RSA-2048 certificates', () => {
    for (const modulusLength of [4096, 2048]) {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength })
      const der = selfSigned(privateKey, publicKey)
      const cert = checkStakingCert(der)
      assert.equal(cert.keyType, 'rsa')
      assert.equal(cert.nodeId, nodeIdFromCertDer(der))
    }
  })

  it('rejects certificates over 2 KiB', () => {
    rejects(new Uint8Array(2049), 'staking: certificate length is greater than 2048')
  })

  it('accepts only P-256 for ECDSA, with a valid uncompressed point', () => {
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' })
    rejects(selfSigned(p384.privateKey, p384.publicKey), 'only P256 is allowed for ECDSA')
    const k256 = generateKeyPairSync('ec', { namedCurve: 'secp256k1' })
    rejects(certWithSpki(spkiOf(k256.publicKey)), 'only P256 is allowed for ECDSA')
    const offCurve = new Uint8Array(65)
    offCurve[0] = 4
    rejects(certWithSpki(ecSpki(OID.prime256v1, offCurve)), 'staking: failed to unmarshal elliptic curve point')
    const uncompressed = spkiOf(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey).slice(-65)
    const compressed = Uint8Array.of(2 + ((uncompressed[64] ?? 0) & 1), ...uncompressed.subarray(1, 33))
    checkStakingCert(certWithSpki(ecSpki(OID.prime256v1, uncompressed))) // the same point, uncompressed, is fine
    rejects(certWithSpki(ecSpki(OID.prime256v1, compressed)), 'staking: failed to unmarshal elliptic curve point')
  })

  it('applies the reference RSA rules', () => {
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 })
    rejects(certWithSpki(spkiOf(small.publicKey)), 'staking: unsupported RSA modulus bitlen: 1024')
    const e3 = generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 3 })
    rejects(certWithSpki(spkiOf(e3.publicKey)), 'staking: unsupported RSA public exponent: 3')
    rejects(certWithSpki(rsaSpki(1n << 2047n, 65537n)), 'staking: RSA modulus is an even number')
    rejects(certWithSpki(rsaSpki(-(1n << 2047n), 65537n)), 'staking: RSA modulus is not a positive number')
    rejects(certWithSpki(rsaSpki((1n << 2047n) + 1n, 1n << 64n)), 'staking: invalid RSA public exponent')
    const noSequence = sequence(sequence(oid(OID.rsaEncryption), nullValue()), bitString(integer(5)))
    rejects(certWithSpki(noSequence), 'staking: invalid RSA public key')
  })

  it('rejects other key types', () => {
    rejects(certWithSpki(spkiOf(generateKeyPairSync('ed25519').publicKey)), 'key type is not supported')
  })

  it('rejects malformed structures with the reference texts', () => {
    rejects(new Uint8Array(0), 'staking: malformed certificate')
    rejects(sequence(), 'staking: malformed tbs certificate')
    rejects(sequence(tlv(0x30, Uint8Array.of(0xa0, 0x05, 0x01))), 'staking: malformed version')
    rejects(sequence(sequence(explicit(0, integer(2)))), 'staking: malformed serial number')
    rejects(sequence(sequence(integer(0))), 'staking: malformed signature algorithm identifier')
    rejects(sequence(sequence(integer(0), sequence())), 'staking: malformed issuer')
    rejects(sequence(sequence(integer(0), sequence(), sequence())), 'staking: malformed validity')
    rejects(sequence(sequence(integer(0), sequence(), sequence(), sequence())), 'staking: malformed issuer')
    rejects(sequence(sequence(integer(0), sequence(), sequence(), sequence(), sequence())), 'staking: malformed spki')
    rejects(certWithSpki(sequence()), 'staking: malformed public key algorithm identifier')
    rejects(certWithSpki(sequence(sequence(integer(1)))), 'staking: malformed oid')
    rejects(certWithSpki(sequence(sequence(oid(OID.rsaEncryption)))), 'staking: malformed subject public key')
  })
})
