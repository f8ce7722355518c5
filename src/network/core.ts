/**
 * The shared state of one node's p2p network: options, constants, the connection/session/claim/dial tables and
 * the parts (handshakes, sessions, gossip, dialer, uptime, benching, echo, the chain router and its inbound side) that
 * network.ts composes. Each part
 * reaches the others through this object.
 */

import type { Connection, PeerId } from '@libp2p/interface'
import { Subject } from 'rxjs'
import type { ActorRefFrom, AnyActorRef, Subscription } from 'xstate'
import type { AdaptiveTimeoutConfig } from '../../actors/peers/adaptive-timeout.js'
import type { BenchlistConfig } from '../../actors/peers/benchlist.js'
import { CloseReason, type peerSessionMachine } from '../../actors/peers/peer-session.machine.js'
import type { SignedIp } from '../../protocols/handshake/build.js'
import type { PeerInfo as HandshakePeer } from '../../protocols/handshake/validate.js'
import type { ClaimedIpPort } from '../../protocols/messages/p2p.js'
import type { NodeConfig } from '../config/node-config.js'
import type { Database } from '../db/open.js'
import type { StakingIdentity } from '../identity/staking.js'
import type { Logger } from '../log/logger.js'
import type { Benching } from './benching.js'
import type { ChainInbound } from './chain-inbound.js'
import type { ChainRouter } from './chain-router.js'
import type { Dialer } from './dialer.js'
import type { EchoBridge } from './echo.js'
import type { Gossip } from './gossip.js'
import type { Handshakes } from './handshakes.js'
import type { Host } from './host.js'
import type { PeerTable } from './peer-table.js'
import type { Sessions } from './sessions.js'
import type { UptimeStore } from './uptime-store.js'
import type { ValidatorSet } from './validators.js'

/** The minimum compatible Firn version, before and after the upgrade (lead's decision). */
export const MIN_COMPATIBLE_VERSION = { major: 0, minor: 1, patch: 0 } as const
export const GOSSIP_INTERVAL_MS = 2_000
export const BLOOM_RESET_MS = 60_000
export const HANDSHAKE_TIMEOUT_MS = 15_000
export const REQUEST_TIMEOUT_MS = 10_000
export const REDIAL_INITIAL_MS = 1_000
export const REDIAL_MAX_MS = 60_000
export const DropReason = {
  Duplicate: 'duplicate connection',
  Self: 'connection to self',
  UnexpectedNodeId: CloseReason.UnexpectedNodeId,
  HandshakeTimeout: CloseReason.HandshakeTimeout,
} as const

export type SessionRef = ActorRefFrom<typeof peerSessionMachine>

export interface NetworkOptions {
  config: Pick<
    NodeConfig,
    | 'dev'
    | 'networkId'
    | 'publicIp'
    | 'staking'
    | 'trackSubnets'
    | 'acpSupport'
    | 'acpObject'
    | 'bootstrap'
    | 'sybilProtection'
  > &
    Partial<Pick<NodeConfig, 'networkTimeout' | 'benchlist' | 'ping' | 'appConcurrency'>>
  identity: StakingIdentity
  signer: { signProofOfPossession(message: Uint8Array): Uint8Array }
  db: Database
  peers: PeerTable
  validators: ValidatorSet
  /** the actor system holding `network` (and, below it, the sessions and benchlists) */
  system: { get(systemId: string): AnyActorRef | undefined }
  log: Logger
  /** the chains that get a benchlist (`benchlist:<alias>`); none when absent */
  chains?: readonly { chainId: string; alias: string }[]
  /** snow K and alphaConfidence, for the benchlist stake cap; the snow defaults (20, 15) when absent */
  snow?: { k: number; alphaConfidence: number }
  /** overrides of the adaptive request timeout and the benchlist (tests); the config's flags otherwise */
  requestTimeout?: Partial<AdaptiveTimeoutConfig>
  benchlist?: Partial<BenchlistConfig>
  /** register the test-only protocols (echo); processes set FIRN_TEST_PROTOCOLS=1 */
  testProtocols?: boolean
  /** the echo handler stays silent while this returns true (FIRN_TEST_ECHO_SILENT=1 for processes) */
  echoSilent?: () => boolean
  /** unix ms; Date.now */
  now?: () => number
  /** [0, 1); Math.random */
  random?: () => number
  gossipIntervalMs?: number
  bloomResetMs?: number
}

export interface ConnState {
  conn: Connection
  /** the NodeID of the session bound to this connection */
  nodeId?: string
  handshakeSeen: boolean
  /** when our Handshake's answer (the peer's PeerList) arrived */
  peerListAt?: number
  dropped: boolean
  timer?: NodeJS.Timeout
}

export interface Session {
  nodeId: string
  connId: string
  conn: Connection
  peerId: PeerId
  ref: SessionRef
  peer: HandshakePeer
  subs: Subscription[]
  done: boolean
  /** weight > 0 when it disconnected: worth redialing */
  wasValidator: boolean
}

export interface KnownClaim {
  nodeId: string
  claim: ClaimedIpPort
  timestamp: number
  gossipId: Uint8Array
  addr: string
}

export interface DialTarget {
  addr: string
  backoffMs: number
  timer?: NodeJS.Timeout
  bootstrapper: boolean
}

/**
 * What the peer sessions tell the rest of the node, as one RxJS stream (`NetworkCore.peerEvents$`): uptime
 * accounting and the benchlists' validator weights subscribe to it; the consensus issue's engines will too.
 */
export type PeerEvent =
  | { type: 'connected'; nodeId: string; at: number }
  | { type: 'disconnected'; nodeId: string; at: number; reason: string }
  | { type: 'traffic'; nodeId: string; at: number; direction: 'in' | 'out' }

export const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** The state every part shares; the parts are set by network.ts before anything runs. */
export class NetworkCore {
  readonly o: NetworkOptions
  readonly now: () => number
  readonly random: () => number
  readonly log: Logger
  readonly nodeId: string
  host!: Host
  port = 0
  libp2pPublicKey!: Uint8Array
  signed!: SignedIp
  upgradeTimeS = 0
  trackedSubnets: Uint8Array[] = []
  readonly conns = new Map<string, ConnState>()
  readonly sessions = new Map<string, Session>()
  readonly claims = new Map<string, KnownClaim>()
  readonly targets = new Map<string, DialTarget>()
  readonly dialing = new Set<string>()
  /** bootstrap `ip:port` -> expected NodeID */
  readonly bootstrapByAddr = new Map<string, string>()
  /** connect / disconnect / traffic of every session, in order */
  readonly peerEvents$ = new Subject<PeerEvent>()
  closed = false

  handshakes!: Handshakes
  sessionBridge!: Sessions
  gossip!: Gossip
  dialer!: Dialer
  uptime!: UptimeStore
  benching!: Benching
  echo!: EchoBridge
  chains!: ChainRouter
  chainInbound!: ChainInbound

  constructor(o: NetworkOptions) {
    this.o = o
    this.now = o.now ?? Date.now
    this.random = o.random ?? Math.random
    this.log = o.log
    this.nodeId = o.identity.nodeId
  }

  guard(what: string, f: () => void): void {
    try {
      f()
    } catch (err) {
      this.log.debug(`${what} failed`, { err })
    }
  }

  /** a live session that has completed its handshake */
  isConnected(s: Session | undefined): s is Session {
    return s !== undefined && !s.done && s.ref.getSnapshot().matches('connected')
  }
}
