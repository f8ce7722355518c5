/**
 * Peer-list gossip and signed IP claims: remembers each peer's claim, answers GetPeerList with up to 15 claims
 * of connected peers the requester does not know, pulls a peer list from a random connected peer every 2 s,
 * validates gossiped claims and hands the validators it learns to the dialer. The known-peers bloom filter is
 * reset every 60 s.
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
import type { Logger } from '../log/logger.js'
import { multiaddrText } from './addresses.js'
import type { Connections } from './connections.js'
import { verifyStakingSig } from './identity.js'
import { errorText } from './types.js'

const salt = (n: number) => new Uint8Array(randomBytes(n))

interface KnownClaim {
  nodeId: string
  claim: ClaimedIpPort
  timestamp: number
  gossipId: Uint8Array
  /** the dialable multiaddr with the peer's PeerId */
  addr: string
}

export interface GossipDeps {
  connections: Connections
  log: Logger
  now: () => number
  random: () => number
  selfNodeId: string
  /** validators are worth a connection (with sybil protection off every node is one) */
  wanted: (nodeId: string) => boolean
  /** a validator's newest address: the dialer keeps it as a target and dials it */
  learned: (nodeId: string, addr: string) => void
  /** one GetPeerList request to a peer */
  requestPeers: (peer: PeerId, req: GetPeerList) => Promise<PeerList>
}

export class Gossip {
  #known = newKnownPeersFilter(0, salt)
  readonly #claims = new Map<string, KnownClaim>()

  constructor(private readonly d: GossipDeps) {}

  /** our known-peers filter, as Handshake and GetPeerList carry it */
  knownPeers(): { filter: Uint8Array; salt: Uint8Array } {
    return { filter: this.#known.filter.marshal(), salt: this.#known.salt }
  }

  /** the newest dialable address a peer claimed */
  addrOf(nodeId: string): string | undefined {
    return this.#claims.get(nodeId)?.addr
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
    const known = this.#claims.get(nodeId)
    if (known && known.timestamp >= timestamp) return false
    const addr = multiaddrText(ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`, peerId)
    const gid = gossipId(sha256, nodeIdBytesFromCertDer(claim.x509Certificate), timestamp)
    this.#claims.set(nodeId, { nodeId, claim, timestamp, gossipId: gid, addr })
    this.#known.filter.add(bloomHash(sha256, gid, this.#known.salt))
    return true
  }

  /** Up to 15 claims of connected peers the requester does not know. */
  claimsFor(requester: string, filter: BloomFilter, salt: Uint8Array): ClaimedIpPort[] {
    const { connections } = this.d
    const connected = [...this.#claims.values()].filter((c) => connections.isConnected(c.nodeId))
    return selectClaims(connected, { sha256, filter, salt, exceptNodeId: requester, random: this.d.random }).map(
      (c) => c.claim,
    )
  }

  /** Validates gossiped claims, keeps the newer ones and hands the validators to the dialer. */
  learn(claims: ClaimedIpPort[]): void {
    const nowS = this.d.now() / 1000
    for (const raw of claims) {
      try {
        this.#learnOne(raw, nowS)
      } catch (err) {
        this.d.log.debug('ignoring a gossiped claim', { err })
      }
    }
  }

  #learnOne(raw: ClaimedIpPort, nowS: number): void {
    const check = validateClaim(raw, nowS, {
      checkCert: (der) => {
        checkStakingCert(der)
      },
      nodeIdOf: nodeIdFromCertDer,
      verifyStakingSig,
    })
    if (!check.ok) {
      this.d.log.debug('ignoring a gossiped claim', { reason: check.reason })
      return
    }
    const c = check.claim
    if (c.nodeId === this.d.selfNodeId) return
    const key = publicKeyOfPeerId(c.peerId)
    if (key === null) return
    const peerId = peerIdFromPublicKey(publicKeyFromProtobuf(key)).toString()
    if (!this.#store(c.nodeId, raw, c.timestamp, ipText(c.ip), c.port, peerId)) return
    if (!this.d.wanted(c.nodeId)) return
    this.d.learned(c.nodeId, (this.#claims.get(c.nodeId) as KnownClaim).addr)
  }

  /** The inbound GetPeerList handler: never throws. A malformed filter closes the session. */
  onGetPeerList(req: GetPeerList, ctx: InboundRequest): PeerList | undefined {
    const { connections, log } = this.d
    try {
      const nodeId = connections.connectedNodeIdOf(ctx.connection)
      const io = connections.get(ctx.connection.id)
      if (nodeId === undefined || io === undefined) return undefined
      connections.touchConnection(io, 'in')
      let filter = BloomFilter.empty()
      let salt: Uint8Array = new Uint8Array(0)
      if (req.knownPeers !== undefined) {
        try {
          filter = BloomFilter.parse(req.knownPeers.filter)
        } catch (err) {
          connections.tell(io.conn.id, { type: 'session.close', reason: `bad known peers filter: ${errorText(err)}` })
          return undefined
        }
        if (req.knownPeers.salt.length > MAX_BLOOM_SALT_LEN) {
          connections.tell(io.conn.id, {
            type: 'session.close',
            reason: `known peers salt too long: ${req.knownPeers.salt.length} > ${MAX_BLOOM_SALT_LEN}`,
          })
          return undefined
        }
        salt = req.knownPeers.salt
      }
      connections.touchConnection(io, 'out')
      return { claimedIpPorts: this.claimsFor(nodeId, filter, salt) }
    } catch (err) {
      log.debug('peer list handler failed', { peer: ctx.remotePeer.toString(), err })
      return undefined
    }
  }

  /** One pull: GetPeerList to a random connected peer. */
  gossip(): void {
    const { connections, log } = this.d
    const connected = connections.connectedNodeIds()
    if (connected.length === 0) return
    const nodeId = connected[Math.min(connected.length - 1, Math.floor(this.d.random() * connected.length))] as string
    const peerId = connections.peerIdOf(nodeId)
    if (peerId === undefined) return
    connections.touch(nodeId, 'out')
    this.d
      .requestPeers(peerId, { knownPeers: this.knownPeers(), allSubnets: false })
      .then(
        (list) => {
          connections.touch(nodeId, 'in')
          this.learn(list.claimedIpPorts)
        },
        (err: unknown) => log.debug('peer list request failed', { nodeID: nodeId, err }),
      )
      .catch((err: unknown) => log.debug('peer list handling failed', { err }))
  }

  resetBloom(): void {
    this.#known = newKnownPeersFilter(this.#claims.size, salt)
    for (const c of this.#claims.values()) this.#known.filter.add(bloomHash(sha256, c.gossipId, this.#known.salt))
  }
}
