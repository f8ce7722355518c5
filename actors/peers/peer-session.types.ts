/**
 * The peer session's vocabulary: input, context, events, emitted events and the close reasons (the log line
 * that says why a peer was dropped). Protocol-level reasons (network id mismatch, clock skew, incompatible
 * version, bad signature ...) come from the handshake check in `session.handshakeReceived {ok: false, reason}`.
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
  invalidUptime: (uptime: number) => `invalid uptime ${uptime} (over 100)`,
} as const

export interface PeerSessionInput {
  /** known when we dialed a NodeID, or from the authenticated key; otherwise taken from the handshake */
  nodeId?: string
  /** remote address of the connection, `ip:port` */
  remoteAddr: string
  outbound: boolean
  pingIntervalMs?: number
  pongTimeoutMs?: number
  handshakeTimeoutMs?: number
}

export const DEFAULT_PING_INTERVAL_MS = 22_500
export const DEFAULT_PONG_TIMEOUT_MS = 30_000
export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 15_000

/** What a valid Handshake told us (JSON-safe). */
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
  nodeId: string | null
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
  /** unix ms when the handshake completed (from `session.peerListReceived.at`), null before */
  connectedAt: number | null
  /** a Ping went out and its Pong has not come back */
  pingOutstanding: boolean
  /** `session.connected` was emitted, so `session.disconnected` will be */
  connectedEmitted: boolean
  closeReason: string | null
}

export type PeerSessionEvent =
  | { type: 'session.handshakeReceived'; ok: true; info: HandshakeInfo }
  | { type: 'session.handshakeReceived'; ok: false; reason: string }
  | { type: 'session.peerListReceived'; at?: number }
  /** any inbound message (send it for every one, before the typed event): resets the silence timer */
  | { type: 'session.messageReceived' }
  | { type: 'session.ping'; uptime: number }
  | { type: 'session.pong' }
  /** close for a reason found outside (no longer wanted, version or BLS re-check at a ping tick, shutdown) */
  | { type: 'session.close'; reason: string }
  /** the connection is gone (closed by us after `session.closing`, or by the remote side) */
  | { type: 'session.closed'; reason?: string }
  | { type: 'session.benched'; chainId: string; benched: boolean }

export type PeerSessionEmitted =
  /** the handshake was accepted: answer with our PeerList */
  | { type: 'session.sendPeerList'; nodeId: string }
  | {
      type: 'session.connected'
      nodeId: string
      version: string
      trackedSubnets: string[]
      connectedAt: number | null
    }
  /** send a Ping (with our measurement of the peer's uptime) and re-check that the peer is still wanted */
  | { type: 'session.sendPing'; nodeId: string }
  /** close the connection, then send `session.closed` */
  | { type: 'session.closing'; nodeId: string | null; reason: string }
  | { type: 'session.disconnected'; nodeId: string; reason: string }

export const peerSessionContext = (input: PeerSessionInput): PeerSessionContext => ({
  nodeId: input.nodeId ?? null,
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
  connectedAt: null,
  pingOutstanding: false,
  connectedEmitted: false,
  closeReason: null,
})

/** A Ping's uptime is a whole percent in [0, 100]; anything else drops the peer. */
export const validUptime = (uptime: number): boolean => Number.isInteger(uptime) && uptime >= 0 && uptime <= 100

/** The benched chain list after a `session.benched`. */
export const withBenched = (chains: string[], chainId: string, benched: boolean): string[] => {
  const rest = chains.filter((c) => c !== chainId)
  return benched ? [...rest, chainId].sort() : rest
}
