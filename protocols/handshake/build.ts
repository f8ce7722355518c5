/**
 * Our Handshake (and our own ClaimedIpPort) from plain parameters and injected signers: the staking key signs
 * the IP message and the libp2p identity binding, the BLS key signs the IP message.
 */
import type { ClaimedIpPort, Client, Handshake } from '../messages/p2p.js'
import { identityMessage, ip16, ipSigningMessage } from './ip.js'

export interface HandshakeParams {
  networkId: number
  /** unix seconds */
  nowS: number
  /** 4 or 16 bytes; sent as 16 (IPv4-mapped) */
  ip: Uint8Array
  port: number
  /** our upgrade time, unix seconds */
  upgradeTimeS: number
  /** when the IP was signed, unix seconds (re-sign only when the IP changes) */
  ipSigningTimeS: number
  trackedSubnets: readonly Uint8Array[]
  client: Client
  supportedAcps: readonly number[]
  objectedAcps: readonly number[]
  knownPeers?: { filter: Uint8Array; salt: Uint8Array }
  allSubnets: boolean
  stakingCertDer: Uint8Array
  /** our libp2p public key, protobuf bytes */
  libp2pPublicKey: Uint8Array
}

export interface HandshakeSigners {
  /** staking-key signature (ECDSA SHA-256, DER) over `message` */
  signStaking: (message: Uint8Array) => Uint8Array
  /** BLS signature (proof-of-possession DST) over `message`, 96 bytes */
  signBls: (message: Uint8Array) => Uint8Array
}

/** The signed parts of a handshake that our claim reuses. */
export interface SignedIp {
  ip: Uint8Array
  port: number
  signingTimeS: number
  ipNodeIdSig: Uint8Array
  ipBlsSig: Uint8Array
  identitySig: Uint8Array
}

/** Signs the IP claim and the identity binding once; throws RangeError on a bad IP. */
export function signIp(
  params: Pick<HandshakeParams, 'ip' | 'port' | 'ipSigningTimeS' | 'libp2pPublicKey'>,
  signers: HandshakeSigners,
): SignedIp {
  const ip = ip16(params.ip)
  if (ip === null) throw new RangeError(`bad ip: ${params.ip.length} bytes`)
  const message = ipSigningMessage(ip, params.port, params.ipSigningTimeS)
  return {
    ip,
    port: params.port,
    signingTimeS: params.ipSigningTimeS,
    ipNodeIdSig: signers.signStaking(message),
    ipBlsSig: signers.signBls(message),
    identitySig: signers.signStaking(identityMessage(params.libp2pPublicKey)),
  }
}

/** Our Handshake; pass `signed` to reuse signatures made earlier for the same IP and signing time. */
export function buildHandshake(params: HandshakeParams, signers: HandshakeSigners, signed?: SignedIp): Handshake {
  const s = signed ?? signIp(params, signers)
  return {
    networkId: params.networkId,
    myTime: BigInt(Math.floor(params.nowS)),
    ipAddr: s.ip,
    ipPort: s.port,
    upgradeTime: BigInt(params.upgradeTimeS),
    ipSigningTime: BigInt(s.signingTimeS),
    ipNodeIdSig: s.ipNodeIdSig,
    trackedSubnets: [...params.trackedSubnets],
    client: { ...params.client },
    supportedAcps: [...params.supportedAcps],
    objectedAcps: [...params.objectedAcps],
    knownPeers: params.knownPeers,
    ipBlsSig: s.ipBlsSig,
    allSubnets: params.allSubnets,
    stakingCert: params.stakingCertDer,
    identitySig: s.identitySig,
  }
}

/** Our own ClaimedIpPort for PeerList answers (tx_id is 32 zero bytes, as the reference sends). */
export function buildClaim(signed: SignedIp, stakingCertDer: Uint8Array, peerId: Uint8Array): ClaimedIpPort {
  return {
    x509Certificate: stakingCertDer,
    ipAddr: signed.ip,
    ipPort: signed.port,
    timestamp: BigInt(signed.signingTimeS),
    signature: signed.ipNodeIdSig,
    txId: new Uint8Array(32),
    peerId,
    identitySig: signed.identitySig,
  }
}
