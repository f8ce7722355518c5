/**
 * The network actor (`network`): the parent of one peer session per libp2p connection, and the owner of the
 * uptime accounting (the reference's, actors/peers/uptime.ts).
 *
 * - A connection opens (`network.connectionOpened`, from the `connections` slot): a session is spawned as
 *   `conn:<connId>`. A second connection to the same libp2p peer keeps the one the smaller PeerId dialed; the other
 *   session is closed as a duplicate.
 * - A session's handshake names its NodeID (`network.sessionIdentified`): our own NodeID closes it ('connection to
 *   self'), a NodeID that already has a session closes it as a duplicate; otherwise it is registered as
 *   `peer:<NodeID>` and told `session.identified`. So systemIds stay unique.
 * - Connected and disconnected sessions move the uptime accounting and are announced (`peer.connected`,
 *   `peer.disconnected`); records the accounting writes are emitted (`uptime.persist`) for src/ to store.
 * - A session that ended is stopped and forgotten (`session.ended`, for redials).
 * Pure: libp2p's connection events arrive through the `connections` slot, which also carries out what this actor
 * emits.
 */
import { type AnyActorRef, assign, emit, enqueueActions, setup } from 'xstate'
import { notProvidedEventObservable } from '../not-provided.js'
import { SystemId } from '../system-ids.js'
import { registerSystemId } from '../system-register.js'
import {
  CloseReason,
  type PeerSessionInput,
  peerSessionMachine,
  type SessionToNetwork,
} from './peer-session.machine.js'
import { type UptimeEvent, type UptimeRecord, type UptimeState, uptimeCreate, uptimeReducer } from './uptime.js'

export interface NetworkInput {
  selfNodeId: string
  /** with sybil protection off every connected peer is a validator; on, only `validatorIds` are */
  sybilProtection: boolean
  /** the validators (weight > 0) other than this node */
  validatorIds: string[]
  /** the persisted uptime records */
  uptimeRecords?: Record<string, UptimeRecord>
  /** unix ms, when the node started */
  startedAt: number
  /** the sessions' timers */
  session?: Pick<PeerSessionInput, 'pingIntervalMs' | 'pongTimeoutMs' | 'handshakeTimeoutMs'>
}

export interface ConnectionEntry {
  /** the libp2p PeerId of the remote side */
  remotePeer: string
  /** the libp2p PeerId of the side that dialed */
  dialer: string
  outbound: boolean
  /** set once the network accepted the session's NodeID */
  nodeId: string | null
  /** a session told to close as a duplicate no longer competes */
  closing: boolean
}

export interface NetworkContext extends Omit<NetworkInput, 'uptimeRecords' | 'startedAt'> {
  /** connection ID -> its session's entry */
  conns: Record<string, ConnectionEntry>
  /** NodeID -> connection ID of the session registered as `peer:<NodeID>` */
  peers: Record<string, string>
  uptime: UptimeState
  shuttingDown: boolean
}

export type NetworkEvent =
  | {
      type: 'network.connectionOpened'
      connId: string
      remotePeer: string
      dialer: string
      remoteAddr: string
      outbound: boolean
      /** the NodeID we dialed, when we know it */
      expectedNodeId: string | null
    }
  | { type: 'network.connectionClosed'; connId: string; at: number }
  /** start the uptime accounting: the validators get their records, time counts from `at` */
  | { type: 'network.startTracking'; at: number }
  /** stop the accounting and close every session */
  | { type: 'network.shutdown'; at: number }
  | SessionToNetwork

export type NetworkEmitted =
  | { type: 'peer.connected'; nodeId: string; at: number }
  | { type: 'peer.disconnected'; nodeId: string; at: number; reason: string }
  | { type: 'session.ended'; connId: string; nodeId: string | null; outbound: boolean }
  /** records to store (null: delete) */
  | { type: 'uptime.persist'; records: Record<string, UptimeRecord | null> }

/** The input of the `connections` slot: the network actor (src/ carries out what it emits). */
export interface ConnectionsInput {
  /** the network actor; it emits NetworkEmitted */
  self: AnyActorRef
}

export const connectionChildId = (connId: string): string => `conn:${connId}`

/** The dialer of two, compared as the reference's tie-break: keep the connection the smaller PeerId dialed. */
const keepsNew = (newDialer: string, oldDialer: string): boolean => newDialer !== oldDialer && newDialer < oldDialer

export const networkMachine = setup({
  types: {
    input: {} as NetworkInput,
    context: {} as NetworkContext,
    events: {} as NetworkEvent,
    emitted: {} as NetworkEmitted,
  },
  actors: {
    connections: notProvidedEventObservable<NetworkEvent, ConnectionsInput>('connections'),
    peerSession: peerSessionMachine,
  },
  actions: {
    /** runs the uptime reducer and emits the records it wrote */
    applyUptime: enqueueActions(({ context, enqueue }, events: UptimeEvent[]) => {
      let state = context.uptime
      const written = new Set<string>()
      for (const e of events) {
        const r = uptimeReducer(state, e)
        state = r.state
        for (const id of r.persisted) written.add(id)
      }
      if (state === context.uptime) return
      enqueue.assign({ uptime: state })
      if (written.size === 0) return
      const records: Record<string, UptimeRecord | null> = {}
      for (const id of [...written].sort()) records[id] = state.records[id] ?? null
      enqueue.emit({ type: 'uptime.persist', records })
    }),
    openSession: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'network.connectionOpened') return
      const id = connectionChildId(event.connId)
      enqueue.spawnChild('peerSession', {
        id,
        input: {
          connId: event.connId,
          remoteAddr: event.remoteAddr,
          outbound: event.outbound,
          expectedNodeId: event.expectedNodeId,
          ...context.session,
        },
      })
      const conns = { ...context.conns }
      const entry: ConnectionEntry = {
        remotePeer: event.remotePeer,
        dialer: event.dialer,
        outbound: event.outbound,
        nodeId: null,
        closing: false,
      }
      conns[event.connId] = entry
      for (const [otherId, other] of Object.entries(context.conns)) {
        if (other.closing || other.remotePeer !== event.remotePeer) continue
        const loserId = keepsNew(event.dialer, other.dialer) ? otherId : event.connId
        conns[loserId] = { ...(conns[loserId] as ConnectionEntry), closing: true }
        enqueue.sendTo(connectionChildId(loserId), { type: 'session.close', reason: CloseReason.Duplicate })
        if (loserId === event.connId) break
      }
      enqueue.assign({ conns })
    }),
    identify: enqueueActions(({ context, event, enqueue, self, system }) => {
      if (event.type !== 'network.sessionIdentified') return
      const child = connectionChildId(event.connId)
      if (context.conns[event.connId] === undefined) return
      if (event.nodeId === context.selfNodeId) {
        enqueue.sendTo(child, { type: 'session.close', reason: CloseReason.Self })
        return
      }
      if (context.peers[event.nodeId] !== undefined) {
        enqueue.sendTo(child, { type: 'session.close', reason: CloseReason.Duplicate })
        return
      }
      const ref = self.getSnapshot().children[child]
      if (ref === undefined) return
      registerSystemId(system, SystemId.peer(event.nodeId), ref)
      enqueue.assign({
        peers: { ...context.peers, [event.nodeId]: event.connId },
        conns: {
          ...context.conns,
          [event.connId]: { ...(context.conns[event.connId] as ConnectionEntry), nodeId: event.nodeId },
        },
      })
      enqueue.sendTo(child, { type: 'session.identified' })
    }),
    endSession: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'network.sessionEnded') return
      const entry = context.conns[event.connId]
      enqueue.stopChild(connectionChildId(event.connId))
      if (entry === undefined) return
      const { [event.connId]: _, ...conns } = context.conns
      const peers = { ...context.peers }
      if (entry.nodeId !== null && peers[entry.nodeId] === event.connId) delete peers[entry.nodeId]
      enqueue.assign({ conns, peers })
      enqueue.emit({ type: 'session.ended', connId: event.connId, nodeId: entry.nodeId, outbound: entry.outbound })
    }),
    closeAll: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'network.shutdown') return
      for (const connId of Object.keys(context.conns)) {
        enqueue.sendTo(connectionChildId(connId), {
          type: 'session.closed',
          reason: CloseReason.Shutdown,
          at: event.at,
        })
      }
    }),
  },
  guards: {
    open: ({ context }) => !context.shuttingDown,
    knownConnection: ({ context, event }) => 'connId' in event && context.conns[event.connId] !== undefined,
  },
}).createMachine({
  id: 'network',
  context: ({ input }) => ({
    selfNodeId: input.selfNodeId,
    sybilProtection: input.sybilProtection,
    validatorIds: [...input.validatorIds],
    ...(input.session === undefined ? {} : { session: input.session }),
    conns: {},
    peers: {},
    uptime: uptimeCreate({ selfNodeId: input.selfNodeId, nowMs: input.startedAt, records: input.uptimeRecords ?? {} }),
    shuttingDown: false,
  }),
  invoke: { id: 'connections', src: 'connections', input: ({ self }) => ({ self }) },
  on: {
    'network.connectionOpened': { guard: 'open', actions: 'openSession' },
    'network.connectionClosed': {
      guard: 'knownConnection',
      actions: enqueueActions(({ event, enqueue }) => {
        enqueue.sendTo(connectionChildId(event.connId), {
          type: 'session.closed',
          reason: CloseReason.ConnectionClosed,
          at: event.at,
        })
      }),
    },
    'network.sessionIdentified': { actions: 'identify' },
    'network.peerConnected': {
      actions: [
        {
          type: 'applyUptime',
          params: ({ context, event }) => {
            const isValidator = !context.sybilProtection || context.validatorIds.includes(event.nodeId)
            const add: UptimeEvent[] =
              isValidator && context.uptime.records[event.nodeId] === undefined
                ? [{ type: 'addValidator', nodeId: event.nodeId, startTimeMs: event.at }]
                : []
            return [...add, { type: 'connect', nodeId: event.nodeId, now: event.at }]
          },
        },
        emit(({ event }) => ({ type: 'peer.connected' as const, nodeId: event.nodeId, at: event.at })),
      ],
    },
    'network.sessionEnded': [
      {
        guard: ({ event }) => event.wasConnected && event.nodeId !== null,
        actions: [
          {
            type: 'applyUptime',
            params: ({ event }) => [{ type: 'disconnect', nodeId: event.nodeId ?? '', now: event.at }],
          },
          emit(({ event }) => ({
            type: 'peer.disconnected' as const,
            nodeId: event.nodeId ?? '',
            at: event.at,
            reason: event.reason,
          })),
          'endSession',
        ],
      },
      { actions: 'endSession' },
    ],
    'network.startTracking': {
      actions: {
        type: 'applyUptime',
        params: ({ context, event }) => [
          ...context.validatorIds.map((nodeId) => ({ type: 'addValidator' as const, nodeId, startTimeMs: event.at })),
          { type: 'startTracking' as const, now: event.at },
        ],
      },
    },
    'network.shutdown': {
      guard: 'open',
      actions: [
        { type: 'applyUptime', params: ({ event }) => [{ type: 'stopTracking', now: event.at }] },
        assign({ shuttingDown: true }),
        'closeAll',
      ],
    },
  },
})
