/**
 * The staking TLS identity, the reference's way (`staking/tls.go`, `config/config.go`): an ECDSA P-256 key and
 * a self-signed certificate created on first start, RSA accepted, NodeID taken from the certificate.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
  X509Certificate,
} from 'node:crypto'
import { StakingError } from './errors.js'
import { ensureParentDir, goPathError, pathExists, readCapped, writeKeyFile } from './files.js'
import { pemDecodeAll, pemEncode } from './pem.js'
import { checkStakingCert, type StakingCert } from './staking-cert.js'
import { buildSelfSignedCertDer, STAKING_CERT_NOT_BEFORE, stakingCertNotAfter } from './x509.js'

export { checkStakingCert, MAX_CERTIFICATE_LEN, type StakingCert } from './staking-cert.js'

/** A loaded staking key and certificate. */
export interface StakingIdentity {
  keyPem: string
  certPem: string
  certDer: Uint8Array
  /** `NodeID-<cb58>` */
  nodeId: string
  keyType: 'ecdsa-p256' | 'rsa'
  privateKey: KeyObject
}

/** Where the key and certificate live, and whether the user set those paths. */
export interface StakingPaths {
  keyPath: string
  certPath: string
  keyExplicit: boolean
  certExplicit: boolean
}

/** PEM files larger than this are refused (an RSA-4096 key is about 3.3 KB). */
const MAX_PEM_FILE_LEN = 64 * 1024

const loadError = (message: string): StakingError => new StakingError(message, 'STAKING_ERROR_LOAD')

/** A new ECDSA P-256 key and self-signed certificate as PEM (`PRIVATE KEY` PKCS#8, `CERTIFICATE`). */
export function newStakingPems(now: Date = new Date()): { keyPem: string; certPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const der = buildSelfSignedCertDer({
    privateKey,
    publicKey,
    notBefore: STAKING_CERT_NOT_BEFORE,
    notAfter: stakingCertNotAfter(now),
  })
  return {
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    certPem: pemEncode('CERTIFICATE', der),
  }
}

/** A fresh in-memory identity (`--staking-ephemeral-cert-enabled`). */
export function newStakingIdentity(now: Date = new Date()): StakingIdentity {
  const { keyPem, certPem } = newStakingPems(now)
  return stakingIdentityFromPem(keyPem, certPem)
}

function leafCertificate(certPem: string): Uint8Array {
  const blocks = pemDecodeAll(certPem)
  const leaf = blocks.find((b) => b.type === 'CERTIFICATE')
  if (leaf !== undefined) return leaf.bytes
  if (blocks.length === 0) throw loadError('tls: failed to find any PEM data in certificate input')
  if (blocks.length === 1 && blocks[0]?.type.endsWith('PRIVATE KEY')) {
    throw loadError(
      'tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched',
    )
  }
  const skipped = blocks.map((b) => b.type).join(' ')
  throw loadError(
    `tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: [${skipped}]`,
  )
}

function privateKeyOf(keyPem: string): KeyObject {
  const blocks = pemDecodeAll(keyPem)
  const block = blocks.find((b) => b.type === 'PRIVATE KEY' || b.type.endsWith(' PRIVATE KEY'))
  if (block === undefined) {
    if (blocks.length === 0) throw loadError('tls: failed to find any PEM data in key input')
    if (blocks.length === 1 && blocks[0]?.type === 'CERTIFICATE') {
      throw loadError('tls: found a certificate rather than a key in the PEM for the private key')
    }
    const skipped = blocks.map((b) => b.type).join(' ')
    throw loadError(
      `tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: [${skipped}]`,
    )
  }
  for (const type of ['pkcs1', 'pkcs8', 'sec1'] as const) {
    try {
      return createPrivateKey({ key: Buffer.from(block.bytes), format: 'der', type })
    } catch {}
  }
  throw loadError('tls: failed to parse private key')
}

/** Parses a PEM key and certificate (files or `*-content` flags) and checks they belong together. */
export function stakingIdentityFromPem(keyPem: string, certPem: string): StakingIdentity {
  const certDer = leafCertificate(certPem)
  let certKey: KeyObject
  try {
    certKey = new X509Certificate(certDer).publicKey
  } catch {
    throw loadError('x509: malformed certificate')
  }
  const privateKey = privateKeyOf(keyPem)
  if (privateKey.asymmetricKeyType !== certKey.asymmetricKeyType) {
    throw loadError('tls: private key type does not match public key type')
  }
  const derivedSpki = privateKeyPublicSpki(privateKey)
  if (!derivedSpki.equals(certKey.export({ type: 'spki', format: 'der' }))) {
    throw loadError('tls: private key does not match public key')
  }
  let cert: StakingCert
  try {
    cert = checkStakingCert(certDer)
  } catch (err) {
    throw new StakingError(`invalid staking certificate: ${(err as Error).message}`, 'STAKING_ERROR_INVALID_CERT')
  }
  return { keyPem, certPem, certDer, nodeId: cert.nodeId, keyType: cert.keyType, privateKey }
}

function privateKeyPublicSpki(privateKey: KeyObject): Buffer {
  return createPublicKey(privateKey).export({ type: 'spki', format: 'der' })
}

async function writeNewStakingFiles(keyPath: string, certPath: string): Promise<void> {
  const { keyPem, certPem } = newStakingPems()
  await ensureParentDir(certPath)
  await ensureParentDir(keyPath)
  await writeKeyFile(certPath, certPem)
  await writeKeyFile(keyPath, keyPem)
}

async function readPem(path: string): Promise<string> {
  try {
    return new TextDecoder().decode(await readCapped(path, MAX_PEM_FILE_LEN))
  } catch (err) {
    throw loadError(`couldn't read staking certificate: ${goPathError('open', path, err)}`)
  }
}

/**
 * Loads the staking key and certificate, creating them first when the key file is absent and the paths were
 * not set explicitly. Throws `StakingError` with the reference's texts.
 */
export async function loadOrCreateStakingIdentity(paths: StakingPaths): Promise<StakingIdentity> {
  const { keyPath, certPath } = paths
  if (paths.keyExplicit || paths.certExplicit) {
    if (!(await pathExists(keyPath))) {
      throw new StakingError(`couldn't find staking key at ${keyPath}`, 'STAKING_ERROR_MISSING_FILE')
    }
    if (!(await pathExists(certPath))) {
      throw new StakingError(`couldn't find staking certificate at ${certPath}`, 'STAKING_ERROR_MISSING_FILE')
    }
  } else if (!(await pathExists(keyPath))) {
    try {
      await writeNewStakingFiles(keyPath, certPath)
    } catch (err) {
      const message = goPathError('open', (err as NodeJS.ErrnoException).path ?? keyPath, err)
      throw new StakingError(`couldn't generate staking key/cert: ${message}`, 'STAKING_ERROR_GENERATE')
    }
  }
  const certPem = await readPem(certPath)
  const keyPem = await readPem(keyPath)
  try {
    return stakingIdentityFromPem(keyPem, certPem)
  } catch (err) {
    if (err instanceof StakingError && err.reason === 'STAKING_ERROR_LOAD') {
      throw loadError(`couldn't read staking certificate: ${err.message}`)
    }
    throw err
  }
}

/** TLS-key signature over SHA-256(message): ECDSA as ASN.1 DER, RSA as PKCS#1 v1.5 (the handshake's IP signature). */
export function signWithStakingKey(identity: Pick<StakingIdentity, 'privateKey'>, message: Uint8Array): Uint8Array {
  return new Uint8Array(sign('sha256', message, identity.privateKey))
}

/** Does `signature` over SHA-256(message) verify against the certificate's key? Bad input gives false. */
export function verifyWithCert(cert: Uint8Array | StakingCert, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    const { publicKey } = cert instanceof Uint8Array ? checkStakingCert(cert) : cert
    return verify('sha256', message, publicKey, signature)
  } catch {
    return false
  }
}
