/**
 * Validation of a received Handshake (reference `network/peer/peer.go` handleHandshake and
 * `version/compatibility.go`), plus the libp2p identity binding of the Firn design. Pure: certificate checks,
 * signatures and NodeIDs come in as functions; the result is a PeerInfo or a short, log-friendly reason.
 * "Already received handshake" is the session's check (it needs state), so it is only named here.
 */
import type { Client, Handshake } from '../messages/p2p.js'
import { BloomError, BloomFilter, MAX_BLOOM_SALT_LEN } from '../peers/bloom.js'
import { identityMessage, ip16, ipSigningMessage, ipText } from './ip.js'

export const MAX_CLOCK_DIFFERENCE_S = 60
export const MAX_TRACKED_SUBNETS = 16
export const SUBNET_ID_LEN = 32
export const BLS_SIGNATURE_LEN = 96
/** The reference's minimum compatible versions: before and after the local upgrade time. */
export const MIN_COMPATIBLE_BEFORE_UPGRADE: Version = { major: 1, minor: 13, patch: 0 }
export const MIN_COMPATIBLE_AFTER_UPGRADE: Version = { major: 1, minor: 14, patch: 0 }
export const SECOND_HANDSHAKE_REASON = 'already received handshake'
export const IDENTITY_MISMATCH_REASON = 'identity signature does not match the authenticated key'

export interface Version {
  major: number
  minor: number
  patch: number
}

export interface VersionRules {
  current: Version
  /** Minimum before `upgradeTimeS`; defaults to MIN_COMPATIBLE_BEFORE_UPGRADE. */
  minCompatible?: Version
  /** Minimum from `upgradeTimeS` on; defaults to MIN_COMPATIBLE_AFTER_UPGRADE. */
  minCompatibleAfterUpgrade?: Version
  /** Our upgrade time (unix s). */
  upgradeTimeS: number
}

export interface HandshakeCheckParams {
  networkId: number
  /** Local clock, unix seconds. */
  nowS: number
  /** Defaults to MAX_CLOCK_DIFFERENCE_S. */
  maxClockDifferenceS?: number
  version: VersionRules
  /** If given, both ACP lists are filtered to it before the overlap check (the reference's CurrentACPs). */
  currentAcps?: ReadonlySet<number>
  /** The remote libp2p public key (protobuf bytes), as Noise authenticated it. */
  remotePublicKey: Uint8Array
}

export interface HandshakeVerifiers {
  /** Staking certificate rules; throws (any error) when the certificate is not acceptable. */
  checkCert?: (certDer: Uint8Array) => void
  /** NodeID of a certificate, e.g. `NodeID-...`. */
  nodeIdOf: (certDer: Uint8Array) => string
  /** The staking key's signature (ECDSA SHA-256 DER, or RSA) over `message`. */
  verifyStakingSig: (certDer: Uint8Array, message: Uint8Array, sig: Uint8Array) => boolean
  /** True if the 96 bytes are a valid G2 point; without it only the length is checked. */
  isBlsSignature?: (sig: Uint8Array) => boolean
  /** For a peer with a registered BLS key: the signature over the IP message; true when there is no key. */
  verifyBlsSig?: (nodeId: string, message: Uint8Array, sig: Uint8Array) => boolean
}

export interface PeerInfo {
  nodeId: string
  certDer: Uint8Array
  /** 16 bytes, IPv4-mapped for IPv4 */
  ip: Uint8Array
  ipText: string
  port: number
  version: Client
  /** The peer runs a newer version than ours (only worth a log line). */
  newerVersion: boolean
  trackedSubnets: Uint8Array[]
  supportedAcps: number[]
  objectedAcps: number[]
  upgradeTime: number
  ipSigningTime: number
  ipNodeIdSig: Uint8Array
  ipBlsSig: Uint8Array
  identitySig: Uint8Array
  allSubnets: boolean
  /** The peer's known-peers filter and salt (the reference's empty filter when absent). */
  knownPeers: { filter: BloomFilter; salt: Uint8Array }
}

export type HandshakeCheck = { ok: true; peer: PeerInfo } | { ok: false; reason: string }

const versionText = (v: Version): string => `${v.major}.${v.minor}.${v.patch}`

export function compareVersions(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch
}

/** The reference's `Compatibility.Compatible`, with a reason; null when compatible. */
export function versionIncompatibility(peer: Version, rules: VersionRules, nowS: number): string | null {
  if (peer.major > rules.current.major) {
    return `incompatible version: ${versionText(peer)} (major > ${rules.current.major})`
  }
  const min =
    nowS < rules.upgradeTimeS
      ? (rules.minCompatible ?? MIN_COMPATIBLE_BEFORE_UPGRADE)
      : (rules.minCompatibleAfterUpgrade ?? MIN_COMPATIBLE_AFTER_UPGRADE)
  if (compareVersions(peer, min) < 0) return `incompatible version: ${versionText(peer)} < ${versionText(min)}`
  return null
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e))

const fail = (reason: string): HandshakeCheck => ({ ok: false, reason })

/** Runs an injected function; a throw becomes `{ error }`. */
function attempt<T>(f: () => T): { value: T } | { error: string } {
  try {
    return { value: f() }
  } catch (e) {
    return { error: errorText(e) }
  }
}

/** Checks `msg` against our parameters; never throws. */
export function validateHandshake(
  msg: Handshake,
  params: HandshakeCheckParams,
  verify: HandshakeVerifiers,
): HandshakeCheck {
  if (msg.networkId !== params.networkId) return fail(`network id mismatch: ${msg.networkId} != ${params.networkId}`)

  const maxSkew = params.maxClockDifferenceS ?? MAX_CLOCK_DIFFERENCE_S
  const skew = Math.abs(Number(msg.myTime) - params.nowS)
  if (skew > maxSkew) return fail(`clock skew: peer time ${msg.myTime}, local ${params.nowS} (> ${maxSkew} s)`)

  if (msg.trackedSubnets.length > MAX_TRACKED_SUBNETS) {
    return fail(`too many tracked subnets: ${msg.trackedSubnets.length} > ${MAX_TRACKED_SUBNETS}`)
  }
  const badSubnet = msg.trackedSubnets.find((s) => s.length !== SUBNET_ID_LEN)
  if (badSubnet !== undefined) return fail(`bad tracked subnet id: ${badSubnet.length} bytes`)

  const current = params.currentAcps
  const keep = (acps: number[]): number[] => [...new Set(current ? acps.filter((a) => current.has(a)) : acps)]
  const supportedAcps = keep(msg.supportedAcps)
  const objectedAcps = keep(msg.objectedAcps)
  const objected = new Set(objectedAcps)
  const both = supportedAcps.filter((a) => objected.has(a))
  if (both.length > 0) return fail(`acp both supported and objected: ${both.join(',')}`)

  let knownPeers: PeerInfo['knownPeers'] = { filter: BloomFilter.empty(), salt: new Uint8Array(0) }
  if (msg.knownPeers !== undefined) {
    let filter: BloomFilter
    try {
      filter = BloomFilter.parse(msg.knownPeers.filter)
    } catch (e) {
      return fail(`bad known peers filter: ${e instanceof BloomError ? e.message : errorText(e)}`)
    }
    if (msg.knownPeers.salt.length > MAX_BLOOM_SALT_LEN) {
      return fail(`known peers salt too long: ${msg.knownPeers.salt.length} > ${MAX_BLOOM_SALT_LEN}`)
    }
    knownPeers = { filter, salt: msg.knownPeers.salt }
  }

  const ip = ip16(msg.ipAddr)
  if (ip === null) return fail(`bad ip: ${msg.ipAddr.length} bytes`)
  if (msg.ipPort === 0 || msg.ipPort > 0xffff) return fail(`bad port: ${msg.ipPort}`)

  const certDer = msg.stakingCert
  if (verify.checkCert !== undefined) {
    const checked = attempt(() => verify.checkCert?.(certDer))
    if ('error' in checked) return fail(`bad staking certificate: ${checked.error}`)
  }
  const identityOk = attempt(() =>
    verify.verifyStakingSig(certDer, identityMessage(params.remotePublicKey), msg.identitySig),
  )
  if (!('value' in identityOk) || !identityOk.value) return fail(IDENTITY_MISMATCH_REASON)
  const nodeId = attempt(() => verify.nodeIdOf(certDer))
  if ('error' in nodeId) return fail(`bad staking certificate: ${nodeId.error}`)

  const maxSigningTime = BigInt(Math.floor(params.nowS)) + BigInt(maxSkew)
  if (msg.ipSigningTime > maxSigningTime) {
    return fail(`ip signing time too far in the future: ${msg.ipSigningTime} > ${maxSigningTime}`)
  }
  const ipMessage = ipSigningMessage(ip, msg.ipPort, msg.ipSigningTime)
  const ipSigOk = attempt(() => verify.verifyStakingSig(certDer, ipMessage, msg.ipNodeIdSig))
  if (!('value' in ipSigOk) || !ipSigOk.value) return fail('bad ip signature')

  if (msg.ipBlsSig.length !== BLS_SIGNATURE_LEN) return fail(`bad bls signature: ${msg.ipBlsSig.length} bytes`)
  if (verify.isBlsSignature !== undefined) {
    const point = attempt(() => verify.isBlsSignature?.(msg.ipBlsSig) === true)
    if (!('value' in point) || !point.value) return fail('bad bls signature: not a G2 point')
  }

  const client = msg.client ?? { name: '', major: 0, minor: 0, patch: 0 }
  const incompatible = versionIncompatibility(client, params.version, params.nowS)
  if (incompatible !== null) return fail(incompatible)

  if (verify.verifyBlsSig !== undefined) {
    const blsOk = attempt(() => verify.verifyBlsSig?.(nodeId.value, ipMessage, msg.ipBlsSig) === true)
    if (!('value' in blsOk) || !blsOk.value) return fail('bls signature verification failed')
  }

  return {
    ok: true,
    peer: {
      nodeId: nodeId.value,
      certDer,
      ip,
      ipText: ipText(ip),
      port: msg.ipPort,
      version: { name: client.name, major: client.major, minor: client.minor, patch: client.patch },
      newerVersion: compareVersions(client, params.version.current) > 0,
      trackedSubnets: msg.trackedSubnets,
      supportedAcps,
      objectedAcps,
      upgradeTime: Number(msg.upgradeTime),
      ipSigningTime: Number(msg.ipSigningTime),
      ipNodeIdSig: msg.ipNodeIdSig,
      ipBlsSig: msg.ipBlsSig,
      identitySig: msg.identitySig,
      allSubnets: msg.allSubnets,
      knownPeers,
    },
  }
}
