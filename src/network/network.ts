/**
 * The p2p layer's IO: the libp2p host, one peer session (`peer:<NodeID>`, under the `network` actor) per
 * handshaken connection, the PeerTable that info.peers reads, peer-list gossip, bootstrap dials and redials,
 * the persisted uptime accounting, request tracking and the per-chain benchlists. The parts live in
 * handshakes.ts, sessions.ts, gossip.ts, dialer.ts, uptime-store.ts, benching.ts, echo.ts, chain-router.ts and
 * chain-inbound.ts (the chains' consensus, bootstrap and app protocols); this class starts and stops them. Every handler catches: malformed bytes or a failing peer never throw out of here.
 * See docs/architecture.md and /work/shared/reference/consensus.md section 4.
 */

import type { Observable, Subscription } from 'rxjs'
import type { UptimeState } from '../../actors/peers/uptime.js'
import { signIp } from '../../protocols/handshake/build.js'
import { upgradeSchedule, upgradeTimeSeconds } from '../config/upgrades.js'
import { idFromString } from '../identity/ids.js'
import { ipBytes } from './addresses.js'
import { Benching } from './benching.js'
import { ChainInbound } from './chain-inbound.js'
import { ChainRouter } from './chain-router.js'
import { BLOOM_RESET_MS, GOSSIP_INTERVAL_MS, NetworkCore, type NetworkOptions, type PeerEvent } from './core.js'
import { Dialer } from './dialer.js'
import { EchoBridge } from './echo.js'
import { Gossip } from './gossip.js'
import { Handshakes } from './handshakes.js'
import { boundPort, createHost, stakingListenHost } from './host.js'
import { libp2pKeyOf, publicKeyBytes, stakingSign } from './identity.js'
import type { RequestTracker } from './request-tracker.js'
import { Sessions } from './sessions.js'
import { UptimeStore } from './uptime-store.js'

export { addrOf, ipBytes, multiaddrText } from './addresses.js'
export { AppRequestError, type ChainHandlers, ChainRouter } from './chain-router.js'
export {
  BLOOM_RESET_MS,
  DropReason,
  GOSSIP_INTERVAL_MS,
  HANDSHAKE_TIMEOUT_MS,
  MIN_COMPATIBLE_VERSION,
  type NetworkOptions,
  type PeerEvent,
  REDIAL_INITIAL_MS,
  REDIAL_MAX_MS,
  REQUEST_TIMEOUT_MS,
} from './core.js'
export { nextBackoff } from './dialer.js'

/** The p2p network of one node. `Network.start` binds the staking port; `close()` undoes everything. */
export class Network {
  readonly #n: NetworkCore
  #timers: NodeJS.Timeout[] = []
  readonly #subscriptions: Subscription[] = []

  private constructor(o: NetworkOptions) {
    const n = new NetworkCore(o)
    n.uptime = new UptimeStore(o.log)
    n.handshakes = new Handshakes(n)
    n.sessionBridge = new Sessions(n)
    n.gossip = new Gossip(n)
    n.dialer = new Dialer(n)
    n.benching = new Benching(n)
    n.echo = new EchoBridge(n)
    n.chains = new ChainRouter(n)
    n.chainInbound = new ChainInbound(n)
    this.#n = n
  }

  /** Loads uptimes, binds the staking port, starts tracking, dials the bootstrappers and starts gossip. */
  static async start(o: NetworkOptions): Promise<Network> {
    const network = new Network(o)
    await network.#start()
    return network
  }

  /** the bound staking port */
  get port(): number {
    return this.#n.port
  }

  get peerId(): string {
    return this.#n.host.peerId.toString()
  }

  /** listen addresses, with `/p2p/<peerId>` */
  multiaddrs(): string[] {
    return this.#n.host.getMultiaddrs().map(String)
  }

  /** NodeIDs with a session (handshaking or connected) */
  sessionNodeIds(): string[] {
    return [...this.#n.sessions.keys()]
  }

  /** the uptime accounting, for tests and the API */
  uptimeState(): UptimeState {
    return this.#n.uptime.state
  }

  /** outbound request tracking (adaptive timeout, benchlists), for the protocols that send requests */
  get requests(): RequestTracker {
    return this.#n.benching.tracker
  }

  /** the chains' consensus, bootstrap and app messages: register handlers, send requests */
  get chains(): ChainRouter {
    return this.#n.chains
  }

  /** connected / disconnected (and traffic) of every peer session, in order; completes on close */
  get peerEvents$(): Observable<PeerEvent> {
    return this.#n.peerEvents$.asObservable()
  }

  /**
   * Test protocols only: one echo to a connected peer on a chain, through the request tracker. Resolves with the
   * round trip in ms; rejects with RequestFailedError (`benched` at once, `timeout`, `failed`).
   */
  echo(nodeId: string, chainId: string, payload?: Uint8Array): Promise<number> {
    return this.#n.echo.echo(nodeId, chainId, payload)
  }

  /** The consumers of the peer stream: uptime accounting, benchlist weights, the PeerTable's traffic stamps. */
  #onPeerEvent(e: PeerEvent): void {
    const n = this.#n
    if (e.type === 'traffic') {
      const entry = n.o.peers.get(e.nodeId)
      if (!entry) return
      const at = new Date(e.at)
      n.o.peers.upsert({
        ...entry,
        lastSent: e.direction === 'out' ? at : entry.lastSent,
        lastReceived: e.direction === 'in' ? at : entry.lastReceived,
      })
      return
    }
    if (e.type === 'connected') {
      if (n.uptime.state.records[e.nodeId] === undefined && n.o.validators.weight(e.nodeId) > 0n) {
        n.uptime.apply({ type: 'addValidator', nodeId: e.nodeId, startTimeMs: e.at })
      }
      n.uptime.apply({ type: 'connect', nodeId: e.nodeId, now: e.at })
    } else {
      n.uptime.apply({ type: 'disconnect', nodeId: e.nodeId, now: e.at })
    }
    n.benching.validatorsMaybeChanged()
  }

  async #start(): Promise<void> {
    const n = this.#n
    const { o } = n
    const { config } = o
    const now = n.now()
    await n.uptime.load(o.db, n.nodeId, now)
    for (const v of o.validators.list()) {
      if (v.weight > 0n) n.uptime.apply({ type: 'addValidator', nodeId: v.nodeId, startTimeMs: now })
    }
    n.benching.start()
    this.#subscriptions.push(n.peerEvents$.subscribe((e) => n.guard('peer event', () => this.#onPeerEvent(e))))

    n.upgradeTimeS = upgradeTimeSeconds(upgradeSchedule(config.networkId))
    n.trackedSubnets = config.trackSubnets.map(idFromString)
    const privateKey = await libp2pKeyOf(o.identity)
    n.libp2pPublicKey = publicKeyBytes(privateKey)
    n.host = await createHost({
      privateKey,
      networkId: config.networkId,
      host: stakingListenHost(config.staking.host, config.dev),
      port: config.staking.port,
      handlers: {
        handshake: (req, ctx) => n.handshakes.onHandshake(req, ctx),
        peers: (req, ctx) => n.gossip.onGetPeerList(req, ctx),
        ping: (req, ctx) => n.sessionBridge.onPing(req, ctx),
        consensus: (req, ctx) => n.chainInbound.onConsensus(req, ctx),
        bootstrap: (req, ctx) => n.chainInbound.onBootstrap(req, ctx),
        app: (req, ctx) => n.chainInbound.onAppRequest(req, ctx),
        appGossip: (message, connection) => n.chainInbound.onAppGossip(message, connection),
        ...(o.testProtocols === true ? { echo: n.echo.onEcho.bind(n.echo) } : {}),
      },
      onInboundError: (error, peer) => n.log.debug('p2p request failed', { peer: peer.toString(), err: error }),
    })
    n.port = boundPort(n.host) ?? config.staking.port
    n.signed = signIp(
      {
        ip: ipBytes(config.publicIp),
        port: n.port,
        ipSigningTimeS: Math.floor(now / 1000),
        libp2pPublicKey: n.libp2pPublicKey,
      },
      { signStaking: (m) => stakingSign(o.identity, m), signBls: (m) => o.signer.signProofOfPossession(m) },
    )
    n.host.addEventListener('connection:open', (e) => n.guard('connection open', () => n.handshakes.track(e.detail)))
    n.host.addEventListener('connection:close', (e) =>
      n.guard('connection close', () => n.handshakes.onConnectionClose(e.detail)),
    )
    n.uptime.apply({ type: 'startTracking', now })
    n.log.info('p2p listening', { addrs: this.multiaddrs(), peerID: this.peerId })

    n.dialer.dialBootstrappers()
    this.#timers.push(
      setInterval(() => n.guard('gossip', () => n.gossip.gossip()), o.gossipIntervalMs ?? GOSSIP_INTERVAL_MS),
      setInterval(() => n.guard('bloom reset', () => n.gossip.resetBloom()), o.bloomResetMs ?? BLOOM_RESET_MS),
    )
  }

  /** Stops gossip and redials, stops uptime tracking (persisted), closes every connection, stops libp2p. */
  async close(): Promise<void> {
    const n = this.#n
    if (n.closed) return
    n.closed = true
    for (const t of this.#timers.splice(0)) clearInterval(t)
    n.dialer.stop()
    for (const c of n.conns.values()) clearTimeout(c.timer)
    n.benching.close()
    n.uptime.apply({ type: 'stopTracking', now: n.now() })
    try {
      await n.host?.stop()
    } catch (err) {
      n.log.debug('libp2p stop failed', { err })
    }
    for (const s of [...n.sessions.values()]) {
      n.sessionBridge.send(s, { type: 'session.closed', reason: 'shutdown' })
      n.sessionBridge.finalize(s)
    }
    for (const sub of this.#subscriptions.splice(0)) sub.unsubscribe()
    n.peerEvents$.complete()
    await n.uptime.flushed()
  }
}
