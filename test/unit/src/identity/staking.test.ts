import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { generateKeyPairSync, type KeyObject, X509Certificate } from 'node:crypto'
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { StakingError } from '../../../../src/identity/errors.js'
import { nodeIdFromCertDer } from '../../../../src/identity/ids.js'
import { pemEncode } from '../../../../src/identity/pem.js'
import {
  checkStakingCert,
  loadOrCreateStakingIdentity,
  newStakingIdentity,
  newStakingPems,
  type StakingPaths,
  signWithStakingKey,
  stakingIdentityFromPem,
  verifyWithCert,
} from '../../../../src/identity/staking.js'
import { buildSelfSignedCertDer } from '../../../../src/identity/x509.js'

const mode = async (path: string): Promise<number> => (await stat(path)).mode & 0o777

function pemsFor(privateKey: KeyObject, publicKey: KeyObject): { keyPem: string; certPem: string } {
  const der = buildSelfSignedCertDer({
    privateKey,
    publicKey,
    notBefore: new Date(0),
    notAfter: new Date(Date.UTC(2100, 0)),
  })
  return {
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    certPem: pemEncode('CERTIFICATE', der),
  }
}

async function rejectsWith(promise: Promise<unknown>, reason: StakingError['reason'], message: string): Promise<void> {
  await assert.rejects(
    promise,
    (err: unknown) => err instanceof StakingError && err.reason === reason && err.message === message,
  )
}

describe('staking identity', () => {
  let root = ''
  let count = 0
  const paths = (explicit = false): StakingPaths => {
    const dir = join(root, `node${count++}`, 'staking')
    return {
      keyPath: join(dir, 'staker.key'),
      certPath: join(dir, 'staker.crt'),
      keyExplicit: explicit,
      certExplicit: false,
    }
  }
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'firn-staking-'))
  })
  after(async () => {
    await rm(root, { recursive: true, force: true })
  })

  it('creates an ECDSA P-256 key and self-signed certificate on first start, and reloads the same NodeID', async () => {
    const p = paths()
    const created = await loadOrCreateStakingIdentity(p)
    assert.equal(created.keyType, 'ecdsa-p256')
    assert.match(created.nodeId, /^NodeID-[1-9A-HJ-NP-Za-km-z]+$/)
    assert.equal(created.nodeId, nodeIdFromCertDer(created.certDer))
    assert.ok(created.keyPem.startsWith('-----BEGIN PRIVATE KEY-----\n'))
    assert.ok(created.certPem.startsWith('-----BEGIN CERTIFICATE-----\n'))
    assert.equal(await readFile(p.keyPath, 'utf8'), created.keyPem)
    assert.equal(await readFile(p.certPath, 'utf8'), created.certPem)
    assert.equal(await mode(p.keyPath), 0o400)
    assert.equal(await mode(p.certPath), 0o400)
    assert.equal(await mode(join(p.keyPath, '..')), 0o750 & ~process.umask())

    const x509 = new X509Certificate(created.certPem)
    assert.equal(x509.verify(x509.publicKey), true)
    assert.equal(x509.validFrom, 'Dec 31 00:00:00 1999 GMT')
    const years = (new Date(x509.validTo).getTime() - Date.now()) / (365.25 * 24 * 3600 * 1000)
    assert.ok(years > 99.9 && years < 100.1, `NotAfter ${x509.validTo} is about 100 years away`)
    assert.equal(created.privateKey.asymmetricKeyDetails?.namedCurve, 'prime256v1')

    const reloaded = await loadOrCreateStakingIdentity(p)
    assert.equal(reloaded.nodeId, created.nodeId)
    assert.deepEqual(reloaded.certDer, created.certDer)
  })

  it('requires both files when a path was set explicitly', async () => {
    const p = paths(true)
    await rejectsWith(
      loadOrCreateStakingIdentity(p),
      'STAKING_ERROR_MISSING_FILE',
      `couldn't find staking key at ${p.keyPath}`,
    )
    await mkdir(join(p.keyPath, '..'), { recursive: true })
    await writeFile(p.keyPath, newStakingPems().keyPem)
    await rejectsWith(
      loadOrCreateStakingIdentity(p),
      'STAKING_ERROR_MISSING_FILE',
      `couldn't find staking certificate at ${p.certPath}`,
    )
    const certOnly = { ...paths(), certExplicit: true }
    await rejectsWith(
      loadOrCreateStakingIdentity(certOnly),
      'STAKING_ERROR_MISSING_FILE',
      `couldn't find staking key at ${certOnly.keyPath}`,
    )
  })

  it('fails to start with a key and no certificate', async () => {
    const p = paths()
    await mkdir(join(p.keyPath, '..'), { recursive: true })
    await writeFile(p.keyPath, newStakingPems().keyPem)
    await rejectsWith(
      loadOrCreateStakingIdentity(p),
      'STAKING_ERROR_LOAD',
      `couldn't read staking certificate: open ${p.certPath}: no such file or directory`,
    )
  })

  it('loads an RSA-4096 key in PKCS#1 PEM (as older reference nodes wrote it) and its certificate', async () => {
    const p = paths(true)
    await mkdir(join(p.keyPath, '..'), { recursive: true })
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 4096 })
    const { certPem } = pemsFor(privateKey, publicKey)
    await writeFile(p.keyPath, privateKey.export({ type: 'pkcs1', format: 'pem' }).toString())
    await writeFile(p.certPath, certPem)
    const identity = await loadOrCreateStakingIdentity(p)
    assert.equal(identity.keyType, 'rsa')
    assert.equal(identity.nodeId, checkStakingCert(identity.certDer).nodeId)
    assert.equal(identity.privateKey.asymmetricKeyDetails?.modulusLength, 4096)
  })

  it('loads an RSA-2048 key and certificate', () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const { keyPem, certPem } = pemsFor(privateKey, publicKey)
    const identity = stakingIdentityFromPem(keyPem, certPem)
    assert.equal(identity.keyType, 'rsa')
    assert.equal(identity.nodeId, checkStakingCert(identity.certDer).nodeId)
  })

  it('checks that the key belongs to the certificate', async () => {
    const a = newStakingPems()
    const b = newStakingPems()
    const mismatch = () => stakingIdentityFromPem(a.keyPem, b.certPem)
    assert.throws(mismatch, { name: 'StakingError', message: 'tls: private key does not match public key' })
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const rsaPems = pemsFor(rsa.privateKey, rsa.publicKey)
    assert.throws(() => stakingIdentityFromPem(a.keyPem, rsaPems.certPem), {
      message: 'tls: private key type does not match public key type',
    })
    const p = paths()
    await mkdir(join(p.keyPath, '..'), { recursive: true })
    await writeFile(p.keyPath, a.keyPem)
    await writeFile(p.certPath, b.certPem)
    await rejectsWith(
      loadOrCreateStakingIdentity(p),
      'STAKING_ERROR_LOAD',
      "couldn't read staking certificate: tls: private key does not match public key",
    )
  })

  it('reports unusable PEM input as Go crypto/tls does', () => {
    const { keyPem, certPem } = newStakingPems()
    const cases: [string, string, string][] = [
      ['', certPem, 'tls: failed to find any PEM data in key input'],
      [certPem, certPem, 'tls: found a certificate rather than a key in the PEM for the private key'],
      [keyPem, '', 'tls: failed to find any PEM data in certificate input'],
      [
        keyPem,
        keyPem,
        'tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched',
      ],
      [pemEncode('PRIVATE KEY', Uint8Array.of(1, 2, 3)), certPem, 'tls: failed to parse private key'],
      [keyPem, pemEncode('CERTIFICATE', Uint8Array.of(0x30, 0)), 'x509: malformed certificate'],
    ]
    for (const [key, cert, message] of cases) {
      assert.throws(
        () => stakingIdentityFromPem(key, cert),
        (err: unknown) => {
          return err instanceof StakingError && err.reason === 'STAKING_ERROR_LOAD' && err.message === message
        },
      )
    }
  })

  it('refuses its own certificate when peers would refuse it', () => {
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' })
    const { keyPem, certPem } = pemsFor(p384.privateKey, p384.publicKey)
    assert.throws(
      () => stakingIdentityFromPem(keyPem, certPem),
      (err: unknown) => {
        return (
          err instanceof StakingError &&
          err.reason === 'STAKING_ERROR_INVALID_CERT' &&
          err.message === 'invalid staking certificate: only P256 is allowed for ECDSA'
        )
      },
    )
  })

  it('makes a new identity every time when ephemeral', () => {
    assert.notEqual(newStakingIdentity().nodeId, newStakingIdentity().nodeId)
  })

  it('signs with the TLS key and verifies against the certificate (ECDSA and RSA)', async () => {
    const message = new TextEncoder().encode('ip bytes to sign')
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const rsaPems = pemsFor(rsa.privateKey, rsa.publicKey)
    for (const identity of [newStakingIdentity(), stakingIdentityFromPem(rsaPems.keyPem, rsaPems.certPem)]) {
      const signature = signWithStakingKey(identity, message)
      assert.equal(verifyWithCert(identity.certDer, message, signature), true)
      assert.equal(verifyWithCert(checkStakingCert(identity.certDer), message, signature), true)
      assert.equal(verifyWithCert(identity.certDer, new TextEncoder().encode('other bytes'), signature), false)
      const tampered = Uint8Array.from(signature)
      tampered[tampered.length - 5] = (tampered[tampered.length - 5] ?? 0) ^ 1
      assert.equal(verifyWithCert(identity.certDer, message, tampered), false)
      assert.equal(verifyWithCert(newStakingIdentity().certDer, message, signature), false)
      assert.equal(verifyWithCert(Uint8Array.of(1, 2, 3), message, signature), false)
    }
    const ecdsa = signWithStakingKey(newStakingIdentity(), message)
    assert.equal(ecdsa[0], 0x30, 'ECDSA signatures are ASN.1 DER')
    const rsaSignature = signWithStakingKey(stakingIdentityFromPem(rsaPems.keyPem, rsaPems.certPem), message)
    assert.equal(rsaSignature.length, 256, 'PKCS#1 v1.5 signatures are the modulus length')
  })
})
