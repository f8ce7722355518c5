/**
 * Peer-list gossip and signed IP claims: remembers each peer's claim, answers GetPeerList with up to 15 claims
 * of connected peers the requester does not know, pulls a peer list from a random connected peer every 2 s,
 * validates gossiped claims and dials the validators it learns. The known-peers bloom filter is reset every 60 s.
 */
import { randomBytes } from 'node:crypto'
import { publicKeyFromProtobuf } from '@libp2p/crypto/keys'
import type { PeerId } from '@libp2p/interface'
import { peerIdFromPublicKey } from '@libp2p/peer-id'
import { sha256 } from '@noble/hashes/sha2.js'
import { buildClaim } from '../../protocols/handshake/build.js'
import { ipText, publicKeyOfPeerId } from '../../protocols/handshake/ip.js'
import type { PeerInfo as HandshakePeer } from '../../protocols/handshake/validate.js'
import type { ClaimedIpPort, GetPeerList, PeerList } from '../../protocols/messages/p2p.js'
import {
  BloomFilter,
  bloomHash,
  gossipId,
  MAX_BLOOM_SALT_LEN,
  newKnownPeersFilter,
  selectClaims,
} from '../../protocols/peers/bloom.js'
import { validateClaim } from '../../protocols/peers/claims.js'
import type { InboundRequest } from '../../protocols/service/exchange.js'
import { nodeIdBytesFromCertDer, nodeIdFromCertDer } from '../identity/ids.js'
import { checkStakingCert } from '../identity/staking.js'
import { multiaddrText } from './addresses.js'
import { errorText, type KnownClaim, type NetworkCore, REDIAL_INITIAL_MS, type Session } from './core.js'
import { verifyStakingSig } from './identity.js'

const salt = (n: number) => new Uint8Array(randomBytes(n))

export class Gossip {
  #known = newKnownPeersFilter(0, salt)

  constructor(private readonly n: NetworkCore) {}

  /** our known-peers filter, as Handshake and GetPeerList carry it */
  knownPeers(): { filter: Uint8Array; salt: Uint8Array } {
    return { filter: this.#known.filter.marshal(), salt: this.#known.salt }
  }

  rememberClaim(peer: HandshakePeer, peerId: PeerId): void {
    const claim = buildClaim(
      {
        ip: peer.ip,
        port: peer.port,
        signingTimeS: peer.ipSigningTime,
        ipNodeIdSig: peer.ipNodeIdSig,
        ipBlsSig: peer.ipBlsSig,
        identitySig: peer.identitySig,
      },
      peer.certDer,
      peerId.toMultihash().bytes,
    )
    this.#store(peer.nodeId, claim, peer.ipSigningTime, peer.ipText, peer.port, peerId.toString())
  }

  #store(nodeId: string, claim: ClaimedIpPort, timestamp: number, ip: string, port: number, peerId: string): boolean {
    const n = this.n
    const known = n.claims.get(nodeId)
    if (known && known.timestamp >= timestamp) return false
    const addr = multiaddrText(ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`, peerId)
    const gid = gossipId(sha256, nodeIdBytesFromCertDer(claim.x509Certificate), timestamp)
    n.claims.set(nodeId, { nodeId, claim, timestamp, gossipId: gid, addr })
    this.#known.filter.add(bloomHash(sha256, gid, this.#known.salt))
    const target = n.targets.get(nodeId)
    if (target && !target.bootstrapper) target.addr = addr
    return true
  }

  /** Up to 15 claims of connected peers the requester does not know. */
  claimsFor(requester: string, filter: BloomFilter, salt: Uint8Array): ClaimedIpPort[] {
    const n = this.n
    const connected = [...n.claims.values()].filter((c) => n.isConnected(n.sessions.get(c.nodeId)))
    return selectClaims(connected, { sha256, filter, salt, exceptNodeId: requester, random: n.random }).map(
      (c) => c.claim,
    )
  }

  /** Validates gossiped claims, keeps the newer ones and dials the validators we are not connected to. */
  learn(claims: ClaimedIpPort[]): void {
    const nowS = this.n.now() / 1000
    for (const raw of claims) {
      try {
        this.#learnOne(raw, nowS)
      } catch (err) {
        this.n.log.debug('ignoring a gossiped claim', { err })
      }
    }
  }

  #learnOne(raw: ClaimedIpPort, nowS: number): void {
    const n = this.n
    const check = validateClaim(raw, nowS, {
      checkCert: (der) => {
        checkStakingCert(der)
      },
      nodeIdOf: nodeIdFromCertDer,
      verifyStakingSig,
    })
    if (!check.ok) {
      n.log.debug('ignoring a gossiped claim', { reason: check.reason })
      return
    }
    const c = check.claim
    if (c.nodeId === n.nodeId) return
    const key = publicKeyOfPeerId(c.peerId)
    if (key === null) return
    const peerId = peerIdFromPublicKey(publicKeyFromProtobuf(key)).toString()
    if (!this.#store(c.nodeId, raw, c.timestamp, ipText(c.ip), c.port, peerId)) return
    if (!this.#wanted(c.nodeId)) return
    const addr = (n.claims.get(c.nodeId) as KnownClaim).addr
    const target = n.targets.get(c.nodeId)
    if (target) target.addr = target.bootstrapper ? target.addr : addr
    else n.targets.set(c.nodeId, { addr, backoffMs: REDIAL_INITIAL_MS, bootstrapper: false })
    if (!n.sessions.has(c.nodeId)) n.dialer.dial(c.nodeId)
  }

  /** Validators are worth a connection; with sybil protection off every node is one. */
  #wanted(nodeId: string): boolean {
    return !this.n.o.config.sybilProtection.enabled || this.n.o.validators.weight(nodeId) > 0n
  }

  /** The inbound GetPeerList handler: never throws. */
  onGetPeerList(req: GetPeerList, ctx: InboundRequest): PeerList | undefined {
    const n = this.n
    const sessions = n.sessionBridge
    try {
      const session = n.handshakes.sessionOf(ctx.connection)
      if (session === undefined) return undefined
      if (!session.ref.getSnapshot().matches('connected')) return undefined
      sessions.touch(session.nodeId, { received: true })
      sessions.send(session, { type: 'session.messageReceived' })
      let filter = BloomFilter.empty()
      let salt: Uint8Array = new Uint8Array(0)
      if (req.knownPeers !== undefined) {
        try {
          filter = BloomFilter.parse(req.knownPeers.filter)
        } catch (err) {
          sessions.send(session, { type: 'session.close', reason: `bad known peers filter: ${errorText(err)}` })
          return undefined
        }
        if (req.knownPeers.salt.length > MAX_BLOOM_SALT_LEN) {
          sessions.send(session, {
            type: 'session.close',
            reason: `known peers salt too long: ${req.knownPeers.salt.length} > ${MAX_BLOOM_SALT_LEN}`,
          })
          return undefined
        }
        salt = req.knownPeers.salt
      }
      sessions.touch(session.nodeId, { sent: true })
      return { claimedIpPorts: this.claimsFor(session.nodeId, filter, salt) }
    } catch (err) {
      n.log.debug('peer list handler failed', { peer: ctx.remotePeer.toString(), err })
      return undefined
    }
  }

  /** One pull: GetPeerList to a random connected peer. */
  gossip(): void {
    const n = this.n
    if (n.closed) return
    const connected = [...n.sessions.values()].filter((s) => n.isConnected(s))
    if (connected.length === 0) return
    const session = connected[Math.min(connected.length - 1, Math.floor(n.random() * connected.length))] as Session
    n.sessionBridge.touch(session.nodeId, { sent: true })
    n.host.services.peers
      .request(session.peerId, { knownPeers: this.knownPeers(), allSubnets: false })
      .then(
        (list) => {
          n.sessionBridge.touch(session.nodeId, { received: true })
          n.sessionBridge.send(session, { type: 'session.messageReceived' })
          this.learn(list.claimedIpPorts)
        },
        (err: unknown) => n.log.debug('peer list request failed', { nodeID: session.nodeId, err }),
      )
      .catch((err: unknown) => n.log.debug('peer list handling failed', { err }))
  }

  resetBloom(): void {
    this.#known = newKnownPeersFilter(this.n.claims.size, salt)
    for (const c of this.n.claims.values()) this.#known.filter.add(bloomHash(sha256, c.gossipId, this.#known.salt))
  }
}
