/**
 * The session bridge: opens a peer session (`peer:<NodeID>` under the network actor) for a checked handshake,
 * turns its emitted events into IO (PeerTable entries, uptime, pings, closing the connection, redials), answers
 * inbound pings, and ends sessions. Every event handler is guarded: a failing peer never throws out of here.
 */
import type { PeerSessionEvent } from '../../actors/peers/peer-session.machine.js'
import { pingUptime } from '../../actors/peers/uptime.js'
import { SystemId } from '../../actors/system-ids.js'
import type { PeerInfo as HandshakePeer } from '../../protocols/handshake/validate.js'
import type { Ping, Pong } from '../../protocols/messages/p2p.js'
import type { InboundRequest } from '../../protocols/service/exchange.js'
import { addrOf } from './addresses.js'
import { type ConnState, type NetworkCore, REDIAL_INITIAL_MS, type Session, type SessionRef } from './core.js'

/**
 * Per-message bookkeeping is coalesced (every chain request stamped both and cost an actor transition): a
 * session hears `session.messageReceived` at most once per LIVENESS_STAMP_MS (its silence timer is 30 s or more,
 * so a close comes at most this much early), and the PeerTable's lastSent / lastReceived move at most once per
 * TRAFFIC_STAMP_MS per direction.
 */
export const LIVENESS_STAMP_MS = 1_000
export const TRAFFIC_STAMP_MS = 100

export class Sessions {
  /** when a session last heard `session.messageReceived` */
  readonly #aliveAt = new WeakMap<Session, number>()
  /** `in:<NodeID>` / `out:<NodeID>` -> when that traffic was last stamped */
  readonly #stampedAt = new Map<string, number>()

  constructor(private readonly n: NetworkCore) {}

  openSession(state: ConnState, peer: HandshakePeer): Session | undefined {
    const n = this.n
    const network = n.o.system.get(SystemId.Network)
    if (!network) throw new Error('the network actor is not running')
    const nodeId = peer.nodeId
    network.send({
      type: 'network.openSession',
      nodeId,
      input: {
        nodeId,
        remoteAddr: addrOf(state.conn.remoteAddr),
        outbound: state.conn.direction === 'outbound',
        ...(n.o.config.ping === undefined
          ? {}
          : { pingIntervalMs: n.o.config.ping.frequencyMs, pongTimeoutMs: n.o.config.ping.timeoutMs }),
      },
    })
    const ref = n.o.system.get(SystemId.peer(nodeId)) as SessionRef | undefined
    if (!ref) return undefined
    clearTimeout(state.timer)
    state.nodeId = nodeId
    const session: Session = {
      nodeId,
      connId: state.conn.id,
      conn: state.conn,
      peerId: state.conn.remotePeer,
      ref,
      peer,
      subs: [],
      done: false,
      wasValidator: false,
    }
    n.sessions.set(nodeId, session)
    const later = (f: () => void) => queueMicrotask(() => n.guard('session event', f))
    session.subs.push(
      ref.on('session.connected', () => n.guard('session connected', () => this.#onConnected(session))),
      ref.on('session.sendPing', () => {
        void this.#ping(session)
      }),
      ref.on('session.closing', (e) =>
        later(() => {
          n.log.info(`dropping peer ${nodeId}: ${e.reason}`, { addr: addrOf(state.conn.remoteAddr) })
          n.handshakes.close(state)
          this.send(session, { type: 'session.closed', reason: e.reason })
          this.finalize(session)
        }),
      ),
      ref.on('session.disconnected', (e) =>
        n.guard('session disconnected', () => {
          session.wasValidator = n.o.validators.weight(nodeId) > 0n
          n.o.peers.remove(nodeId)
          n.log.info('peer disconnected', { nodeID: nodeId, reason: e.reason })
          n.peerEvents$.next({ type: 'disconnected', nodeId, at: n.now(), reason: e.reason })
        }),
      ),
    )
    return session
  }

  #onConnected(session: Session): void {
    const n = this.n
    const { nodeId, peer } = session
    const ctx = session.ref.getSnapshot().context
    const now = new Date(n.now())
    n.o.peers.upsert({
      ip: addrOf(session.conn.remoteAddr),
      publicIP: ctx.publicIp ?? '',
      nodeId,
      version: ctx.version ?? '',
      upgradeTime: peer.upgradeTime,
      lastSent: now,
      lastReceived: now,
      observedUptime: ctx.observedUptime,
      trackedSubnets: [...ctx.trackedSubnets],
      supportedACPs: [...ctx.supportedAcps],
      objectedACPs: [...ctx.objectedAcps],
      benched: n.benching.aliasesOf(ctx.benchedChains),
    })
    const target = n.targets.get(nodeId)
    if (target) {
      clearTimeout(target.timer)
      target.timer = undefined
      target.backoffMs = REDIAL_INITIAL_MS
    }
    n.log.info('peer connected', {
      nodeID: nodeId,
      ip: addrOf(session.conn.remoteAddr),
      publicIP: ctx.publicIp,
      version: ctx.version,
    })
    n.peerEvents$.next({ type: 'connected', nodeId, at: n.now() })
  }

  send(session: Session, event: PeerSessionEvent): void {
    if (session.done) return
    if (event.type === 'session.messageReceived') {
      const now = this.n.now()
      if (now - (this.#aliveAt.get(session) ?? Number.NEGATIVE_INFINITY) < LIVENESS_STAMP_MS) return
      this.#aliveAt.set(session, now)
    }
    if (session.ref.getSnapshot().status !== 'active') return
    session.ref.send(event)
  }

  /** The session is over: stop its actor, forget it, close its connection, maybe redial. Idempotent. */
  finalize(session: Session): void {
    const n = this.n
    if (session.done) return
    session.done = true
    for (const s of session.subs) s.unsubscribe()
    if (n.sessions.get(session.nodeId) === session) n.sessions.delete(session.nodeId)
    this.#stampedAt.delete(`in:${session.nodeId}`)
    this.#stampedAt.delete(`out:${session.nodeId}`)
    if (n.o.peers.get(session.nodeId)) {
      session.wasValidator ||= n.o.validators.weight(session.nodeId) > 0n
      n.o.peers.remove(session.nodeId)
      n.peerEvents$.next({ type: 'disconnected', nodeId: session.nodeId, at: n.now(), reason: 'connection closed' })
    }
    n.o.system.get(SystemId.Network)?.send({ type: 'network.closeSession', nodeId: session.nodeId })
    const state = n.conns.get(session.connId)
    if (state && !state.dropped) n.handshakes.close(state)
    if (n.closed) return
    const known = n.claims.get(session.nodeId)
    if (!n.targets.has(session.nodeId) && session.wasValidator && known) {
      n.targets.set(session.nodeId, { addr: known.addr, backoffMs: REDIAL_INITIAL_MS, bootstrapper: false })
    }
    const target = n.targets.get(session.nodeId)
    if (target?.bootstrapper || (session.wasValidator && target)) n.dialer.scheduleDial(session.nodeId)
  }

  async #ping(session: Session): Promise<void> {
    const n = this.n
    try {
      const uptime = pingUptime(n.uptime.state, session.nodeId, n.now())
      this.touch(session.nodeId, { sent: true })
      await n.host.services.ping.request(session.peerId, { uptime })
      this.touch(session.nodeId, { received: true })
      this.send(session, { type: 'session.messageReceived' })
      this.send(session, { type: 'session.pong' })
    } catch (err) {
      n.log.debug('ping failed', { nodeID: session.nodeId, err })
    }
  }

  /** The inbound ping handler: stores the peer's view of our uptime and answers; never throws. */
  onPing(req: Ping, ctx: InboundRequest): Pong | undefined {
    const n = this.n
    try {
      const session = n.handshakes.sessionOf(ctx.connection)
      if (!session) return undefined
      this.touch(session.nodeId, { received: true })
      this.send(session, { type: 'session.messageReceived' })
      this.send(session, { type: 'session.ping', uptime: req.uptime })
      if (session.done || session.ref.getSnapshot().status !== 'active') return undefined
      if (session.ref.getSnapshot().matches('closing')) return undefined
      const entry = n.o.peers.get(session.nodeId)
      if (entry) n.o.peers.upsert({ ...entry, observedUptime: req.uptime })
      this.touch(session.nodeId, { sent: true })
      return {}
    } catch (err) {
      n.log.debug('ping handler failed', { peer: ctx.remotePeer.toString(), err })
      return undefined
    }
  }

  /** Reports traffic on the peer stream (the PeerTable's lastSent / lastReceived follow it). */
  touch(nodeId: string, what: { sent?: boolean; received?: boolean }): void {
    const at = this.n.now()
    if (what.sent && this.#due(`out:${nodeId}`, at))
      this.n.peerEvents$.next({ type: 'traffic', nodeId, at, direction: 'out' })
    if (what.received && this.#due(`in:${nodeId}`, at)) {
      this.n.peerEvents$.next({ type: 'traffic', nodeId, at, direction: 'in' })
    }
  }

  #due(key: string, at: number): boolean {
    if (at - (this.#stampedAt.get(key) ?? Number.NEGATIVE_INFINITY) < TRAFFIC_STAMP_MS) return false
    this.#stampedAt.set(key, at)
    return true
  }
}
