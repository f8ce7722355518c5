/**
 * The libp2p side of the peer sessions: each open connection's handle and its inbound event stream (an RxJS
 * Subject the session's `sessionIo` slot subscribes to), and the reads every part of the p2p layer makes of the
 * actors. What a peer is (handshaking, connected, benched, its version and uptime) is the state of its session
 * actor; this module keeps only the IO handles and looks the rest up: `peer:<NodeID>` through the actor system,
 * NodeID -> connection through the network actor's context.
 *
 * Traffic is reported to the sessions as `session.traffic`, at most once per TRAFFIC_STAMP_MS per peer and
 * direction (every chain request would otherwise cost two actor transitions).
 */
import type { Connection, PeerId } from '@libp2p/interface'
import { Observable, type Subscriber } from 'rxjs'
import type { AnyActorRef } from 'xstate'
import type { NetworkContext } from '../../actors/peers/network.machine.js'
import type { PeerSessionContext, PeerSessionEvent } from '../../actors/peers/peer-session.machine.js'
import { SystemId } from '../../actors/system-ids.js'

export const TRAFFIC_STAMP_MS = 100

/** The IO of one libp2p connection. */
export interface ConnectionIo {
  conn: Connection
  /** events for the connection's session, in order; held until the session subscribes */
  readonly inbound: Observable<PeerSessionEvent>
  /** the peer's Handshake request waiting for the session's verdict */
  handshake?: PendingHandshake
  /** a Handshake arrived on this connection (a second one closes the session) */
  handshakeSeen: boolean
  /** when each direction was last stamped */
  stampedIn: number
  stampedOut: number
}

/** events told before the session subscribed, at most */
const MAX_HELD_EVENTS = 64

interface Inbox {
  subscriber?: Subscriber<PeerSessionEvent>
  held: PeerSessionEvent[]
  done: boolean
}

export interface PendingHandshake {
  /** the raw request, checked by the session's `checkHandshake` slot */
  request: unknown
  /** the checked peer (set by the check) */
  checked?: unknown
  /** answers the request: the PeerList, or undefined to refuse */
  answer(reply: unknown): void
}

/** What the p2p parts need of the actor system. */
export interface ActorLookup {
  get(systemId: string): AnyActorRef | undefined
}

export class Connections {
  readonly #byId = new Map<string, ConnectionIo>()
  readonly #inboxes = new Map<string, Inbox>()
  #system: ActorLookup | undefined

  constructor(private readonly now: () => number) {}

  /** The actor system, once the node's actors run. */
  attach(system: ActorLookup): void {
    this.#system = system
  }

  get size(): number {
    return this.#byId.size
  }

  /** Registers a connection (idempotent). */
  open(conn: Connection): ConnectionIo {
    let io = this.#byId.get(conn.id)
    if (io === undefined) {
      const inbox: Inbox = { held: [], done: false }
      const inbound = new Observable<PeerSessionEvent>((subscriber) => {
        inbox.subscriber = subscriber
        for (const e of inbox.held.splice(0)) subscriber.next(e)
        if (inbox.done) subscriber.complete()
        return () => {
          if (inbox.subscriber === subscriber) inbox.subscriber = undefined
        }
      })
      io = { conn, inbound, handshakeSeen: false, stampedIn: -Infinity, stampedOut: -Infinity }
      this.#byId.set(conn.id, io)
      this.#inboxes.set(conn.id, inbox)
    }
    return io
  }

  get(connId: string): ConnectionIo | undefined {
    return this.#byId.get(connId)
  }

  /** Forgets a connection whose session ended; a pending handshake is refused. */
  remove(connId: string): void {
    const io = this.#byId.get(connId)
    if (io === undefined) return
    this.#byId.delete(connId)
    io.handshake?.answer(undefined)
    io.handshake = undefined
    const inbox = this.#inboxes.get(connId)
    this.#inboxes.delete(connId)
    if (inbox !== undefined) {
      inbox.done = true
      inbox.subscriber?.complete()
    }
  }

  all(): ConnectionIo[] {
    return [...this.#byId.values()]
  }

  /** An event for the session of a connection (dropped when the connection is gone). */
  tell(connId: string, event: PeerSessionEvent): void {
    const inbox = this.#inboxes.get(connId)
    if (inbox === undefined) return
    if (inbox.subscriber !== undefined) inbox.subscriber.next(event)
    else if (inbox.held.length < MAX_HELD_EVENTS) inbox.held.push(event)
  }

  network(): AnyActorRef | undefined {
    return this.#system?.get(SystemId.Network)
  }

  #networkContext(): NetworkContext | undefined {
    return this.network()?.getSnapshot().context as NetworkContext | undefined
  }

  /** The session registered as `peer:<NodeID>`. */
  session(nodeId: string): AnyActorRef | undefined {
    return this.#system?.get(SystemId.peer(nodeId))
  }

  sessionContext(nodeId: string): PeerSessionContext | undefined {
    return this.session(nodeId)?.getSnapshot().context as PeerSessionContext | undefined
  }

  /** A handshaken session that is not closing. */
  isConnected(nodeId: string): boolean {
    const snap = this.session(nodeId)?.getSnapshot() as { status: string; value: unknown } | undefined
    // `connected` is a parallel state: its value is an object keyed `connected` (cheaper than `matches`, asked on
    // every chain request)
    return (
      snap !== undefined &&
      snap.status === 'active' &&
      typeof snap.value === 'object' &&
      snap.value !== null &&
      'connected' in snap.value
    )
  }

  /** NodeIDs with a registered session (handshaking or connected) */
  sessionNodeIds(): string[] {
    return Object.keys(this.#networkContext()?.peers ?? {})
  }

  connectedNodeIds(): string[] {
    return this.sessionNodeIds().filter((id) => this.isConnected(id))
  }

  /** The connection of `peer:<NodeID>`. */
  connectionOf(nodeId: string): ConnectionIo | undefined {
    const connId = this.#networkContext()?.peers[nodeId]
    return connId === undefined ? undefined : this.#byId.get(connId)
  }

  /** The session of a connection once the network accepted its NodeID (handshaking or connected). */
  sessionOfConnection(connId: string): AnyActorRef | undefined {
    const ctx = this.#networkContext()
    const nodeId = ctx?.conns[connId]?.nodeId ?? null
    return nodeId !== null && ctx?.peers[nodeId] === connId ? this.session(nodeId) : undefined
  }

  /** The libp2p peer of a connected session, for sending it requests. */
  peerIdOf(nodeId: string): PeerId | undefined {
    return this.isConnected(nodeId) ? this.connectionOf(nodeId)?.conn.remotePeer : undefined
  }

  /** The NodeID of the connected session on this very connection. */
  connectedNodeIdOf(conn: Connection): string | undefined {
    const nodeId = this.#networkContext()?.conns[conn.id]?.nodeId ?? null
    return nodeId !== null && this.isConnected(nodeId) ? nodeId : undefined
  }

  /** Reports traffic with a peer to its session (coalesced per direction). */
  touch(nodeId: string, direction: 'in' | 'out'): void {
    const io = this.connectionOf(nodeId)
    if (io !== undefined) this.touchConnection(io, direction)
  }

  touchConnection(io: ConnectionIo, direction: 'in' | 'out'): void {
    const at = this.now()
    if (direction === 'in') {
      if (at - io.stampedIn < TRAFFIC_STAMP_MS) return
      io.stampedIn = at
    } else {
      if (at - io.stampedOut < TRAFFIC_STAMP_MS) return
      io.stampedOut = at
    }
    this.tell(io.conn.id, { type: 'session.traffic', direction, at })
  }
}
