/**
 * The peer session's vocabulary: input, context, events, emitted events and the close reasons (the log line
 * that says why a peer was dropped). Protocol-level reasons (network id mismatch, clock skew, incompatible
 * version, bad signature ...) are the messages of the `checkHandshake` slot's errors.
 */

export const CloseReason = {
  SecondHandshake: 'second handshake',
  UnexpectedPong: 'unexpected pong',
  PingTimeout: 'ping timeout',
  HandshakeTimeout: 'handshake timeout',
  /** the remote side closed the connection */
  ConnectionClosed: 'connection closed',
  /** the handshake's NodeID is not the one we dialed */
  UnexpectedNodeId: 'unexpected node ID',
  /** a second connection to a peer that already has one (the network actor decides which stays) */
  Duplicate: 'duplicate connection',
  /** the handshake names our own NodeID */
  Self: 'connection to self',
  /** the node is shutting down */
  Shutdown: 'shutdown',
  invalidUptime: (uptime: number) => `invalid uptime ${uptime} (over 100)`,
} as const

export interface PeerSessionInput {
  /** the libp2p connection this session owns */
  connId: string
  /** remote address of the connection, `ip:port` */
  remoteAddr: string
  outbound: boolean
  /** the NodeID we dialed, when we know it: a handshake naming another closes */
  expectedNodeId?: string | null
  pingIntervalMs?: number
  pongTimeoutMs?: number
  handshakeTimeoutMs?: number
}

export const DEFAULT_PING_INTERVAL_MS = 22_500
export const DEFAULT_PONG_TIMEOUT_MS = 30_000
export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 15_000

/** What a valid Handshake told us (JSON-safe): the `checkHandshake` slot's output. */
export interface HandshakeInfo {
  nodeId: string
  /** `<name>/<maj>.<min>.<patch>` */
  version: string
  trackedSubnets: string[]
  /** the address the peer signed, `ip:port` */
  publicIp?: string
  /** unix s */
  upgradeTime?: number
  supportedAcps?: number[]
  objectedAcps?: number[]
}

export interface PeerSessionContext {
  connId: string
  /** null until the handshake is checked */
  nodeId: string | null
  expectedNodeId: string | null
  remoteAddr: string
  outbound: boolean
  pingIntervalMs: number
  pongTimeoutMs: number
  handshakeTimeoutMs: number
  version: string | null
  trackedSubnets: string[]
  publicIp: string | null
  upgradeTime: number | null
  supportedAcps: number[]
  objectedAcps: number[]
  /** the peer's latest Ping.uptime: its view of our uptime, 0-100 */
  observedUptime: number
  /** chain IDs on which this peer is benched, sorted */
  benchedChains: string[]
  /** unix ms when the peer's PeerList (the answer to our Handshake) arrived, null before */
  peerListAt: number | null
  /** unix ms when the handshake completed, null before */
  connectedAt: number | null
  /** unix ms of the last traffic each way (stamped at most every 100 ms per direction by src/) */
  lastSentAt: number | null
  lastReceivedAt: number | null
  /** a Ping went out and its Pong has not come back */
  pingOutstanding: boolean
  /** the network actor heard `network.peerConnected`, so it will hear `network.peerDisconnected` */
  connectedAnnounced: boolean
  closeReason: string | null
  /** unix ms when the connection went, null before */
  closedAt: number | null
}

export type PeerSessionEvent =
  /** the peer's Handshake arrived on this connection (src/ keeps its bytes for `checkHandshake`) */
  | { type: 'session.handshakeReceived' }
  /** the answer to our Handshake */
  | { type: 'session.peerListReceived'; at: number }
  /** traffic on the connection; inbound traffic restarts the silence timer */
  | { type: 'session.traffic'; direction: 'in' | 'out'; at: number }
  | { type: 'session.ping'; uptime: number }
  | { type: 'session.pong' }
  /** from the network actor: the NodeID is ours to use (registered as `peer:<NodeID>`) */
  | { type: 'session.identified' }
  /** close for a reason found outside (duplicate, self, a bad request, shutdown) */
  | { type: 'session.close'; reason: string }
  /** the connection is gone (closed by us after `session.closing`, or by the remote side), at unix ms `at` */
  | { type: 'session.closed'; reason?: string; at: number }
  /** from a chain's benchlist */
  | { type: 'session.benched'; chainId: string; benched: boolean }

/** What src/ carries out (through the session's `sessionIo` slot). */
export type PeerSessionEmitted =
  /** send our Handshake on this connection; its answer (the peer's PeerList) comes back as `session.peerListReceived` */
  | { type: 'session.sendHandshake'; connId: string }
  /** the handshake was accepted: answer it with our PeerList */
  | { type: 'session.sendPeerList'; connId: string; nodeId: string }
  /** send a Ping (with our measurement of the peer's uptime) */
  | { type: 'session.sendPing'; connId: string; nodeId: string }
  /** close the connection (with a log line saying why), then send `session.closed` */
  | { type: 'session.closing'; connId: string; nodeId: string | null; reason: string }

/** What a session tells its parent, the network actor (the `notifyNetwork` action; `sendParent` by default). */
export type SessionToNetwork =
  | { type: 'network.sessionIdentified'; connId: string; nodeId: string }
  | { type: 'network.peerConnected'; connId: string; nodeId: string; at: number }
  /** the session is over; `wasConnected` when the network heard peerConnected for it */
  | {
      type: 'network.sessionEnded'
      connId: string
      nodeId: string | null
      wasConnected: boolean
      reason: string
      at: number
    }

export const peerSessionContext = (input: PeerSessionInput): PeerSessionContext => ({
  connId: input.connId,
  nodeId: null,
  expectedNodeId: input.expectedNodeId ?? null,
  remoteAddr: input.remoteAddr,
  outbound: input.outbound,
  pingIntervalMs: input.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS,
  pongTimeoutMs: input.pongTimeoutMs ?? DEFAULT_PONG_TIMEOUT_MS,
  handshakeTimeoutMs: input.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS,
  version: null,
  trackedSubnets: [],
  publicIp: null,
  upgradeTime: null,
  supportedAcps: [],
  objectedAcps: [],
  observedUptime: 0,
  benchedChains: [],
  peerListAt: null,
  connectedAt: null,
  lastSentAt: null,
  lastReceivedAt: null,
  pingOutstanding: false,
  connectedAnnounced: false,
  closeReason: null,
  closedAt: null,
})

/** A Ping's uptime is a whole percent in [0, 100]; anything else drops the peer. */
export const validUptime = (uptime: number): boolean => Number.isInteger(uptime) && uptime >= 0 && uptime <= 100

/** The benched chain list after a `session.benched`. */
export const withBenched = (chains: string[], chainId: string, benched: boolean): string[] => {
  const rest = chains.filter((c) => c !== chainId)
  return benched ? [...rest, chainId].sort() : rest
}

/** The message of a failed `checkHandshake` (its Error's message), the drop reason. */
export const errorReason = (error: unknown): string =>
  error instanceof Error ? error.message : typeof error === 'string' ? error : 'invalid handshake'
