/**
 * One libp2p connection's peer session, from the moment the connection opens (reference notes 7.2):
 * `handshaking (awaitingHandshake -> checking -> identifying -> awaitingPeerList) -> connected -> closing -> closed`.
 * The network actor spawns it as `conn:<connId>` and registers it as `peer:<NodeID>` once its handshake proves the
 * NodeID.
 *
 * - handshaking: on entry our Handshake goes out (`session.sendHandshake`); its answer, the peer's PeerList, may come
 *   at any time and is remembered. The peer's Handshake is checked by the `checkHandshake` slot (certificate,
 *   signatures, BLS: crypto lives in src/); its error message is the drop reason. A NodeID other than the one we
 *   dialed closes; otherwise the network actor hears `network.sessionIdentified` and answers `session.identified`
 *   (or closes us as a duplicate or ourselves). Then our PeerList answers their Handshake (`session.sendPeerList`)
 *   and, with their PeerList in, the session is connected. No completion within `handshakeTimeout` closes.
 * - connected: tells the network actor (`network.peerConnected`); every `pingInterval` a Ping goes out
 *   (`session.sendPing`); `pongTimeout` without inbound traffic closes with 'ping timeout'; a Ping stores the peer's
 *   view of our uptime (over 100 closes); a Pong with no Ping outstanding closes with 'unexpected pong'.
 * - closing: `session.closing {reason}` for src/ to log and close the connection; `session.closed` ends.
 * - closed (final): the network actor hears `network.sessionEnded` (with whether it was connected).
 * What the session tells the network actor goes through the `notifyNetwork` action (`sendParent`; tests provide
 * their own to read it).
 * Pure: IO enters through the `sessionIo` slot (an Observable of this connection's events) and `checkHandshake`;
 * timers are the named delays `handshakeTimeout`, `pingInterval`, `pongTimeout`.
 */
import { type AnyActorRef, assign, emit, enqueueActions, sendParent, setup } from 'xstate'
import { notProvidedEventObservable, notProvidedPromise } from '../not-provided.js'
import {
  CloseReason,
  errorReason,
  type HandshakeInfo,
  type PeerSessionContext,
  type PeerSessionEmitted,
  type PeerSessionEvent,
  type PeerSessionInput,
  peerSessionContext,
  type SessionToNetwork,
  validUptime,
  withBenched,
} from './peer-session.types.js'

export * from './peer-session.types.js'

/** The input of the session's IO slot: its connection, and the session itself (src/ listens to what it emits). */
export interface SessionIoInput {
  connId: string
  /** the session; it emits PeerSessionEmitted */
  self: AnyActorRef
}

/** close with a fixed reason (the first reason to close is the one reported) */
const closeWith = (reason: string) => ({
  target: '#peerSession.closing',
  actions: { type: 'setCloseReason' as const, params: { reason } },
})

export const peerSessionMachine = setup({
  types: {
    input: {} as PeerSessionInput,
    context: {} as PeerSessionContext,
    events: {} as PeerSessionEvent,
    emitted: {} as PeerSessionEmitted,
  },
  actors: {
    sessionIo: notProvidedEventObservable<PeerSessionEvent, SessionIoInput>('sessionIo'),
    checkHandshake: notProvidedPromise<HandshakeInfo, { connId: string }>('checkHandshake'),
  },
  delays: {
    handshakeTimeout: ({ context }) => context.handshakeTimeoutMs,
    pingInterval: ({ context }) => context.pingIntervalMs,
    pongTimeout: ({ context }) => context.pongTimeoutMs,
  },
  actions: {
    setCloseReason: assign({ closeReason: ({ context }, p: { reason: string }) => context.closeReason ?? p.reason }),
    storeHandshake: assign((_, i: HandshakeInfo) => ({
      nodeId: i.nodeId,
      version: i.version,
      trackedSubnets: [...i.trackedSubnets],
      publicIp: i.publicIp ?? null,
      upgradeTime: i.upgradeTime ?? null,
      supportedAcps: [...(i.supportedAcps ?? [])],
      objectedAcps: [...(i.objectedAcps ?? [])],
    })),
    notifyNetwork: sendParent((_, e: SessionToNetwork) => e),
    sendHandshake: emit(({ context }) => ({ type: 'session.sendHandshake' as const, connId: context.connId })),
    sendPeerList: emit(({ context }) => ({
      type: 'session.sendPeerList' as const,
      connId: context.connId,
      nodeId: context.nodeId ?? '',
    })),
    rememberPeerList: assign({
      peerListAt: ({ context, event }) =>
        context.peerListAt ?? (event.type === 'session.peerListReceived' ? event.at : null),
    }),
    stampTraffic: assign(({ event }) => {
      if (event.type !== 'session.traffic') return {}
      return event.direction === 'in' ? { lastReceivedAt: event.at } : { lastSentAt: event.at }
    }),
    markConnected: assign(({ context }) => ({ connectedAt: context.peerListAt ?? 0, connectedAnnounced: true })),
    storeUptime: assign({
      observedUptime: ({ context, event }) => (event.type === 'session.ping' ? event.uptime : context.observedUptime),
    }),
    sendPing: enqueueActions(({ context, enqueue }) => {
      enqueue.assign({ pingOutstanding: true })
      enqueue.emit({ type: 'session.sendPing', connId: context.connId, nodeId: context.nodeId ?? '' })
    }),
    clearPing: assign({ pingOutstanding: false }),
    setBenched: assign({
      benchedChains: ({ context, event }) =>
        event.type === 'session.benched'
          ? withBenched(context.benchedChains, event.chainId, event.benched)
          : context.benchedChains,
    }),
    announceClosing: emit(({ context }) => ({
      type: 'session.closing' as const,
      connId: context.connId,
      nodeId: context.nodeId,
      reason: context.closeReason ?? CloseReason.ConnectionClosed,
    })),
  },
  guards: {
    /** we dialed one NodeID and the handshake names another */
    nodeIdMismatch: ({ context }, info: HandshakeInfo) =>
      context.expectedNodeId !== null && info.nodeId !== context.expectedNodeId,
    uptimeValid: ({ event }) => event.type === 'session.ping' && validUptime(event.uptime),
    pingOutstanding: ({ context }) => context.pingOutstanding,
    peerListSeen: ({ context }) => context.peerListAt !== null,
    inbound: ({ event }) => event.type === 'session.traffic' && event.direction === 'in',
  },
}).createMachine({
  id: 'peerSession',
  context: ({ input }) => peerSessionContext(input),
  invoke: {
    id: 'io',
    src: 'sessionIo',
    input: ({ context, self }) => ({ connId: context.connId, self }),
  },
  initial: 'handshaking',
  on: {
    'session.closed': {
      target: '.closed',
      actions: [
        { type: 'setCloseReason', params: ({ event }) => ({ reason: event.reason ?? CloseReason.ConnectionClosed }) },
        assign({ closedAt: ({ event }) => event.at }),
      ],
    },
    'session.traffic': { actions: 'stampTraffic' },
    'session.benched': { actions: 'setBenched' },
    'session.close': {
      target: '.closing',
      actions: { type: 'setCloseReason', params: ({ event }) => ({ reason: event.reason }) },
    },
    'session.ping': [
      { guard: 'uptimeValid', actions: 'storeUptime' },
      {
        target: '.closing',
        actions: {
          type: 'setCloseReason',
          params: ({ event }) => ({ reason: CloseReason.invalidUptime(event.uptime) }),
        },
      },
    ],
    // no Ping goes out before the handshake completes, so a Pong then is unsolicited
    'session.pong': closeWith(CloseReason.UnexpectedPong),
    'session.handshakeReceived': closeWith(CloseReason.SecondHandshake),
  },
  states: {
    handshaking: {
      initial: 'awaitingHandshake',
      entry: 'sendHandshake',
      after: { handshakeTimeout: closeWith(CloseReason.HandshakeTimeout) },
      on: { 'session.peerListReceived': { actions: 'rememberPeerList' } },
      states: {
        awaitingHandshake: {
          on: { 'session.handshakeReceived': 'checking' },
        },
        checking: {
          invoke: {
            id: 'checkHandshake',
            src: 'checkHandshake',
            input: ({ context }) => ({ connId: context.connId }),
            onDone: [
              {
                guard: { type: 'nodeIdMismatch', params: ({ event }) => event.output },
                target: '#peerSession.closing',
                actions: [
                  { type: 'storeHandshake', params: ({ event }) => event.output },
                  { type: 'setCloseReason', params: { reason: CloseReason.UnexpectedNodeId } },
                ],
              },
              {
                target: 'identifying',
                actions: [
                  { type: 'storeHandshake', params: ({ event }) => event.output },
                  {
                    type: 'notifyNetwork',
                    params: ({ context, event }) => ({
                      type: 'network.sessionIdentified' as const,
                      connId: context.connId,
                      nodeId: event.output.nodeId,
                    }),
                  },
                ],
              },
            ],
            onError: {
              target: '#peerSession.closing',
              actions: { type: 'setCloseReason', params: ({ event }) => ({ reason: errorReason(event.error) }) },
            },
          },
        },
        identifying: {
          on: { 'session.identified': 'awaitingPeerList' },
        },
        awaitingPeerList: {
          entry: 'sendPeerList',
          always: { guard: 'peerListSeen', target: '#peerSession.connected' },
          on: { 'session.peerListReceived': { target: '#peerSession.connected', actions: 'rememberPeerList' } },
        },
      },
    },
    connected: {
      type: 'parallel',
      entry: [
        'markConnected',
        {
          type: 'notifyNetwork',
          params: ({ context }) => ({
            type: 'network.peerConnected' as const,
            connId: context.connId,
            nodeId: context.nodeId ?? '',
            at: context.connectedAt ?? 0,
          }),
        },
      ],
      on: {
        'session.pong': [{ guard: 'pingOutstanding', actions: 'clearPing' }, closeWith(CloseReason.UnexpectedPong)],
      },
      states: {
        /** inbound traffic restarts the silence timer */
        liveness: {
          initial: 'listening',
          states: {
            listening: {
              after: { pongTimeout: closeWith(CloseReason.PingTimeout) },
              on: {
                'session.traffic': [
                  { guard: 'inbound', target: 'listening', reenter: true, actions: 'stampTraffic' },
                  { actions: 'stampTraffic' },
                ],
              },
            },
          },
        },
        pinging: {
          initial: 'waiting',
          states: {
            waiting: {
              after: { pingInterval: { target: 'waiting', reenter: true, actions: 'sendPing' } },
            },
          },
        },
      },
    },
    closing: {
      entry: 'announceClosing',
      on: {
        'session.close': {},
        'session.ping': {},
        'session.pong': {},
        'session.handshakeReceived': {},
      },
    },
    closed: {
      type: 'final',
      entry: {
        type: 'notifyNetwork',
        params: ({ context }) => ({
          type: 'network.sessionEnded' as const,
          connId: context.connId,
          nodeId: context.nodeId,
          wasConnected: context.connectedAnnounced,
          reason: context.closeReason ?? CloseReason.ConnectionClosed,
          at: context.closedAt ?? 0,
        }),
      },
    },
  },
})
