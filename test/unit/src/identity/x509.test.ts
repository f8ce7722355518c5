import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { generateKeyPairSync, X509Certificate } from 'node:crypto'
import { describe, it } from 'node:test'
import { buildSelfSignedCertDer, STAKING_CERT_NOT_BEFORE, stakingCertNotAfter } from '../../../../src/identity/x509.js'

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex')

describe('self-signed certificates', () => {
  it('builds the staking certificate the reference builds, and it verifies', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const now = new Date(Date.UTC(2025, 5, 15, 12, 30, 45, 678))
    const der = buildSelfSignedCertDer({
      privateKey,
      publicKey,
      notBefore: STAKING_CERT_NOT_BEFORE,
      notAfter: stakingCertNotAfter(now),
    })
    const cert = new X509Certificate(der)
    assert.equal(cert.verify(cert.publicKey), true)
    assert.equal(cert.subject ?? '', '')
    assert.equal(cert.issuer ?? '', '')
    assert.equal(cert.ca, false)
    assert.equal(cert.validFrom, 'Dec 31 00:00:00 1999 GMT')
    assert.equal(cert.validTo, 'Jun 15 12:30:45 2125 GMT')
    assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1')
    assert.ok(
      cert.publicKey.export({ type: 'spki', format: 'der' }).equals(publicKey.export({ type: 'spki', format: 'der' })),
    )
    const text = hex(der)
    assert.ok(text.includes('a003020102020100'), 'version v3, serial 0')
    assert.ok(text.includes('300a06082a8648ce3d040302'), 'ecdsa-with-SHA256')
    const notBefore = `170d${Buffer.from('991231000000Z').toString('hex')}`
    const notAfter = `180f${Buffer.from('21250615123045Z').toString('hex')}`
    // signature algorithm, empty issuer, validity (UTCTime, GeneralizedTime), empty subject, P-256 SPKI
    assert.ok(text.includes(`300a06082a8648ce3d0403023000${'3020'}${notBefore}${notAfter}3000305930130607`))
    assert.ok(text.includes('300e0603551d0f0101ff040403020780'), 'KeyUsage DigitalSignature, critical')
    assert.ok(text.includes('300c0603551d130101ff04023000'), 'BasicConstraints not a CA, critical')
  })

  it('adds 100 calendar years in whole seconds', () => {
    assert.equal(stakingCertNotAfter(new Date('2024-02-29T10:00:00.999Z')).toISOString(), '2124-02-29T10:00:00.000Z')
    assert.equal(stakingCertNotAfter(new Date('2023-03-01T00:00:00Z')).toISOString(), '2123-03-01T00:00:00.000Z')
    assert.equal(STAKING_CERT_NOT_BEFORE.toISOString(), '1999-12-31T00:00:00.000Z')
  })

  it('signs RSA certificates with sha256WithRSAEncryption', () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const der = buildSelfSignedCertDer({
      privateKey,
      publicKey,
      notBefore: STAKING_CERT_NOT_BEFORE,
      notAfter: new Date(Date.UTC(2030, 0, 1)),
      serial: 7n,
    })
    const cert = new X509Certificate(der)
    assert.equal(cert.verify(cert.publicKey), true)
    assert.ok(hex(der).includes('a003020102020107'), 'serial 7')
    assert.ok(hex(der).includes('300d06092a864886f70d01010b0500'))
  })

  it('refuses keys it cannot sign certificates with', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519')
    assert.throws(
      () => buildSelfSignedCertDer({ privateKey, publicKey, notBefore: new Date(0), notAfter: new Date(1) }),
      /cannot sign a certificate with a ed25519 key/,
    )
  })
})
