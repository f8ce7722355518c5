/**
 * The handshake's IO: our Handshake (signed once at start), the check of a peer's Handshake (certificate,
 * signatures, BLS, version, clock: protocols/handshake/validate with the crypto of src/identity) that the session
 * actor's `checkHandshake` slot runs, and the request that sends our Handshake on one connection (its answer is the
 * peer's PeerList).
 */
import { publicKeyToProtobuf } from '@libp2p/crypto/keys'
import type { Connection, PeerId } from '@libp2p/interface'
import type { HandshakeInfo } from '../../actors/peers/peer-session.machine.js'
import { encodeFrame, readFrame } from '../../protocols/codec/frame.js'
import { buildHandshake, type SignedIp } from '../../protocols/handshake/build.js'
import { handshakeSpec } from '../../protocols/handshake/service.js'
import { type PeerInfo as HandshakePeer, validateHandshake } from '../../protocols/handshake/validate.js'
import type { Handshake, PeerList } from '../../protocols/messages/p2p.js'
import { CLIENT_NAME, VERSION } from '../config/version.js'
import { blsSignatureFromBytes } from '../identity/bls.js'
import { idToString, nodeIdFromCertDer } from '../identity/ids.js'
import { checkStakingCert } from '../identity/staking.js'
import { verifyStakingSig } from './identity.js'
import { MIN_COMPATIBLE_VERSION, type NetworkOptions, REQUEST_TIMEOUT_MS } from './types.js'

/** What this node says about itself, fixed once the host listens. */
export interface LocalPeer {
  port: number
  libp2pPublicKey: Uint8Array
  signed: SignedIp
  upgradeTimeS: number
  trackedSubnets: Uint8Array[]
}

export class HandshakeKit {
  #requestId = 1
  local: LocalPeer | undefined

  constructor(
    private readonly o: Pick<NetworkOptions, 'config' | 'identity'>,
    private readonly now: () => number,
    private readonly knownPeers: () => { filter: Uint8Array; salt: Uint8Array },
  ) {}

  /** Our Handshake now (the signatures were made once at start). */
  ours(): Handshake {
    const l = this.local
    if (l === undefined) throw new Error('the p2p host is not listening yet')
    const { config } = this.o
    return buildHandshake(
      {
        networkId: config.networkId,
        nowS: Math.floor(this.now() / 1000),
        ip: l.signed.ip,
        port: l.port,
        upgradeTimeS: l.upgradeTimeS,
        ipSigningTimeS: l.signed.signingTimeS,
        trackedSubnets: l.trackedSubnets,
        client: { name: CLIENT_NAME, major: VERSION.major, minor: VERSION.minor, patch: VERSION.patch },
        supportedAcps: config.acpSupport,
        objectedAcps: config.acpObject,
        knownPeers: this.knownPeers(),
        allSubnets: false,
        stakingCertDer: this.o.identity.certDer,
        libp2pPublicKey: l.libp2pPublicKey,
      },
      { signStaking: () => new Uint8Array(), signBls: () => new Uint8Array() },
      l.signed,
    )
  }

  /** Checks a peer's Handshake against the key Noise authenticated; throws Error(drop reason) when it fails. */
  check(req: Handshake, remotePeer: PeerId): HandshakePeer {
    const { config } = this.o
    if (remotePeer.publicKey === undefined) throw new Error('peer id without a public key')
    const result = validateHandshake(
      req,
      {
        networkId: config.networkId,
        nowS: this.now() / 1000,
        version: {
          current: VERSION,
          minCompatible: MIN_COMPATIBLE_VERSION,
          minCompatibleAfterUpgrade: MIN_COMPATIBLE_VERSION,
          upgradeTimeS: this.local?.upgradeTimeS ?? 0,
        },
        remotePublicKey: publicKeyToProtobuf(remotePeer.publicKey),
      },
      {
        checkCert: (der) => {
          checkStakingCert(der)
        },
        nodeIdOf: nodeIdFromCertDer,
        verifyStakingSig,
        isBlsSignature: (sig) => {
          blsSignatureFromBytes(sig)
          return true
        },
      },
    )
    if (!result.ok) throw new Error(result.reason)
    return result.peer
  }

  /** One Handshake request on this very connection (not any connection to the peer): the peer's PeerList. */
  async send(conn: Connection, protocol: string): Promise<PeerList> {
    const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS)
    const stream = await conn.newStream(protocol, { signal })
    try {
      const reply = readFrame(stream, handshakeSpec.codec, { signal })
      reply.catch(() => {})
      const requestId = this.#requestId
      this.#requestId = this.#requestId >= 0xffffffff ? 1 : this.#requestId + 1
      const envelope = handshakeSpec.wrapRequest(this.ours(), requestId, BigInt(this.now() + REQUEST_TIMEOUT_MS))
      if (!stream.send(encodeFrame(handshakeSpec.codec, envelope))) await stream.onDrain({ signal })
      await stream.close({ signal })
      const answer = await reply
      const response = handshakeSpec.responseOf(answer)
      if (response === undefined || answer.requestId !== requestId) throw new Error('bad handshake response')
      return response
    } catch (err) {
      stream.abort(err instanceof Error ? err : new Error(String(err)))
      throw err
    }
  }
}

/** What the session keeps of a checked Handshake (JSON-safe). */
export function handshakeInfo(peer: HandshakePeer): HandshakeInfo {
  return {
    nodeId: peer.nodeId,
    version: `${peer.version.name}/${peer.version.major}.${peer.version.minor}.${peer.version.patch}`,
    trackedSubnets: peer.trackedSubnets.map((s) => idToString(s)),
    publicIp: peer.ipText.includes(':') ? `[${peer.ipText}]:${peer.port}` : `${peer.ipText}:${peer.port}`,
    upgradeTime: peer.upgradeTime,
    supportedAcps: peer.supportedAcps,
    objectedAcps: peer.objectedAcps,
  }
}
