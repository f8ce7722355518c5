/**
 * The IO of the peer session actors: their two slots and the libp2p handlers that feed them.
 *
 * - `sessionIo`: the connection's inbound events (its Subject in Connections) merged with what the session emits,
 *   carried out here: our Handshake (its answer, the peer's PeerList, comes back as `session.peerListReceived`),
 *   our PeerList as the answer to the peer's Handshake, Pings (the Pong comes back as `session.pong`), and closing
 *   the connection with the `dropping peer <id>: <reason>` line (then `session.closed`).
 * - `checkHandshake`: the crypto of a Handshake (HandshakeKit.check); its error message is the drop reason.
 * - `onHandshake` / `onPing`: the inbound handlers; a Handshake waits for the session's verdict.
 * Nothing here decides: every decision is a transition of the session or the network actor.
 */
import type { Connection } from '@libp2p/interface'
import { EMPTY, from, merge, mergeMap, type Observable, of } from 'rxjs'
import { fromEventObservable, fromPromise } from 'xstate'
import {
  type HandshakeInfo,
  type PeerSessionEmitted,
  type PeerSessionEvent,
  peerSessionMachine,
  type SessionIoInput,
} from '../../actors/peers/peer-session.machine.js'
import type { PeerInfo as HandshakePeer } from '../../protocols/handshake/validate.js'
import type { ClaimedIpPort, Handshake, PeerList, Ping, Pong } from '../../protocols/messages/p2p.js'
import type { BloomFilter } from '../../protocols/peers/bloom.js'
import type { InboundRequest } from '../../protocols/service/exchange.js'
import type { Logger } from '../log/logger.js'
import { emitted$ } from '../runtime/emitted.js'
import { addrOf } from './addresses.js'
import type { ConnectionIo, Connections } from './connections.js'
import { type HandshakeKit, handshakeInfo } from './handshake.js'
import { errorText } from './types.js'

export interface SessionIoDeps {
  connections: Connections
  handshake: HandshakeKit
  /** the handshake protocol id (for the network id mismatch text) */
  handshakeProtocol: string
  gossip: {
    learn(claims: ClaimedIpPort[]): void
    rememberClaim(peer: HandshakePeer, peerId: Connection['remotePeer']): void
    claimsFor(requester: string, filter: BloomFilter, salt: Uint8Array): ClaimedIpPort[]
  }
  /** one Ping carrying our measurement of the peer's uptime */
  ping: (io: ConnectionIo, nodeId: string) => Promise<void>
  /** a connection that is not wanted any more (shutting down) */
  closed: () => boolean
  /** the connection opened (idempotent): a handler may see a connection before libp2p's open event */
  opened: (conn: Connection) => void
  log: Logger
  now: () => number
}

export class SessionIo {
  constructor(private readonly d: SessionIoDeps) {}

  /** The session machine with its IO slots. */
  logic() {
    return peerSessionMachine.provide({
      actors: {
        sessionIo: fromEventObservable<PeerSessionEvent, SessionIoInput>(({ input }) => this.#io(input)),
        checkHandshake: fromPromise<HandshakeInfo, { connId: string }>(async ({ input }) => this.#check(input.connId)),
      },
    })
  }

  #io(input: SessionIoInput): Observable<PeerSessionEvent> {
    const io = this.d.connections.get(input.connId)
    if (io === undefined) return of({ type: 'session.closed', reason: 'connection closed', at: this.d.now() })
    const carried = emitted$<PeerSessionEmitted>(input.self).pipe(mergeMap((e) => this.#carryOut(io, e)))
    return merge(io.inbound, carried)
  }

  #carryOut(io: ConnectionIo, e: PeerSessionEmitted): Observable<PeerSessionEvent> {
    const { connections, log } = this.d
    try {
      switch (e.type) {
        case 'session.sendHandshake':
          return from(this.#sendHandshake(io)).pipe(mergeMap((events) => from(events)))
        case 'session.sendPeerList':
          this.#answerHandshake(io, e.nodeId)
          return EMPTY
        case 'session.sendPing':
          connections.touchConnection(io, 'out')
          return from(
            this.d.ping(io, e.nodeId).then(
              (): PeerSessionEvent[] => {
                connections.touchConnection(io, 'in')
                return [{ type: 'session.pong' }]
              },
              (err: unknown): PeerSessionEvent[] => {
                log.debug('ping failed', { nodeID: e.nodeId, err })
                return []
              },
            ),
          ).pipe(mergeMap((events) => from(events)))
        case 'session.closing':
          return from(this.#close(io, e.nodeId, e.reason))
      }
    } catch (err) {
      log.debug('session IO failed', { event: e.type, err })
    }
    return EMPTY
  }

  /** Sends our Handshake; the peer's PeerList (or the reason to close) comes back as events. */
  async #sendHandshake(io: ConnectionIo): Promise<PeerSessionEvent[]> {
    const { connections, log } = this.d
    connections.touchConnection(io, 'out')
    try {
      const list = await this.d.handshake.send(io.conn, this.d.handshakeProtocol)
      this.d.gossip.learn(list.claimedIpPorts)
      connections.touchConnection(io, 'in')
      return [{ type: 'session.peerListReceived', at: this.d.now() }]
    } catch (err) {
      const cause = (err as { cause?: unknown }).cause ?? err
      if (cause instanceof Error && cause.name === 'UnsupportedProtocolError') {
        const reason = `network id mismatch: peer does not speak ${this.d.handshakeProtocol}`
        // the peer may have closed the connection first (its own check): the session is gone, say why anyway
        if (connections.get(io.conn.id) !== io) this.#logDrop(io, null, reason)
        return [{ type: 'session.close', reason }]
      }
      log.debug('handshake request failed', { peer: io.conn.remotePeer.toString(), err })
      // no answer: the session's handshake timeout decides
      return []
    }
  }

  /** The session accepted the peer's Handshake: answer it with the claims it does not know. */
  #answerHandshake(io: ConnectionIo, nodeId: string): void {
    const pending = io.handshake
    const peer = pending?.checked as HandshakePeer | undefined
    if (pending === undefined || peer === undefined) return
    io.handshake = undefined
    this.d.gossip.rememberClaim(peer, io.conn.remotePeer)
    this.d.connections.touchConnection(io, 'out')
    pending.answer({ claimedIpPorts: this.d.gossip.claimsFor(nodeId, peer.knownPeers.filter, peer.knownPeers.salt) })
  }

  #logDrop(io: ConnectionIo, nodeId: string | null, reason: string): void {
    this.d.log.info(`dropping peer ${nodeId ?? io.conn.remotePeer.toString()}: ${reason}`, {
      peerID: io.conn.remotePeer.toString(),
      addr: addrOf(io.conn.remoteAddr),
    })
  }

  async #close(io: ConnectionIo, nodeId: string | null, reason: string): Promise<PeerSessionEvent> {
    this.#logDrop(io, nodeId, reason)
    io.handshake?.answer(undefined)
    io.handshake = undefined
    try {
      await io.conn.close()
    } catch (err) {
      io.conn.abort(err instanceof Error ? err : new Error(String(err)))
    }
    return { type: 'session.closed', reason, at: this.d.now() }
  }

  #check(connId: string): HandshakeInfo {
    const io = this.d.connections.get(connId)
    const pending = io?.handshake
    if (io === undefined || pending === undefined) throw new Error('connection closed')
    const peer = this.d.handshake.check(pending.request as Handshake, io.conn.remotePeer)
    pending.checked = peer
    if (peer.newerVersion) this.d.log.info('peer runs a newer version', { nodeID: peer.nodeId, version: peer.version })
    return handshakeInfo(peer)
  }

  /** The inbound Handshake handler: answered with our PeerList once the session accepts it; never throws. */
  onHandshake(req: Handshake, ctx: InboundRequest): Promise<PeerList | undefined> | undefined {
    const { connections } = this.d
    try {
      if (this.d.closed()) return undefined
      this.d.opened(ctx.connection)
      const io = connections.get(ctx.connection.id)
      if (io === undefined) return undefined
      connections.touchConnection(io, 'in')
      if (io.handshakeSeen) {
        connections.tell(io.conn.id, { type: 'session.handshakeReceived' })
        return undefined
      }
      io.handshakeSeen = true
      return new Promise<PeerList | undefined>((resolve) => {
        const refuse = () => resolve(undefined)
        ctx.signal.addEventListener('abort', refuse, { once: true })
        io.handshake = {
          request: req,
          answer: (reply) => {
            ctx.signal.removeEventListener('abort', refuse)
            resolve(reply as PeerList | undefined)
          },
        }
        connections.tell(io.conn.id, { type: 'session.handshakeReceived' })
      })
    } catch (err) {
      this.d.log.debug('handshake handler failed', { peer: ctx.remotePeer.toString(), err: errorText(err) })
      return undefined
    }
  }

  /** The inbound Ping handler: the session stores the peer's view of our uptime; answered unless it closes. */
  onPing(req: Ping, ctx: InboundRequest): Pong | undefined {
    const { connections } = this.d
    try {
      const io = connections.get(ctx.connection.id)
      const session = connections.sessionOfConnection(ctx.connection.id)
      if (io === undefined || session === undefined) return undefined
      connections.touchConnection(io, 'in')
      connections.tell(io.conn.id, { type: 'session.ping', uptime: req.uptime })
      const snap = session.getSnapshot()
      if (snap.status !== 'active' || snap.matches('closing')) return undefined
      connections.touchConnection(io, 'out')
      return {}
    } catch (err) {
      this.d.log.debug('ping handler failed', { peer: ctx.remotePeer.toString(), err: errorText(err) })
      return undefined
    }
  }
}
