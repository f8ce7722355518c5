/**
 * One peer connection (`peer:<NodeID>`), after the libp2p transport and Noise are up (reference notes 7.2):
 * `handshaking (awaitingHandshake -> awaitingPeerList) -> connected -> closing -> closed`.
 *
 * - handshaking: a valid Handshake is answered with our PeerList (`session.sendPeerList`); the peer's PeerList
 *   after that completes it. A PeerList before the Handshake is ignored; an invalid Handshake, a second one, or
 *   no completion within `handshakeTimeout` closes.
 * - connected: emits `session.connected` once; every `pingInterval` emits `session.sendPing`; `pongTimeout`
 *   without any inbound message (`session.messageReceived`) closes with 'ping timeout'; a Ping stores the peer's
 *   view of our uptime (over 100 closes); a Pong with no Ping outstanding closes with 'unexpected pong'.
 * - closing: emits `session.closing {reason}` for the IO layer to close the connection; `session.closed` ends.
 * - closed (final): emits `session.disconnected` iff `session.connected` was emitted.
 * Pure: no IO; timers are the named delays `handshakeTimeout`, `pingInterval`, `pongTimeout`.
 */
import { assign, emit, enqueueActions, setup } from 'xstate'
import {
  CloseReason,
  type PeerSessionContext,
  type PeerSessionEmitted,
  type PeerSessionEvent,
  type PeerSessionInput,
  peerSessionContext,
  validUptime,
  withBenched,
} from './peer-session.types.js'

export * from './peer-session.types.js'

export const peerSessionMachine = setup({
  types: {
    input: {} as PeerSessionInput,
    context: {} as PeerSessionContext,
    events: {} as PeerSessionEvent,
    emitted: {} as PeerSessionEmitted,
  },
  delays: {
    handshakeTimeout: ({ context }) => context.handshakeTimeoutMs,
    pingInterval: ({ context }) => context.pingIntervalMs,
    pongTimeout: ({ context }) => context.pongTimeoutMs,
  },
  actions: {
    /** the first reason to close is the one reported */
    setCloseReason: assign({ closeReason: ({ context }, p: { reason: string }) => context.closeReason ?? p.reason }),
    storeHandshake: assign(({ event }) => {
      if (event.type !== 'session.handshakeReceived' || !event.ok) return {}
      const i = event.info
      return {
        nodeId: i.nodeId,
        version: i.version,
        trackedSubnets: [...i.trackedSubnets],
        publicIp: i.publicIp ?? null,
        upgradeTime: i.upgradeTime ?? null,
        supportedAcps: [...(i.supportedAcps ?? [])],
        objectedAcps: [...(i.objectedAcps ?? [])],
      }
    }),
    sendPeerList: emit(({ context }) => ({ type: 'session.sendPeerList' as const, nodeId: context.nodeId ?? '' })),
    stampConnected: assign({
      connectedAt: ({ event }) => (event.type === 'session.peerListReceived' ? (event.at ?? null) : null),
    }),
    announceConnected: enqueueActions(({ context, enqueue }) => {
      enqueue.assign({ connectedEmitted: true })
      enqueue.emit({
        type: 'session.connected',
        nodeId: context.nodeId ?? '',
        version: context.version ?? '',
        trackedSubnets: context.trackedSubnets,
        connectedAt: context.connectedAt,
      })
    }),
    storeUptime: assign({
      observedUptime: ({ context, event }) => (event.type === 'session.ping' ? event.uptime : context.observedUptime),
    }),
    sendPing: enqueueActions(({ context, enqueue }) => {
      enqueue.assign({ pingOutstanding: true })
      enqueue.emit({ type: 'session.sendPing', nodeId: context.nodeId ?? '' })
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
      nodeId: context.nodeId,
      reason: context.closeReason ?? CloseReason.ConnectionClosed,
    })),
    announceDisconnected: enqueueActions(({ context, enqueue }) => {
      if (!context.connectedEmitted) return
      enqueue.emit({
        type: 'session.disconnected',
        nodeId: context.nodeId ?? '',
        reason: context.closeReason ?? CloseReason.ConnectionClosed,
      })
    }),
  },
  guards: {
    handshakeOk: ({ event }) => event.type === 'session.handshakeReceived' && event.ok,
    /** we dialed (or authenticated) one NodeID and the handshake names another */
    nodeIdMismatch: ({ context, event }) =>
      event.type === 'session.handshakeReceived' &&
      event.ok &&
      context.nodeId !== null &&
      event.info.nodeId !== context.nodeId,
    uptimeValid: ({ event }) => event.type === 'session.ping' && validUptime(event.uptime),
    pingOutstanding: ({ context }) => context.pingOutstanding,
  },
}).createMachine({
  id: 'peerSession',
  context: ({ input }) => peerSessionContext(input),
  initial: 'handshaking',
  on: {
    'session.closed': {
      target: '.closed',
      actions: {
        type: 'setCloseReason',
        params: ({ event }) => ({ reason: event.reason ?? CloseReason.ConnectionClosed }),
      },
    },
  },
  states: {
    handshaking: {
      initial: 'awaitingHandshake',
      after: {
        handshakeTimeout: {
          target: 'closing',
          actions: { type: 'setCloseReason', params: { reason: CloseReason.HandshakeTimeout } },
        },
      },
      on: {
        'session.ping': [
          { guard: 'uptimeValid', actions: 'storeUptime' },
          {
            target: 'closing',
            actions: {
              type: 'setCloseReason',
              params: ({ event }) => ({ reason: CloseReason.invalidUptime(event.uptime) }),
            },
          },
        ],
        // no Ping goes out before the handshake completes, so every Pong is unsolicited
        'session.pong': {
          target: 'closing',
          actions: { type: 'setCloseReason', params: { reason: CloseReason.UnexpectedPong } },
        },
        'session.close': {
          target: 'closing',
          actions: { type: 'setCloseReason', params: ({ event }) => ({ reason: event.reason }) },
        },
        'session.benched': { actions: 'setBenched' },
      },
      states: {
        awaitingHandshake: {
          on: {
            'session.handshakeReceived': [
              {
                guard: 'nodeIdMismatch',
                target: '#peerSession.closing',
                actions: { type: 'setCloseReason', params: { reason: CloseReason.UnexpectedNodeId } },
              },
              { guard: 'handshakeOk', target: 'awaitingPeerList', actions: 'storeHandshake' },
              {
                target: '#peerSession.closing',
                actions: {
                  type: 'setCloseReason',
                  params: ({ event }) => ({ reason: event.ok ? '' : event.reason }),
                },
              },
            ],
          },
        },
        awaitingPeerList: {
          entry: 'sendPeerList',
          on: {
            'session.peerListReceived': { target: '#peerSession.connected', actions: 'stampConnected' },
            'session.handshakeReceived': {
              target: '#peerSession.closing',
              actions: { type: 'setCloseReason', params: { reason: CloseReason.SecondHandshake } },
            },
          },
        },
      },
    },
    connected: {
      type: 'parallel',
      entry: 'announceConnected',
      on: {
        'session.handshakeReceived': {
          target: 'closing',
          actions: { type: 'setCloseReason', params: { reason: CloseReason.SecondHandshake } },
        },
        'session.ping': [
          { guard: 'uptimeValid', actions: 'storeUptime' },
          {
            target: 'closing',
            actions: {
              type: 'setCloseReason',
              params: ({ event }) => ({ reason: CloseReason.invalidUptime(event.uptime) }),
            },
          },
        ],
        'session.pong': [
          { guard: 'pingOutstanding', actions: 'clearPing' },
          {
            target: 'closing',
            actions: { type: 'setCloseReason', params: { reason: CloseReason.UnexpectedPong } },
          },
        ],
        'session.close': {
          target: 'closing',
          actions: { type: 'setCloseReason', params: ({ event }) => ({ reason: event.reason }) },
        },
        'session.benched': { actions: 'setBenched' },
      },
      states: {
        /** any inbound message restarts the silence timer */
        liveness: {
          initial: 'listening',
          states: {
            listening: {
              after: {
                pongTimeout: {
                  target: '#peerSession.closing',
                  actions: { type: 'setCloseReason', params: { reason: CloseReason.PingTimeout } },
                },
              },
              on: { 'session.messageReceived': { target: 'listening', reenter: true } },
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
    },
    closed: {
      type: 'final',
      entry: 'announceDisconnected',
    },
  },
})
