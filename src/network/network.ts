/**
 * The p2p layer's IO: the libp2p host, one peer session (`peer:<NodeID>`, under the `network` actor) per
 * handshaken connection, the PeerTable that info.peers reads, peer-list gossip, bootstrap dials and redials,
 * and the persisted uptime accounting. Every handler catches: malformed bytes or a failing peer never throw out
 * of here. See docs/architecture.md and /work/shared/reference/consensus.md section 4.
 */
import { randomBytes } from 'node:crypto'
import { publicKeyFromProtobuf, publicKeyToProtobuf } from '@libp2p/crypto/keys'
import type { Connection, PeerId } from '@libp2p/interface'
import { peerIdFromPublicKey } from '@libp2p/peer-id'
import { multiaddr } from '@multiformats/multiaddr'
import { sha256 } from '@noble/hashes/sha2.js'
import type { ActorRefFrom, AnyActorRef, Subscription } from 'xstate'
import { CloseReason, type PeerSessionEvent, type peerSessionMachine } from '../../actors/peers/peer-session.machine.js'
import {
  decodeUptimeRecord,
  encodeUptimeRecord,
  pingUptime,
  type UptimeEvent,
  type UptimeRecord,
  type UptimeState,
  uptimeCreate,
  uptimeReducer,
} from '../../actors/peers/uptime.js'
import { SystemId } from '../../actors/system-ids.js'
import { encodeFrame, readFrame } from '../../protocols/codec/frame.js'
import { buildClaim, buildHandshake, type SignedIp, signIp } from '../../protocols/handshake/build.js'
import { ipText, publicKeyOfPeerId } from '../../protocols/handshake/ip.js'
import { handshakeProtocol, handshakeSpec } from '../../protocols/handshake/service.js'
import { type PeerInfo as HandshakePeer, validateHandshake } from '../../protocols/handshake/validate.js'
import type { ClaimedIpPort, GetPeerList, Handshake, PeerList, Ping, Pong } from '../../protocols/messages/p2p.js'
import {
  BloomFilter,
  bloomHash,
  gossipId,
  MAX_BLOOM_SALT_LEN,
  newKnownPeersFilter,
  selectClaims,
} from '../../protocols/peers/bloom.js'
import { validateClaim } from '../../protocols/peers/claims.js'
import type { InboundRequest } from '../../protocols/service/exchange.js'
import type { NodeConfig } from '../config/node-config.js'
import { upgradeSchedule, upgradeTimeSeconds } from '../config/upgrades.js'
import { CLIENT_NAME, VERSION } from '../config/version.js'
import type { Database } from '../db/open.js'
import { Sublevel } from '../db/sublevels.js'
import { blsSignatureFromBytes } from '../identity/bls.js'
import { idFromString, idToString, nodeIdBytesFromCertDer, nodeIdFromCertDer } from '../identity/ids.js'
import { checkStakingCert, type StakingIdentity } from '../identity/staking.js'
import type { Logger } from '../log/logger.js'
import { boundPort, createHost, type Host, stakingListenHost } from './host.js'
import { libp2pKeyOf, publicKeyBytes, stakingSign, verifyStakingSig } from './identity.js'
import type { PeerTable } from './peer-table.js'
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

type SessionRef = ActorRefFrom<typeof peerSessionMachine>

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
  >
  identity: StakingIdentity
  signer: { signProofOfPossession(message: Uint8Array): Uint8Array }
  db: Database
  peers: PeerTable
  validators: ValidatorSet
  /** the actor system holding `network` (and, below it, the sessions) */
  system: { get(systemId: string): AnyActorRef | undefined }
  log: Logger
  /** unix ms; Date.now */
  now?: () => number
  /** [0, 1); Math.random */
  random?: () => number
  gossipIntervalMs?: number
  bloomResetMs?: number
}

interface ConnState {
  conn: Connection
  /** the NodeID of the session bound to this connection */
  nodeId?: string
  handshakeSeen: boolean
  /** when our Handshake's answer (the peer's PeerList) arrived */
  peerListAt?: number
  dropped: boolean
  timer?: NodeJS.Timeout
}

interface Session {
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

interface KnownClaim {
  nodeId: string
  claim: ClaimedIpPort
  timestamp: number
  gossipId: Uint8Array
  addr: string
}

interface DialTarget {
  addr: string
  backoffMs: number
  timer?: NodeJS.Timeout
  bootstrapper: boolean
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** `ip:port` of a multiaddr (`[ip6]:port` for IPv6), or its text. */
export function addrOf(ma: { toString(): string }): string {
  const m = /^\/(ip4|ip6|dns4|dns6|dns)\/([^/]+)\/tcp\/(\d+)/.exec(ma.toString())
  if (!m) return ma.toString()
  return m[1] === 'ip6' ? `[${m[2]}]:${m[3]}` : `${m[2]}:${m[3]}`
}

/** `ip:port` (or `[ip6]:port`) -> `/ip4/ip/tcp/port` (`/ip6/...`), with `/p2p/<peerId>` when given. */
export function multiaddrText(addr: string, peerId?: string): string {
  const m = /^\[?([0-9a-fA-F:.]+?)\]?:(\d+)$/.exec(addr)
  if (!m) throw new RangeError(`not an ip:port: ${addr}`)
  const ip = m[1] as string
  const base = `/${ip.includes(':') ? 'ip6' : 'ip4'}/${ip}/tcp/${m[2]}`
  return peerId ? `${base}/p2p/${peerId}` : base
}

/** An IP literal as 4 (IPv4) or 16 (IPv6) bytes. */
export function ipBytes(ip: string): Uint8Array {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) {
    const parts = ip.split('.').map(Number)
    if (parts.some((p) => p > 255)) throw new RangeError(`bad IPv4: ${ip}`)
    return Uint8Array.from(parts)
  }
  let text = ip
  let tail: number[] = []
  const v4 = /:(\d{1,3}(\.\d{1,3}){3})$/.exec(text)
  if (v4) {
    const b = ipBytes(v4[1] as string)
    tail = [((b[0] as number) << 8) | (b[1] as number), ((b[2] as number) << 8) | (b[3] as number)]
    text = text.slice(0, v4.index)
    if (text.endsWith(':')) text = `${text}:`
  }
  const [head = '', rest] = text.split('::')
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)))
  const h = groups(head)
  const r = rest === undefined ? [] : groups(rest)
  const missing = 8 - tail.length - h.length - r.length
  if (rest === undefined ? missing !== 0 : missing < 0) throw new RangeError(`bad IPv6: ${ip}`)
  const all = [...h, ...Array(rest === undefined ? 0 : missing).fill(0), ...r, ...tail]
  if (all.length !== 8 || all.some((g) => !(g >= 0 && g <= 0xffff))) throw new RangeError(`bad IPv6: ${ip}`)
  const out = new Uint8Array(16)
  all.forEach((g, i) => {
    out[2 * i] = g >> 8
    out[2 * i + 1] = g & 0xff
  })
  return out
}

/** Next redial delay: x[1,2) per failure, capped at [0.75,1) x 60 s. */
export function nextBackoff(current: number, random: () => number = Math.random): number {
  const next = current * (1 + random())
  return next > REDIAL_MAX_MS ? REDIAL_MAX_MS * (0.75 + 0.25 * random()) : next
}

/** The p2p network of one node. `Network.start` binds the staking port; `close()` undoes everything. */
export class Network {
  readonly #o: NetworkOptions
  readonly #now: () => number
  readonly #random: () => number
  readonly #log: Logger
  readonly #nodeId: string
  #host!: Host
  #port = 0
  #libp2pPublicKey!: Uint8Array
  #signed!: SignedIp
  #upgradeTimeS = 0
  #trackedSubnets: Uint8Array[] = []
  readonly #conns = new Map<string, ConnState>()
  readonly #sessions = new Map<string, Session>()
  readonly #claims = new Map<string, KnownClaim>()
  readonly #targets = new Map<string, DialTarget>()
  readonly #dialing = new Set<string>()
  /** bootstrap `ip:port` -> expected NodeID */
  readonly #bootstrapByAddr = new Map<string, string>()
  #uptime!: UptimeState
  #uptimeDb!: ReturnType<Database['sublevel']>
  #writes: Promise<void> = Promise.resolve()
  #known!: { filter: BloomFilter; salt: Uint8Array; maxCount: number }
  #timers: NodeJS.Timeout[] = []
  #closed = false
  #requestId = 1

  private constructor(o: NetworkOptions) {
    this.#o = o
    this.#now = o.now ?? Date.now
    this.#random = o.random ?? Math.random
    this.#log = o.log
    this.#nodeId = o.identity.nodeId
  }

  /** Loads uptimes, binds the staking port, starts tracking, dials the bootstrappers and starts gossip. */
  static async start(o: NetworkOptions): Promise<Network> {
    const n = new Network(o)
    await n.#start()
    return n
  }

  /** the bound staking port */
  get port(): number {
    return this.#port
  }

  get peerId(): string {
    return this.#host.peerId.toString()
  }

  /** listen addresses, with `/p2p/<peerId>` */
  multiaddrs(): string[] {
    return this.#host.getMultiaddrs().map(String)
  }

  /** NodeIDs with a session (handshaking or connected) */
  sessionNodeIds(): string[] {
    return [...this.#sessions.keys()]
  }

  /** the uptime accounting, for tests and the API */
  uptimeState(): UptimeState {
    return this.#uptime
  }

  async #start(): Promise<void> {
    const { config } = this.#o
    const now = this.#now()
    this.#uptimeDb = this.#o.db.sublevel<string, string>(Sublevel.uptime, {
      keyEncoding: 'utf8',
      valueEncoding: 'utf8',
    }) as unknown as ReturnType<Database['sublevel']>
    const records: Record<string, UptimeRecord> = {}
    for await (const [id, text] of this.#uptimeDb.iterator() as AsyncIterable<[string, string]>) {
      try {
        records[id] = decodeUptimeRecord(text)
      } catch (err) {
        this.#log.warn('skipping a bad uptime record', { nodeID: id, err })
      }
    }
    this.#uptime = uptimeCreate({ selfNodeId: this.#nodeId, nowMs: now, records })
    for (const v of this.#o.validators.list()) {
      if (v.weight > 0n) this.#applyUptime({ type: 'addValidator', nodeId: v.nodeId, startTimeMs: now })
    }

    this.#upgradeTimeS = upgradeTimeSeconds(upgradeSchedule(config.networkId))
    this.#trackedSubnets = config.trackSubnets.map(idFromString)
    this.#known = newKnownPeersFilter(0, (n) => new Uint8Array(randomBytes(n)))
    const privateKey = await libp2pKeyOf(this.#o.identity)
    this.#libp2pPublicKey = publicKeyBytes(privateKey)
    this.#host = await createHost({
      privateKey,
      networkId: config.networkId,
      host: stakingListenHost(config.staking.host, config.dev),
      port: config.staking.port,
      handlers: {
        handshake: (req, ctx) => this.#onHandshake(req, ctx),
        peers: (req, ctx) => this.#onGetPeerList(req, ctx),
        ping: (req, ctx) => this.#onPing(req, ctx),
      },
      onInboundError: (error, peer) => this.#log.debug('p2p request failed', { peer: peer.toString(), err: error }),
    })
    this.#port = boundPort(this.#host) ?? config.staking.port
    this.#signed = signIp(
      {
        ip: ipBytes(config.publicIp),
        port: this.#port,
        ipSigningTimeS: Math.floor(now / 1000),
        libp2pPublicKey: this.#libp2pPublicKey,
      },
      { signStaking: (m) => stakingSign(this.#o.identity, m), signBls: (m) => this.#o.signer.signProofOfPossession(m) },
    )
    this.#host.addEventListener('connection:open', (e) => this.#guard('connection open', () => this.#track(e.detail)))
    this.#host.addEventListener('connection:close', (e) =>
      this.#guard('connection close', () => this.#onConnectionClose(e.detail)),
    )
    this.#applyUptime({ type: 'startTracking', now })
    this.#log.info('p2p listening', { addrs: this.multiaddrs(), peerID: this.peerId })

    config.bootstrap.ips.forEach((ip, i) => {
      const nodeId = config.bootstrap.ids[i] as string
      if (nodeId === this.#nodeId) return
      this.#bootstrapByAddr.set(ip, nodeId)
      this.#targets.set(nodeId, { addr: multiaddrText(ip), backoffMs: REDIAL_INITIAL_MS, bootstrapper: true })
      this.#dial(nodeId)
    })
    this.#timers.push(
      setInterval(() => this.#guard('gossip', () => this.#gossip()), this.#o.gossipIntervalMs ?? GOSSIP_INTERVAL_MS),
      setInterval(() => this.#guard('bloom reset', () => this.#resetBloom()), this.#o.bloomResetMs ?? BLOOM_RESET_MS),
    )
  }

  /** Stops gossip and redials, stops uptime tracking (persisted), closes every connection, stops libp2p. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    for (const t of this.#timers.splice(0)) clearInterval(t)
    for (const t of this.#targets.values()) clearTimeout(t.timer)
    for (const c of this.#conns.values()) clearTimeout(c.timer)
    this.#applyUptime({ type: 'stopTracking', now: this.#now() })
    try {
      await this.#host?.stop()
    } catch (err) {
      this.#log.debug('libp2p stop failed', { err })
    }
    for (const s of [...this.#sessions.values()]) {
      this.#send(s, { type: 'session.closed', reason: 'shutdown' })
      this.#finalize(s)
    }
    await this.#writes
  }

  #guard(what: string, f: () => void): void {
    try {
      f()
    } catch (err) {
      this.#log.debug(`${what} failed`, { err })
    }
  }

  // connections ------------------------------------------------------------------------------------------------

  #dialerOf(conn: Connection): string {
    return conn.direction === 'outbound' ? this.#host.peerId.toString() : conn.remotePeer.toString()
  }

  /** The state of a connection; a second connection to the same peer keeps the one the smaller PeerId dialed. */
  #track(conn: Connection): ConnState {
    const known = this.#conns.get(conn.id)
    if (known) return known
    const state: ConnState = { conn, handshakeSeen: false, dropped: false }
    this.#conns.set(conn.id, state)
    if (this.#closed) {
      this.#drop(state, 'shutting down')
      return state
    }
    for (const other of this.#conns.values()) {
      if (other === state || other.dropped || !other.conn.remotePeer.equals(conn.remotePeer)) continue
      const a = this.#dialerOf(conn)
      const b = this.#dialerOf(other.conn)
      const keepNew = a !== b && a < b
      const loser = keepNew ? other : state
      const session = loser.nodeId === undefined ? undefined : this.#sessions.get(loser.nodeId)
      if (session && session.connId === loser.conn.id) {
        this.#send(session, { type: 'session.close', reason: DropReason.Duplicate })
      } else {
        this.#log.debug('closing a duplicate connection', { peer: conn.remotePeer.toString() })
        this.#close(loser)
      }
      if (loser === state) return state
    }
    state.timer = setTimeout(() => {
      if (state.nodeId === undefined && !state.dropped) this.#drop(state, DropReason.HandshakeTimeout)
    }, HANDSHAKE_TIMEOUT_MS)
    this.#sendHandshake(state).catch((err: unknown) => this.#log.debug('handshake failed', { err }))
    return state
  }

  #close(state: ConnState): void {
    state.dropped = true
    clearTimeout(state.timer)
    state.conn.close().catch((err: unknown) => {
      state.conn.abort(err instanceof Error ? err : new Error(String(err)))
    })
  }

  /** Logs why and closes a connection that has no session. */
  #drop(state: ConnState, reason: string, who?: string): void {
    if (state.dropped) return
    this.#log.info(`dropping peer ${who ?? state.conn.remotePeer.toString()}: ${reason}`, {
      peerID: state.conn.remotePeer.toString(),
      addr: addrOf(state.conn.remoteAddr),
    })
    this.#close(state)
  }

  #onConnectionClose(conn: Connection): void {
    const state = this.#conns.get(conn.id)
    this.#conns.delete(conn.id)
    if (state) clearTimeout(state.timer)
    const session = state?.nodeId === undefined ? undefined : this.#sessions.get(state.nodeId)
    if (session && session.connId === conn.id) {
      this.#send(session, { type: 'session.closed', reason: CloseReason.ConnectionClosed })
      this.#finalize(session)
      return
    }
    if (conn.direction === 'outbound') {
      const nodeId = this.#bootstrapByAddr.get(addrOf(conn.remoteAddr))
      if (nodeId !== undefined && !this.#sessions.has(nodeId)) this.#scheduleDial(nodeId)
    }
  }

  /** Our Handshake on this connection; its answer is the peer's PeerList. */
  async #sendHandshake(state: ConnState): Promise<void> {
    const protocol = handshakeProtocol(this.#o.config.networkId)
    let peerList: PeerList
    try {
      peerList = await this.#requestOn(state.conn, protocol, this.#ourHandshake())
    } catch (err) {
      if (state.dropped || this.#closed) return
      const cause = (err as { cause?: unknown }).cause ?? err
      if (cause instanceof Error && cause.name === 'UnsupportedProtocolError') {
        this.#drop(state, `network id mismatch: peer does not speak ${protocol}`)
      } else {
        this.#log.debug('handshake request failed', { peer: state.conn.remotePeer.toString(), err })
      }
      return
    }
    if (state.dropped || this.#closed) return
    state.peerListAt = this.#now()
    const session = state.nodeId === undefined ? undefined : this.#sessions.get(state.nodeId)
    if (session && session.connId === state.conn.id) {
      this.#touch(session.nodeId, { received: true })
      this.#send(session, { type: 'session.messageReceived' })
      this.#send(session, { type: 'session.peerListReceived', at: state.peerListAt })
    }
    this.#learn(peerList.claimedIpPorts)
  }

  /** Our Handshake now (signatures made once at start). */
  #ourHandshake(): Handshake {
    const { config } = this.#o
    return buildHandshake(
      {
        networkId: config.networkId,
        nowS: Math.floor(this.#now() / 1000),
        ip: this.#signed.ip,
        port: this.#port,
        upgradeTimeS: this.#upgradeTimeS,
        ipSigningTimeS: this.#signed.signingTimeS,
        trackedSubnets: this.#trackedSubnets,
        client: { name: CLIENT_NAME, major: VERSION.major, minor: VERSION.minor, patch: VERSION.patch },
        supportedAcps: config.acpSupport,
        objectedAcps: config.acpObject,
        knownPeers: { filter: this.#known.filter.marshal(), salt: this.#known.salt },
        allSubnets: false,
        stakingCertDer: this.#o.identity.certDer,
        libp2pPublicKey: this.#libp2pPublicKey,
      },
      { signStaking: () => new Uint8Array(), signBls: () => new Uint8Array() },
      this.#signed,
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
      const envelope = handshakeSpec.wrapRequest(body, requestId, BigInt(this.#now() + REQUEST_TIMEOUT_MS))
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

  // inbound requests -------------------------------------------------------------------------------------------

  #sessionOf(conn: Connection): Session | undefined {
    const nodeId = this.#conns.get(conn.id)?.nodeId
    const session = nodeId === undefined ? undefined : this.#sessions.get(nodeId)
    return session && session.connId === conn.id && !session.done ? session : undefined
  }

  #onHandshake(req: Handshake, ctx: InboundRequest): PeerList | undefined {
    try {
      return this.#handshake(req, ctx)
    } catch (err) {
      this.#log.debug('handshake handler failed', { peer: ctx.remotePeer.toString(), err })
      return undefined
    }
  }

  #handshake(req: Handshake, ctx: InboundRequest): PeerList | undefined {
    if (this.#closed) return undefined
    const state = this.#track(ctx.connection)
    if (state.dropped) return undefined
    if (state.handshakeSeen) {
      const session = this.#sessionOf(ctx.connection)
      if (session) {
        this.#send(session, { type: 'session.messageReceived' })
        this.#send(session, { type: 'session.close', reason: CloseReason.SecondHandshake })
      } else this.#drop(state, CloseReason.SecondHandshake)
      return undefined
    }
    state.handshakeSeen = true
    const { config } = this.#o
    const nowS = this.#now() / 1000
    const check = validateHandshake(
      req,
      {
        networkId: config.networkId,
        nowS,
        version: {
          current: VERSION,
          minCompatible: MIN_COMPATIBLE_VERSION,
          minCompatibleAfterUpgrade: MIN_COMPATIBLE_VERSION,
          upgradeTimeS: this.#upgradeTimeS,
        },
        remotePublicKey: publicKeyToProtobuf(this.#publicKeyOf(ctx.remotePeer)),
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
      this.#drop(state, check.reason)
      return undefined
    }
    const peer = check.peer
    const nodeId = peer.nodeId
    if (nodeId === this.#nodeId) {
      this.#drop(state, DropReason.Self, nodeId)
      return undefined
    }
    if (ctx.connection.direction === 'outbound') {
      const expected = this.#bootstrapByAddr.get(addrOf(ctx.connection.remoteAddr))
      if (expected !== undefined && expected !== nodeId) {
        this.#drop(state, DropReason.UnexpectedNodeId, nodeId)
        return undefined
      }
    }
    if (this.#sessions.has(nodeId)) {
      this.#drop(state, DropReason.Duplicate, nodeId)
      return undefined
    }
    if (peer.newerVersion) this.#log.info('peer runs a newer version', { nodeID: nodeId, version: peer.version })
    const session = this.#openSession(state, peer)
    if (session === undefined) {
      this.#drop(state, 'no session', nodeId)
      return undefined
    }
    this.#rememberClaim(peer, ctx.remotePeer)
    this.#touch(nodeId, { received: true })
    this.#send(session, { type: 'session.messageReceived' })
    this.#send(session, {
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
      this.#send(session, { type: 'session.messageReceived' })
      this.#send(session, { type: 'session.peerListReceived', at: state.peerListAt })
    }
    if (session.done || session.ref.getSnapshot().status !== 'active') return undefined
    this.#touch(nodeId, { sent: true })
    return { claimedIpPorts: this.#claimsFor(nodeId, peer.knownPeers.filter, peer.knownPeers.salt) }
  }

  #publicKeyOf(peer: PeerId) {
    if (peer.publicKey === undefined) throw new Error('peer id without a public key')
    return peer.publicKey
  }

  #onGetPeerList(req: GetPeerList, ctx: InboundRequest): PeerList | undefined {
    try {
      const session = this.#sessionOf(ctx.connection)
      if (session === undefined) return undefined
      if (!session.ref.getSnapshot().matches('connected')) return undefined
      this.#touch(session.nodeId, { received: true })
      this.#send(session, { type: 'session.messageReceived' })
      let filter = BloomFilter.empty()
      let salt: Uint8Array = new Uint8Array(0)
      if (req.knownPeers !== undefined) {
        try {
          filter = BloomFilter.parse(req.knownPeers.filter)
        } catch (err) {
          this.#send(session, { type: 'session.close', reason: `bad known peers filter: ${errorText(err)}` })
          return undefined
        }
        if (req.knownPeers.salt.length > MAX_BLOOM_SALT_LEN) {
          this.#send(session, {
            type: 'session.close',
            reason: `known peers salt too long: ${req.knownPeers.salt.length} > ${MAX_BLOOM_SALT_LEN}`,
          })
          return undefined
        }
        salt = req.knownPeers.salt
      }
      this.#touch(session.nodeId, { sent: true })
      return { claimedIpPorts: this.#claimsFor(session.nodeId, filter, salt) }
    } catch (err) {
      this.#log.debug('peer list handler failed', { peer: ctx.remotePeer.toString(), err })
      return undefined
    }
  }

  #onPing(req: Ping, ctx: InboundRequest): Pong | undefined {
    try {
      const session = this.#sessionOf(ctx.connection)
      if (!session) return undefined
      this.#touch(session.nodeId, { received: true })
      this.#send(session, { type: 'session.messageReceived' })
      this.#send(session, { type: 'session.ping', uptime: req.uptime })
      if (session.done || session.ref.getSnapshot().status !== 'active') return undefined
      if (session.ref.getSnapshot().matches('closing')) return undefined
      const entry = this.#o.peers.get(session.nodeId)
      if (entry) this.#o.peers.upsert({ ...entry, observedUptime: req.uptime })
      this.#touch(session.nodeId, { sent: true })
      return {}
    } catch (err) {
      this.#log.debug('ping handler failed', { peer: ctx.remotePeer.toString(), err })
      return undefined
    }
  }

  // sessions ---------------------------------------------------------------------------------------------------

  #openSession(state: ConnState, peer: HandshakePeer): Session | undefined {
    const network = this.#o.system.get(SystemId.Network)
    if (!network) throw new Error('the network actor is not running')
    const nodeId = peer.nodeId
    network.send({
      type: 'network.openSession',
      nodeId,
      input: {
        nodeId,
        remoteAddr: addrOf(state.conn.remoteAddr),
        outbound: state.conn.direction === 'outbound',
      },
    })
    const ref = this.#o.system.get(SystemId.peer(nodeId)) as SessionRef | undefined
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
    this.#sessions.set(nodeId, session)
    const later = (f: () => void) => queueMicrotask(() => this.#guard('session event', f))
    session.subs.push(
      ref.on('session.connected', () => this.#guard('session connected', () => this.#onConnected(session))),
      ref.on('session.sendPing', () => {
        void this.#ping(session)
      }),
      ref.on('session.closing', (e) =>
        later(() => {
          this.#log.info(`dropping peer ${nodeId}: ${e.reason}`, { addr: addrOf(state.conn.remoteAddr) })
          this.#close(state)
          this.#send(session, { type: 'session.closed', reason: e.reason })
          this.#finalize(session)
        }),
      ),
      ref.on('session.disconnected', (e) =>
        this.#guard('session disconnected', () => {
          session.wasValidator = this.#o.validators.weight(nodeId) > 0n
          this.#o.peers.remove(nodeId)
          this.#applyUptime({ type: 'disconnect', nodeId, now: this.#now() })
          this.#log.info('peer disconnected', { nodeID: nodeId, reason: e.reason })
        }),
      ),
    )
    return session
  }

  #onConnected(session: Session): void {
    const { nodeId, peer } = session
    const ctx = session.ref.getSnapshot().context
    const now = new Date(this.#now())
    this.#o.peers.upsert({
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
      benched: [...ctx.benchedChains],
    })
    if (this.#uptime.records[nodeId] === undefined && this.#o.validators.weight(nodeId) > 0n) {
      this.#applyUptime({ type: 'addValidator', nodeId, startTimeMs: this.#now() })
    }
    this.#applyUptime({ type: 'connect', nodeId, now: this.#now() })
    const target = this.#targets.get(nodeId)
    if (target) {
      clearTimeout(target.timer)
      target.timer = undefined
      target.backoffMs = REDIAL_INITIAL_MS
    }
    this.#log.info('peer connected', {
      nodeID: nodeId,
      ip: addrOf(session.conn.remoteAddr),
      publicIP: ctx.publicIp,
      version: ctx.version,
    })
  }

  #send(session: Session, event: PeerSessionEvent): void {
    if (session.done || session.ref.getSnapshot().status !== 'active') return
    session.ref.send(event)
  }

  /** The session is over: stop its actor, forget it, close its connection, maybe redial. Idempotent. */
  #finalize(session: Session): void {
    if (session.done) return
    session.done = true
    for (const s of session.subs) s.unsubscribe()
    if (this.#sessions.get(session.nodeId) === session) this.#sessions.delete(session.nodeId)
    if (this.#o.peers.get(session.nodeId)) {
      session.wasValidator ||= this.#o.validators.weight(session.nodeId) > 0n
      this.#o.peers.remove(session.nodeId)
      this.#applyUptime({ type: 'disconnect', nodeId: session.nodeId, now: this.#now() })
    }
    this.#o.system.get(SystemId.Network)?.send({ type: 'network.closeSession', nodeId: session.nodeId })
    const state = this.#conns.get(session.connId)
    if (state && !state.dropped) this.#close(state)
    if (this.#closed) return
    const known = this.#claims.get(session.nodeId)
    if (!this.#targets.has(session.nodeId) && session.wasValidator && known) {
      this.#targets.set(session.nodeId, { addr: known.addr, backoffMs: REDIAL_INITIAL_MS, bootstrapper: false })
    }
    const target = this.#targets.get(session.nodeId)
    if (target?.bootstrapper || (session.wasValidator && target)) this.#scheduleDial(session.nodeId)
  }

  async #ping(session: Session): Promise<void> {
    try {
      const uptime = pingUptime(this.#uptime, session.nodeId, this.#now())
      this.#touch(session.nodeId, { sent: true })
      await this.#host.services.ping.request(session.peerId, { uptime })
      this.#touch(session.nodeId, { received: true })
      this.#send(session, { type: 'session.messageReceived' })
      this.#send(session, { type: 'session.pong' })
    } catch (err) {
      this.#log.debug('ping failed', { nodeID: session.nodeId, err })
    }
  }

  #touch(nodeId: string, what: { sent?: boolean; received?: boolean }): void {
    const entry = this.#o.peers.get(nodeId)
    if (!entry) return
    const now = new Date(this.#now())
    this.#o.peers.upsert({
      ...entry,
      lastSent: what.sent ? now : entry.lastSent,
      lastReceived: what.received ? now : entry.lastReceived,
    })
  }

  // claims and gossip ------------------------------------------------------------------------------------------

  #rememberClaim(peer: HandshakePeer, peerId: PeerId): void {
    const claim = buildClaim(
      {
        ip: peer.ip,
        port: peer.port,
        signingTimeS: peer.ipSigningTime,
        ipNodeIdSig: peer.ipNodeIdSig,
        ipBlsSig: peer.ipBlsSig,
        identitySig: peer.identitySig,
      },
      peer.certDer,
      peerId.toMultihash().bytes,
    )
    this.#store(peer.nodeId, claim, peer.ipSigningTime, peer.ipText, peer.port, peerId.toString())
  }

  #store(nodeId: string, claim: ClaimedIpPort, timestamp: number, ip: string, port: number, peerId: string): boolean {
    const known = this.#claims.get(nodeId)
    if (known && known.timestamp >= timestamp) return false
    const addr = multiaddrText(ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`, peerId)
    const gid = gossipId(sha256, nodeIdBytesFromCertDer(claim.x509Certificate), timestamp)
    this.#claims.set(nodeId, { nodeId, claim, timestamp, gossipId: gid, addr })
    this.#known.filter.add(bloomHash(sha256, gid, this.#known.salt))
    const target = this.#targets.get(nodeId)
    if (target && !target.bootstrapper) target.addr = addr
    return true
  }

  /** Up to 15 claims of connected peers the requester does not know. */
  #claimsFor(requester: string, filter: BloomFilter, salt: Uint8Array): ClaimedIpPort[] {
    const connected = [...this.#claims.values()].filter((c) => {
      const s = this.#sessions.get(c.nodeId)
      return s !== undefined && !s.done && s.ref.getSnapshot().matches('connected')
    })
    return selectClaims(connected, { sha256, filter, salt, exceptNodeId: requester, random: this.#random }).map(
      (c) => c.claim,
    )
  }

  /** Validates gossiped claims, keeps the newer ones and dials the validators we are not connected to. */
  #learn(claims: ClaimedIpPort[]): void {
    const nowS = this.#now() / 1000
    for (const raw of claims) {
      try {
        this.#learnOne(raw, nowS)
      } catch (err) {
        this.#log.debug('ignoring a gossiped claim', { err })
      }
    }
  }

  #learnOne(raw: ClaimedIpPort, nowS: number): void {
    const check = validateClaim(raw, nowS, {
      checkCert: (der) => {
        checkStakingCert(der)
      },
      nodeIdOf: nodeIdFromCertDer,
      verifyStakingSig,
    })
    if (!check.ok) {
      this.#log.debug('ignoring a gossiped claim', { reason: check.reason })
      return
    }
    const c = check.claim
    if (c.nodeId === this.#nodeId) return
    const key = publicKeyOfPeerId(c.peerId)
    if (key === null) return
    const peerId = peerIdFromPublicKey(publicKeyFromProtobuf(key)).toString()
    if (!this.#store(c.nodeId, raw, c.timestamp, ipText(c.ip), c.port, peerId)) return
    if (!this.#wanted(c.nodeId)) return
    const addr = (this.#claims.get(c.nodeId) as KnownClaim).addr
    const target = this.#targets.get(c.nodeId)
    if (target) target.addr = target.bootstrapper ? target.addr : addr
    else this.#targets.set(c.nodeId, { addr, backoffMs: REDIAL_INITIAL_MS, bootstrapper: false })
    if (!this.#sessions.has(c.nodeId)) this.#dial(c.nodeId)
  }

  /** Validators are worth a connection; with sybil protection off every node is one. */
  #wanted(nodeId: string): boolean {
    return !this.#o.config.sybilProtection.enabled || this.#o.validators.weight(nodeId) > 0n
  }

  #gossip(): void {
    if (this.#closed) return
    const connected = [...this.#sessions.values()].filter((s) => !s.done && s.ref.getSnapshot().matches('connected'))
    if (connected.length === 0) return
    const session = connected[Math.min(connected.length - 1, Math.floor(this.#random() * connected.length))] as Session
    this.#touch(session.nodeId, { sent: true })
    this.#host.services.peers
      .request(session.peerId, {
        knownPeers: { filter: this.#known.filter.marshal(), salt: this.#known.salt },
        allSubnets: false,
      })
      .then(
        (list) => {
          this.#touch(session.nodeId, { received: true })
          this.#send(session, { type: 'session.messageReceived' })
          this.#learn(list.claimedIpPorts)
        },
        (err: unknown) => this.#log.debug('peer list request failed', { nodeID: session.nodeId, err }),
      )
      .catch((err: unknown) => this.#log.debug('peer list handling failed', { err }))
  }

  #resetBloom(): void {
    this.#known = newKnownPeersFilter(this.#claims.size, (n) => new Uint8Array(randomBytes(n)))
    for (const c of this.#claims.values()) this.#known.filter.add(bloomHash(sha256, c.gossipId, this.#known.salt))
  }

  // dialing ----------------------------------------------------------------------------------------------------

  #dial(nodeId: string): void {
    const target = this.#targets.get(nodeId)
    if (!target || this.#closed || this.#sessions.has(nodeId) || this.#dialing.has(nodeId)) return
    this.#dialing.add(nodeId)
    this.#host
      .dial(multiaddr(target.addr), { signal: AbortSignal.timeout(HANDSHAKE_TIMEOUT_MS) })
      .then(
        () => {},
        (err: unknown) => {
          this.#log.debug('dial failed', { nodeID: nodeId, addr: target.addr, err })
          this.#scheduleDial(nodeId)
        },
      )
      .finally(() => this.#dialing.delete(nodeId))
  }

  #scheduleDial(nodeId: string): void {
    const target = this.#targets.get(nodeId)
    if (!target || this.#closed || target.timer !== undefined || this.#sessions.has(nodeId)) return
    const delay = target.backoffMs
    target.backoffMs = nextBackoff(target.backoffMs, this.#random)
    target.timer = setTimeout(() => {
      target.timer = undefined
      this.#guard('redial', () => this.#dial(nodeId))
    }, delay)
  }

  // uptime -----------------------------------------------------------------------------------------------------

  #applyUptime(event: UptimeEvent): void {
    const { state, persisted } = uptimeReducer(this.#uptime, event)
    this.#uptime = state
    for (const id of persisted) {
      const record = state.records[id]
      const db = this.#uptimeDb as unknown as {
        put(k: string, v: string): Promise<void>
        del(k: string): Promise<void>
      }
      this.#writes = this.#writes
        .then(() => (record ? db.put(id, encodeUptimeRecord(record)) : db.del(id)))
        .catch((err: unknown) => this.#log.warn('could not persist an uptime record', { nodeID: id, err }))
    }
  }
}
