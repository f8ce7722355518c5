/**
 * Which staking certificates a node accepts (reference `staking/parse.go` and `network/peer/tls_config.go`):
 * at most 2 KiB of DER, and a key that is RSA (2048 or 4096 bits, odd modulus, e = 65537) or ECDSA P-256.
 */
import { createPublicKey, type KeyObject } from 'node:crypto'
import { p256 } from '@noble/curves/nist.js'
import {
  bitStringValue,
  bytesEqual,
  type DerElement,
  integerValue,
  isValidOidContent,
  oid,
  readElement,
  readTagged,
  Tag,
} from './der.js'
import { StakingError } from './errors.js'
import { nodeIdFromCertDer } from './ids.js'
import { OID } from './x509.js'

export const MAX_CERTIFICATE_LEN = 2048

/** A certificate that passed `checkStakingCert`. */
export interface StakingCert {
  der: Uint8Array
  keyType: 'ecdsa-p256' | 'rsa'
  publicKey: KeyObject
  /** `NodeID-<cb58>` of this certificate */
  nodeId: string
}

const oidContent = (dotted: string): Uint8Array => (readElement(oid(dotted)) as DerElement).content
const RSA_OID = oidContent(OID.rsaEncryption)
const EC_OID = oidContent(OID.ecPublicKey)
const P256_OID = oidContent(OID.prime256v1)

function fail(message: string): never {
  throw new StakingError(message, 'STAKING_ERROR_INVALID_CERT')
}

function bitLength(n: bigint): number {
  return n.toString(2).length
}

/** The reference's `ValidateRSAPublicKeyIsWellFormed`. */
function checkRsaKey(keyBytes: Uint8Array): void {
  const body = readTagged(keyBytes, Tag.SEQUENCE) ?? fail('staking: invalid RSA public key')
  const nElement = readTagged(body.content, Tag.INTEGER)
  const n = nElement && integerValue(nElement.content)
  if (nElement === null || n === null) fail('staking: invalid RSA modulus')
  const eElement = readTagged(nElement.rest, Tag.INTEGER)
  const e = eElement && integerValue(eElement.content)
  if (e === null || e < -(1n << 63n) || e >= 1n << 63n) fail('staking: invalid RSA public exponent')
  if (n <= 0n) fail('staking: RSA modulus is not a positive number')
  const bits = bitLength(n)
  if (bits !== 2048 && bits !== 4096) fail(`staking: unsupported RSA modulus bitlen: ${bits}`)
  if ((n & 1n) === 0n) fail('staking: RSA modulus is an even number')
  if (e !== 65537n) fail(`staking: unsupported RSA public exponent: ${e}`)
}

function checkEcKey(parameters: Uint8Array, point: Uint8Array): void {
  const curve = readTagged(parameters, Tag.OID)
  if (curve === null || !bytesEqual(curve.content, P256_OID)) fail('only P256 is allowed for ECDSA')
  let onCurve = point.length === 65 && point[0] === 0x04
  if (onCurve) {
    try {
      p256.Point.fromBytes(point)
    } catch {
      onCurve = false
    }
  }
  if (!onCurve) fail('staking: failed to unmarshal elliptic curve point')
}

/**
 * Checks a peer's (or our own) certificate DER by the reference's rules and returns its key and NodeID.
 * Throws `StakingError` with the reference's texts (`only P256 is allowed for ECDSA`, `staking: ...`).
 */
export function checkStakingCert(der: Uint8Array): StakingCert {
  if (der.length > MAX_CERTIFICATE_LEN) fail(`staking: certificate length is greater than ${MAX_CERTIFICATE_LEN}`)
  const cert = readTagged(der, Tag.SEQUENCE) ?? fail('staking: malformed certificate')
  const tbs = readTagged(cert.content, Tag.SEQUENCE) ?? fail('staking: malformed tbs certificate')
  let input = tbs.content
  const version = readElement(input)
  if (version === null && input.length > 0 && input[0] === 0xa0) fail('staking: malformed version')
  if (version !== null && version.tag === 0xa0) input = version.rest
  const skip = (tag: number, message: string): void => {
    input = (readTagged(input, tag) ?? fail(message)).rest
  }
  skip(Tag.INTEGER, 'staking: malformed serial number')
  skip(Tag.SEQUENCE, 'staking: malformed signature algorithm identifier')
  skip(Tag.SEQUENCE, 'staking: malformed issuer')
  skip(Tag.SEQUENCE, 'staking: malformed validity')
  skip(Tag.SEQUENCE, 'staking: malformed issuer')
  const spki = readTagged(input, Tag.SEQUENCE) ?? fail('staking: malformed spki')
  const algorithm = readTagged(spki.content, Tag.SEQUENCE) ?? fail('staking: malformed public key algorithm identifier')
  const algorithmOid = readTagged(algorithm.content, Tag.OID)
  if (algorithmOid === null || !isValidOidContent(algorithmOid.content)) fail('staking: malformed oid')
  const keyOid = algorithmOid.content
  const keyBits = readTagged(algorithm.rest, Tag.BIT_STRING)
  const key = keyBits && bitStringValue(keyBits.content)
  if (key === null) fail('staking: malformed subject public key')

  let keyType: StakingCert['keyType']
  if (bytesEqual(keyOid, RSA_OID)) {
    checkRsaKey(key)
    keyType = 'rsa'
  } else if (bytesEqual(keyOid, EC_OID)) {
    checkEcKey(algorithmOid.rest, key)
    keyType = 'ecdsa-p256'
  } else {
    fail('key type is not supported')
  }
  let publicKey: KeyObject
  try {
    publicKey = createPublicKey({ key: Buffer.from(spki.raw), format: 'der', type: 'spki' })
  } catch {
    fail('staking: malformed spki')
  }
  return { der, keyType, publicKey, nodeId: nodeIdFromCertDer(der) }
}
