/**
 * The p2p layer's IO: the libp2p host, the network actor's `connections` slot and the peer sessions' slots,
 * peer-list gossip, bootstrap dials and redials, uptime persistence, request tracking and the chains' protocols.
 *
 * Lifecycle: `new Network(options)` builds the parts; `loadUptime()` reads the stored uptime records for the network
 * actor's input; `logic()` is the network machine with its IO slots, for the composition root to `provide`;
 * `start(system)` binds the staking port once the actors run; `close()` undoes everything. The actors decide
 * (who is connected, why a peer is dropped, uptime); this class carries out what they emit. Every handler catches:
 * malformed bytes or a failing peer never throw out of here. See docs/architecture.md and
 * ../shared/reference/consensus.md section 4.
 */
import type { Connection } from '@libp2p/interface'
import { multiaddr } from '@multiformats/multiaddr'
import { EMPTY, merge, mergeMap, type Observable, Subject } from 'rxjs'
import { type AnyActorRef, fromEventObservable } from 'xstate'
import {
  type ConnectionsInput,
  type NetworkEmitted,
  type NetworkEvent,
  type NetworkInput,
  networkMachine,
} from '../../actors/peers/network.machine.js'
import type { UptimeRecord, UptimeState } from '../../actors/peers/uptime.js'
import { pingUptime } from '../../actors/peers/uptime.js'
import { signIp } from '../../protocols/handshake/build.js'
import { handshakeProtocol } from '../../protocols/handshake/service.js'
import { upgradeSchedule, upgradeTimeSeconds } from '../config/upgrades.js'
import { idFromString } from '../identity/ids.js'
import { emitted$ } from '../runtime/emitted.js'
import { addrOf, ipBytes } from './addresses.js'
import { Benching } from './benching.js'
import { ChainInbound } from './chain-inbound.js'
import { ChainRouter } from './chain-router.js'
import { type ActorLookup, Connections } from './connections.js'
import { Dialer } from './dialer.js'
import { EchoBridge } from './echo.js'
import { Gossip } from './gossip.js'
import { HandshakeKit } from './handshake.js'
import { boundPort, createHost, type Host, stakingListenHost } from './host.js'
import { libp2pKeyOf, publicKeyBytes, stakingSign } from './identity.js'
import { PeerView } from './peer-view.js'
import type { RequestTracker } from './request-tracker.js'
import { SessionIo } from './session-io.js'
import {
  BLOOM_RESET_MS,
  GOSSIP_INTERVAL_MS,
  guarded,
  HANDSHAKE_TIMEOUT_MS,
  type NetworkOptions,
  type PeerEvent,
} from './types.js'
import { UptimeStore } from './uptime-store.js'

export { addrOf, ipBytes, multiaddrText } from './addresses.js'
export { AppRequestError, type ChainHandlers, ChainRouter } from './chain-router.js'
export { nextBackoff } from './dialer.js'
export type { PeerInfo, PeerSource } from './peer-view.js'
export {
  BLOOM_RESET_MS,
  GOSSIP_INTERVAL_MS,
  HANDSHAKE_TIMEOUT_MS,
  MIN_COMPATIBLE_VERSION,
  type NetworkOptions,
  type PeerEvent,
  REDIAL_INITIAL_MS,
  REDIAL_MAX_MS,
  REQUEST_TIMEOUT_MS,
} from './types.js'

/** The p2p network of one node. */
export class Network {
  readonly #o: NetworkOptions
  readonly #now: () => number
  readonly connections: Connections
  readonly #handshake: HandshakeKit
  readonly #gossip: Gossip
  readonly #dialer: Dialer
  readonly #sessions: SessionIo
  readonly #uptime: UptimeStore
  readonly #benching: Benching
  readonly #echo: EchoBridge
  readonly #inbound: ChainInbound
  readonly chains: ChainRouter
  /** connected / disconnected of every peer session, in order (from the network actor); completes on close */
  readonly #peerEvents$ = new Subject<PeerEvent>()
  /** libp2p's connection events, for the network actor's `connections` slot */
  readonly #connectionEvents$ = new Subject<NetworkEvent>()
  readonly peers: PeerView
  #host: Host | undefined
  #port = 0
  #timers: NodeJS.Timeout[] = []
  #closed = false

  constructor(o: NetworkOptions) {
    this.#o = o
    const now = o.now ?? Date.now
    const random = o.random ?? Math.random
    const { log } = o
    this.#now = now
    const selfNodeId = o.identity.nodeId
    const connections = new Connections(now)
    this.connections = connections
    this.#uptime = new UptimeStore(o.db, log)
    this.#benching = new Benching(o, now, log)
    const services = () => this.#hostOrThrow().services
    this.#dialer = new Dialer({
      selfNodeId,
      bootstrap: o.config.bootstrap,
      log,
      random,
      dial: (addr, signal) => this.#hostOrThrow().dial(multiaddr(addr), { signal }),
      hasSession: (nodeId) => connections.session(nodeId) !== undefined,
      isValidator: (nodeId) => !o.config.sybilProtection.enabled || o.validators.weight(nodeId) > 0n,
      claimedAddr: (nodeId) => this.#gossip.addrOf(nodeId),
    })
    this.#gossip = new Gossip({
      connections,
      log,
      now,
      random,
      selfNodeId,
      wanted: (nodeId) => !o.config.sybilProtection.enabled || o.validators.weight(nodeId) > 0n,
      learned: (nodeId, addr) => this.#dialer.learned(nodeId, addr),
      requestPeers: (peer, req) => services().peers.request(peer, req),
    })
    this.#handshake = new HandshakeKit(o, now, () => this.#gossip.knownPeers())
    this.#sessions = new SessionIo({
      connections,
      handshake: this.#handshake,
      handshakeProtocol: handshakeProtocol(o.config.networkId),
      gossip: this.#gossip,
      ping: async (io, nodeId) => {
        const uptime = pingUptime(this.uptimeState(), nodeId, now())
        await services().ping.request(io.conn.remotePeer, { uptime })
      },
      closed: () => this.#closed,
      opened: (conn) => this.#onConnectionOpen(conn),
      log,
      now,
    })
    this.chains = new ChainRouter({ connections, tracker: this.#benching.tracker, services, log, now })
    this.#inbound = new ChainInbound({
      connections,
      handlersOf: (chainId) => this.chains.handlersOf(chainId),
      log,
      ...(o.config.appConcurrency === undefined ? {} : { appConcurrency: o.config.appConcurrency }),
    })
    this.#echo = new EchoBridge({
      connections,
      tracker: this.#benching.tracker,
      services,
      ...(o.echoSilent === undefined ? {} : { silent: o.echoSilent }),
      log,
      now,
    })
    this.peers = new PeerView(connections, (chainId) => this.#chainAlias(chainId))
  }

  #hostOrThrow(): Host {
    if (this.#host === undefined) throw new Error('the p2p host is not running')
    return this.#host
  }

  #chainAlias(chainId: string): string {
    return this.#o.chains?.find((c) => c.chainId === chainId)?.alias ?? chainId
  }

  /** The stored uptime records, for the network actor's input. */
  async loadUptime(): Promise<Record<string, UptimeRecord>> {
    return this.#uptime.load()
  }

  /** The network actor's input. */
  actorInput(uptimeRecords: Record<string, UptimeRecord>): NetworkInput {
    const { config, validators, identity } = this.#o
    return {
      selfNodeId: identity.nodeId,
      sybilProtection: config.sybilProtection.enabled,
      validatorIds: validators
        .list()
        .filter((v) => v.weight > 0n)
        .map((v) => v.nodeId),
      uptimeRecords,
      startedAt: this.#now(),
      session: {
        handshakeTimeoutMs: HANDSHAKE_TIMEOUT_MS,
        ...(config.ping === undefined
          ? {}
          : { pingIntervalMs: config.ping.frequencyMs, pongTimeoutMs: config.ping.timeoutMs }),
      },
    }
  }

  /** The network machine with its IO slots and the session machine's. */
  logic() {
    return networkMachine.provide({
      actors: {
        connections: fromEventObservable<NetworkEvent, ConnectionsInput>(({ input }) => this.#connectionsIo(input)),
        peerSession: this.#sessions.logic(),
      },
    })
  }

  /** libp2p's connection events in; what the network actor emits, carried out. */
  #connectionsIo(input: ConnectionsInput): Observable<NetworkEvent> {
    const carried = emitted$<NetworkEmitted>(input.self).pipe(
      mergeMap((e) => {
        guarded(this.#o.log, e.type, () => this.#carryOut(e))
        return EMPTY
      }),
    )
    return merge(this.#connectionEvents$, carried)
  }

  #carryOut(e: NetworkEmitted): void {
    const { log } = this.#o
    switch (e.type) {
      case 'uptime.persist':
        this.#uptime.write(e.records)
        return
      case 'peer.connected': {
        const c = this.connections.sessionContext(e.nodeId)
        log.info('peer connected', { nodeID: e.nodeId, ip: c?.remoteAddr, publicIP: c?.publicIp, version: c?.version })
        this.#dialer.connected(e.nodeId)
        this.#peerEvents$.next({ type: 'connected', nodeId: e.nodeId, at: e.at })
        this.#benching.validatorsMaybeChanged()
        return
      }
      case 'peer.disconnected':
        log.info('peer disconnected', { nodeID: e.nodeId, reason: e.reason })
        this.#peerEvents$.next({ type: 'disconnected', nodeId: e.nodeId, at: e.at, reason: e.reason })
        this.#benching.validatorsMaybeChanged()
        return
      case 'session.ended': {
        const io = this.connections.get(e.connId)
        this.connections.remove(e.connId)
        if (io === undefined) return
        if (io.conn.status === 'open') io.conn.close().catch((err: unknown) => log.debug('close failed', { err }))
        this.#dialer.sessionEnded({ nodeId: e.nodeId, outbound: e.outbound, remoteAddr: addrOf(io.conn.remoteAddr) })
        return
      }
    }
  }

  #onConnectionOpen(conn: Connection): void {
    if (this.connections.get(conn.id) !== undefined || conn.status !== 'open') return
    if (this.#closed) {
      conn.close().catch(() => {})
      return
    }
    this.connections.open(conn)
    const remoteAddr = addrOf(conn.remoteAddr)
    const outbound = conn.direction === 'outbound'
    this.#connectionEvents$.next({
      type: 'network.connectionOpened',
      connId: conn.id,
      remotePeer: conn.remotePeer.toString(),
      dialer: outbound ? this.peerId : conn.remotePeer.toString(),
      remoteAddr,
      outbound,
      expectedNodeId: outbound ? this.#dialer.expectedAt(remoteAddr) : null,
    })
  }

  /** Binds the staking port, starts uptime tracking, dials the bootstrappers and starts gossip. */
  async start(system: ActorLookup): Promise<void> {
    const o = this.#o
    const { config, log } = o
    this.connections.attach(system)
    this.#benching.attach(system)
    const privateKey = await libp2pKeyOf(o.identity)
    const libp2pPublicKey = publicKeyBytes(privateKey)
    const sessions = this.#sessions
    const inbound = this.#inbound
    this.#host = await createHost({
      privateKey,
      networkId: config.networkId,
      host: stakingListenHost(config.staking.host, config.dev),
      port: config.staking.port,
      handlers: {
        handshake: (req, ctx) => sessions.onHandshake(req, ctx),
        peers: (req, ctx) => this.#gossip.onGetPeerList(req, ctx),
        ping: (req, ctx) => sessions.onPing(req, ctx),
        consensus: (req, ctx) => inbound.onConsensus(req, ctx),
        bootstrap: (req, ctx) => inbound.onBootstrap(req, ctx),
        app: (req, ctx) => inbound.onAppRequest(req, ctx),
        appGossip: (message, connection) => inbound.onAppGossip(message, connection),
        ...(o.testProtocols === true ? { echo: (req, ctx) => this.#echo.onEcho(req, ctx) } : {}),
      },
      onInboundError: (error, peer) => log.debug('p2p request failed', { peer: peer.toString(), err: error }),
      ...(o.metrics === undefined ? {} : { metrics: o.metrics }),
    })
    const host = this.#host
    this.#port = boundPort(host) ?? config.staking.port
    const now = this.#now()
    this.#handshake.local = {
      port: this.#port,
      libp2pPublicKey,
      upgradeTimeS: upgradeTimeSeconds(upgradeSchedule(config.networkId)),
      trackedSubnets: config.trackSubnets.map(idFromString),
      signed: signIp(
        { ip: ipBytes(config.publicIp), port: this.#port, ipSigningTimeS: Math.floor(now / 1000), libp2pPublicKey },
        { signStaking: (m) => stakingSign(o.identity, m), signBls: (m) => o.signer.signProofOfPossession(m) },
      ),
    }
    host.addEventListener('connection:open', (e) =>
      guarded(log, 'connection open', () => this.#onConnectionOpen(e.detail)),
    )
    host.addEventListener('connection:close', (e) =>
      guarded(log, 'connection close', () =>
        this.#connectionEvents$.next({ type: 'network.connectionClosed', connId: e.detail.id, at: this.#now() }),
      ),
    )
    this.connections.network()?.send({ type: 'network.startTracking', at: now })
    log.info('p2p listening', { addrs: this.multiaddrs(), peerID: this.peerId })
    this.#dialer.dialBootstrappers()
    this.#timers.push(
      setInterval(() => guarded(log, 'gossip', () => this.#gossip.gossip()), o.gossipIntervalMs ?? GOSSIP_INTERVAL_MS),
      setInterval(() => guarded(log, 'bloom reset', () => this.#gossip.resetBloom()), o.bloomResetMs ?? BLOOM_RESET_MS),
    )
  }

  /** the bound staking port */
  get port(): number {
    return this.#port
  }

  get peerId(): string {
    return this.#hostOrThrow().peerId.toString()
  }

  /** listen addresses, with `/p2p/<peerId>` */
  multiaddrs(): string[] {
    return this.#hostOrThrow().getMultiaddrs().map(String)
  }

  /** NodeIDs with a registered session (handshaking or connected) */
  sessionNodeIds(): string[] {
    return this.connections.sessionNodeIds()
  }

  /** the network actor's uptime accounting, for the API and tests */
  uptimeState(): UptimeState {
    const ref: AnyActorRef | undefined = this.connections.network()
    const state = (ref?.getSnapshot().context as { uptime?: UptimeState } | undefined)?.uptime
    if (state === undefined) throw new Error('the network actor is not running')
    return state
  }

  /** outbound request tracking (adaptive timeout, benchlists), for the protocols that send requests */
  get requests(): RequestTracker {
    return this.#benching.tracker
  }

  /** the benchlists' settings and validator weights (the chains spawn the benchlists) */
  get benching(): Benching {
    return this.#benching
  }

  /** connected / disconnected of every peer session, in order; completes on close */
  get peerEvents$(): Observable<PeerEvent> {
    return this.#peerEvents$.asObservable()
  }

  /**
   * Test protocols only: one echo to a connected peer on a chain, through the request tracker. Resolves with the
   * round trip in ms; rejects with RequestFailedError (`benched` at once, `timeout`, `failed`).
   */
  echo(nodeId: string, chainId: string, payload?: Uint8Array): Promise<number> {
    return this.#echo.echo(nodeId, chainId, payload)
  }

  /** Stops gossip and redials, stops uptime tracking (persisted), closes every session and libp2p. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    const { log } = this.#o
    for (const t of this.#timers.splice(0)) clearInterval(t)
    this.#dialer.stop()
    this.#benching.close()
    this.connections.network()?.send({ type: 'network.shutdown', at: this.#now() })
    try {
      await this.#host?.stop()
    } catch (err) {
      log.debug('libp2p stop failed', { err })
    }
    this.#connectionEvents$.complete()
    this.#peerEvents$.complete()
    await this.#uptime.flushed()
  }
}
