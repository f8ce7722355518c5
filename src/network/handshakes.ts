/**
 * The handshake bridge: tracks libp2p connections (duplicates, handshake timeout, close), sends our Handshake on
 * each new connection, and checks inbound Handshakes (protocols/handshake/validate) before a peer session opens.
 * A connection without a session is dropped with a log line saying why.
 */
import { publicKeyToProtobuf } from '@libp2p/crypto/keys'
import type { Connection, PeerId } from '@libp2p/interface'
import { CloseReason } from '../../actors/peers/peer-session.machine.js'
import { encodeFrame, readFrame } from '../../protocols/codec/frame.js'
import { buildHandshake } from '../../protocols/handshake/build.js'
import { handshakeProtocol, handshakeSpec } from '../../protocols/handshake/service.js'
import { validateHandshake } from '../../protocols/handshake/validate.js'
import type { Handshake, PeerList } from '../../protocols/messages/p2p.js'
import type { InboundRequest } from '../../protocols/service/exchange.js'
import { CLIENT_NAME, VERSION } from '../config/version.js'
import { blsSignatureFromBytes } from '../identity/bls.js'
import { idToString, nodeIdFromCertDer } from '../identity/ids.js'
import { checkStakingCert } from '../identity/staking.js'
import { addrOf } from './addresses.js'
import {
  type ConnState,
  DropReason,
  HANDSHAKE_TIMEOUT_MS,
  MIN_COMPATIBLE_VERSION,
  type NetworkCore,
  REQUEST_TIMEOUT_MS,
  type Session,
} from './core.js'
import { verifyStakingSig } from './identity.js'

export class Handshakes {
  #requestId = 1

  constructor(private readonly n: NetworkCore) {}

  #dialerOf(conn: Connection): string {
    return conn.direction === 'outbound' ? this.n.host.peerId.toString() : conn.remotePeer.toString()
  }

  /** The state of a connection; a second connection to the same peer keeps the one the smaller PeerId dialed. */
  track(conn: Connection): ConnState {
    const n = this.n
    const known = n.conns.get(conn.id)
    if (known) return known
    const state: ConnState = { conn, handshakeSeen: false, dropped: false }
    n.conns.set(conn.id, state)
    if (n.closed) {
      this.drop(state, 'shutting down')
      return state
    }
    for (const other of n.conns.values()) {
      if (other === state || other.dropped || !other.conn.remotePeer.equals(conn.remotePeer)) continue
      const a = this.#dialerOf(conn)
      const b = this.#dialerOf(other.conn)
      const keepNew = a !== b && a < b
      const loser = keepNew ? other : state
      const session = loser.nodeId === undefined ? undefined : n.sessions.get(loser.nodeId)
      if (session && session.connId === loser.conn.id) {
        n.sessionBridge.send(session, { type: 'session.close', reason: DropReason.Duplicate })
      } else {
        n.log.debug('closing a duplicate connection', { peer: conn.remotePeer.toString() })
        this.close(loser)
      }
      if (loser === state) return state
    }
    state.timer = setTimeout(() => {
      if (state.nodeId === undefined && !state.dropped) this.drop(state, DropReason.HandshakeTimeout)
    }, HANDSHAKE_TIMEOUT_MS)
    this.#sendHandshake(state).catch((err: unknown) => n.log.debug('handshake failed', { err }))
    return state
  }

  close(state: ConnState): void {
    state.dropped = true
    clearTimeout(state.timer)
    state.conn.close().catch((err: unknown) => {
      state.conn.abort(err instanceof Error ? err : new Error(String(err)))
    })
  }

  /** Logs why and closes a connection that has no session. */
  drop(state: ConnState, reason: string, who?: string): void {
    if (state.dropped) return
    this.n.log.info(`dropping peer ${who ?? state.conn.remotePeer.toString()}: ${reason}`, {
      peerID: state.conn.remotePeer.toString(),
      addr: addrOf(state.conn.remoteAddr),
    })
    this.close(state)
  }

  onConnectionClose(conn: Connection): void {
    const n = this.n
    const state = n.conns.get(conn.id)
    n.conns.delete(conn.id)
    if (state) clearTimeout(state.timer)
    const session = state?.nodeId === undefined ? undefined : n.sessions.get(state.nodeId)
    if (session && session.connId === conn.id) {
      n.sessionBridge.send(session, { type: 'session.closed', reason: CloseReason.ConnectionClosed })
      n.sessionBridge.finalize(session)
      return
    }
    if (conn.direction === 'outbound') {
      const nodeId = n.bootstrapByAddr.get(addrOf(conn.remoteAddr))
      if (nodeId !== undefined && !n.sessions.has(nodeId)) n.dialer.scheduleDial(nodeId)
    }
  }

  /** Our Handshake on this connection; its answer is the peer's PeerList. */
  async #sendHandshake(state: ConnState): Promise<void> {
    const n = this.n
    const protocol = handshakeProtocol(n.o.config.networkId)
    let peerList: PeerList
    try {
      peerList = await this.#requestOn(state.conn, protocol, this.#ourHandshake())
    } catch (err) {
      if (state.dropped || n.closed) return
      const cause = (err as { cause?: unknown }).cause ?? err
      if (cause instanceof Error && cause.name === 'UnsupportedProtocolError') {
        this.drop(state, `network id mismatch: peer does not speak ${protocol}`)
      } else {
        n.log.debug('handshake request failed', { peer: state.conn.remotePeer.toString(), err })
      }
      return
    }
    if (state.dropped || n.closed) return
    state.peerListAt = n.now()
    const session = state.nodeId === undefined ? undefined : n.sessions.get(state.nodeId)
    if (session && session.connId === state.conn.id) {
      n.sessionBridge.touch(session.nodeId, { received: true })
      n.sessionBridge.send(session, { type: 'session.messageReceived' })
      n.sessionBridge.send(session, { type: 'session.peerListReceived', at: state.peerListAt })
    }
    n.gossip.learn(peerList.claimedIpPorts)
  }

  /** Our Handshake now (signatures made once at start). */
  #ourHandshake(): Handshake {
    const n = this.n
    const { config } = n.o
    return buildHandshake(
      {
        networkId: config.networkId,
        nowS: Math.floor(n.now() / 1000),
        ip: n.signed.ip,
        port: n.port,
        upgradeTimeS: n.upgradeTimeS,
        ipSigningTimeS: n.signed.signingTimeS,
        trackedSubnets: n.trackedSubnets,
        client: { name: CLIENT_NAME, major: VERSION.major, minor: VERSION.minor, patch: VERSION.patch },
        supportedAcps: config.acpSupport,
        objectedAcps: config.acpObject,
        knownPeers: n.gossip.knownPeers(),
        allSubnets: false,
        stakingCertDer: n.o.identity.certDer,
        libp2pPublicKey: n.libp2pPublicKey,
      },
      { signStaking: () => new Uint8Array(), signBls: () => new Uint8Array() },
      n.signed,
    )
  }

  /** One handshake request on this very connection (not any connection to the peer). */
  async #requestOn(conn: Connection, protocol: string, body: Handshake): Promise<PeerList> {
    const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS)
    const stream = await conn.newStream(protocol, { signal })
    try {
      const reply = readFrame(stream, handshakeSpec.codec, { signal })
      reply.catch(() => {})
      const requestId = this.#requestId
      this.#requestId = this.#requestId >= 0xffffffff ? 1 : this.#requestId + 1
      const envelope = handshakeSpec.wrapRequest(body, requestId, BigInt(this.n.now() + REQUEST_TIMEOUT_MS))
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

  /** The live session bound to this very connection. */
  sessionOf(conn: Connection): Session | undefined {
    const nodeId = this.n.conns.get(conn.id)?.nodeId
    const session = nodeId === undefined ? undefined : this.n.sessions.get(nodeId)
    return session && session.connId === conn.id && !session.done ? session : undefined
  }

  /** The inbound handshake handler: never throws. */
  onHandshake(req: Handshake, ctx: InboundRequest): PeerList | undefined {
    try {
      return this.#handshake(req, ctx)
    } catch (err) {
      this.n.log.debug('handshake handler failed', { peer: ctx.remotePeer.toString(), err })
      return undefined
    }
  }

  #handshake(req: Handshake, ctx: InboundRequest): PeerList | undefined {
    const n = this.n
    const sessions = n.sessionBridge
    if (n.closed) return undefined
    const state = this.track(ctx.connection)
    if (state.dropped) return undefined
    if (state.handshakeSeen) {
      const session = this.sessionOf(ctx.connection)
      if (session) {
        sessions.send(session, { type: 'session.messageReceived' })
        sessions.send(session, { type: 'session.close', reason: CloseReason.SecondHandshake })
      } else this.drop(state, CloseReason.SecondHandshake)
      return undefined
    }
    state.handshakeSeen = true
    const { config } = n.o
    const check = validateHandshake(
      req,
      {
        networkId: config.networkId,
        nowS: n.now() / 1000,
        version: {
          current: VERSION,
          minCompatible: MIN_COMPATIBLE_VERSION,
          minCompatibleAfterUpgrade: MIN_COMPATIBLE_VERSION,
          upgradeTimeS: n.upgradeTimeS,
        },
        remotePublicKey: publicKeyToProtobuf(publicKeyOf(ctx.remotePeer)),
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
    if (!check.ok) {
      this.drop(state, check.reason)
      return undefined
    }
    const peer = check.peer
    const nodeId = peer.nodeId
    if (nodeId === n.nodeId) {
      this.drop(state, DropReason.Self, nodeId)
      return undefined
    }
    if (ctx.connection.direction === 'outbound') {
      const expected = n.bootstrapByAddr.get(addrOf(ctx.connection.remoteAddr))
      if (expected !== undefined && expected !== nodeId) {
        this.drop(state, DropReason.UnexpectedNodeId, nodeId)
        return undefined
      }
    }
    if (n.sessions.has(nodeId)) {
      this.drop(state, DropReason.Duplicate, nodeId)
      return undefined
    }
    if (peer.newerVersion) n.log.info('peer runs a newer version', { nodeID: nodeId, version: peer.version })
    const session = sessions.openSession(state, peer)
    if (session === undefined) {
      this.drop(state, 'no session', nodeId)
      return undefined
    }
    n.gossip.rememberClaim(peer, ctx.remotePeer)
    sessions.touch(nodeId, { received: true })
    sessions.send(session, { type: 'session.messageReceived' })
    sessions.send(session, {
      type: 'session.handshakeReceived',
      ok: true,
      info: {
        nodeId,
        version: `${peer.version.name}/${peer.version.major}.${peer.version.minor}.${peer.version.patch}`,
        trackedSubnets: peer.trackedSubnets.map((s) => idToString(s)),
        publicIp: peer.ipText.includes(':') ? `[${peer.ipText}]:${peer.port}` : `${peer.ipText}:${peer.port}`,
        upgradeTime: peer.upgradeTime,
        supportedAcps: peer.supportedAcps,
        objectedAcps: peer.objectedAcps,
      },
    })
    if (state.peerListAt !== undefined) {
      sessions.send(session, { type: 'session.messageReceived' })
      sessions.send(session, { type: 'session.peerListReceived', at: state.peerListAt })
    }
    if (session.done || session.ref.getSnapshot().status !== 'active') return undefined
    sessions.touch(nodeId, { sent: true })
    return { claimedIpPorts: n.gossip.claimsFor(nodeId, peer.knownPeers.filter, peer.knownPeers.salt) }
  }
}

function publicKeyOf(peer: PeerId) {
  if (peer.publicKey === undefined) throw new Error('peer id without a public key')
  return peer.publicKey
}
