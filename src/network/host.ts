/**
 * The libp2p host of a Firn node: TCP on the staking address, Noise, Yamux, nothing else (no discovery, no
 * autodial, no libp2p ping monitor), dials to ourselves refused, bounded connections, and the handshake, peers and
 * ping exchange services of protocols/ with their handlers injected; the chain protocols (consensus, bootstrap, app
 * and the one-way app-gossip) when their handlers are given; the test-only echo service when an echo handler is.
 */
import { noise } from '@chainsafe/libp2p-noise'
import { yamux } from '@chainsafe/libp2p-yamux'
import type { Connection, Libp2p, Metrics, PeerId, PrivateKey } from '@libp2p/interface'
import { tcp } from '@libp2p/tcp'
import { createLibp2p, type Libp2pOptions } from 'libp2p'
import { type AppGossipService, appGossipService } from '../../protocols/app/gossip.js'
import {
  type AppGossip,
  type AppReply,
  type AppRequest,
  type AppService,
  appService,
} from '../../protocols/app/service.js'
import {
  type BootstrapRequest,
  type BootstrapResponse,
  type BootstrapService,
  bootstrapService,
} from '../../protocols/bootstrap/service.js'
import {
  CHAIN_MAX_INFLIGHT,
  type ConsensusRequest,
  type ConsensusResponse,
  type ConsensusService,
  consensusService,
} from '../../protocols/consensus/service.js'
import { type Echo, type EchoService, echoService } from '../../protocols/echo/service.js'
import { type HandshakeService, handshakeService } from '../../protocols/handshake/service.js'
import type { GetPeerList, Handshake, PeerList, Ping, Pong } from '../../protocols/messages/p2p.js'
import { type PeersService, peersService } from '../../protocols/peers/service.js'
import { type PingService, pingService } from '../../protocols/ping/service.js'
import type { RequestHandler } from '../../protocols/service/exchange.js'
import { CLIENT_NAME, SEMVER } from '../config/version.js'

export interface HostServices extends Record<string, unknown> {
  handshake: HandshakeService
  peers: PeersService
  ping: PingService
  /** the chain protocols, present when their handlers are */
  consensus?: ConsensusService
  bootstrap?: BootstrapService
  app?: AppService
  appGossip?: AppGossipService
  /** test-only, present when `handlers.echo` is */
  echo?: EchoService
}

export type Host = Libp2p<HostServices>

export interface HostHandlers {
  handshake: RequestHandler<Handshake, PeerList>
  peers: RequestHandler<GetPeerList, PeerList>
  ping: RequestHandler<Ping, Pong>
  consensus?: RequestHandler<ConsensusRequest, ConsensusResponse>
  bootstrap?: RequestHandler<BootstrapRequest, BootstrapResponse>
  app?: RequestHandler<AppRequest, AppReply>
  /** one received AppGossip (app-gossip is one way); must not throw */
  appGossip?: (message: AppGossip, connection: Connection) => void
  /** registers the test-only echo protocol */
  echo?: RequestHandler<Echo, Echo>
}

export interface HostOptions {
  privateKey: PrivateKey
  networkId: number
  /** IPv4 or IPv6 literal to bind */
  host: string
  /** 0 picks a free port */
  port: number
  handlers: HostHandlers
  /** inbound exchange failures (the stream was reset): ExchangeErrors, or the app-gossip service's errors */
  onInboundError?: (error: Error, peer: PeerId) => void
  maxConnections?: number
  /**
   * Transports and listen addresses; default TCP on `host:port`. Benchmarks and simulations pass libp2p's
   * in-memory transport (`@libp2p/memory`) and `/memory/<name>` addresses.
   */
  transports?: { list: NonNullable<Libp2pOptions['transports']>; listen: string[] }
  /** libp2p's metrics component: Firn's bytes per protocol (src/metrics/stream-metrics.ts) */
  metrics?: () => Metrics
}

export const DEFAULT_MAX_CONNECTIONS = 128
/** the reference's TLS upgrade limit */
export const UPGRADE_TIMEOUT_MS = 15_000

/** `/ip4/<host>/tcp/<port>` or `/ip6/...` */
export const listenAddress = (host: string, port: number): string =>
  `/${host.includes(':') ? 'ip6' : 'ip4'}/${host}/tcp/${port}`

/** The address the staking server binds: `--staking-host`, else 127.0.0.1 under --dev, else all interfaces. */
export const stakingListenHost = (stakingHost: string, dev: boolean): string =>
  stakingHost !== '' ? stakingHost : dev ? '127.0.0.1' : '0.0.0.0'

export async function createHost(opts: HostOptions): Promise<Host> {
  const { networkId, handlers, onInboundError } = opts
  let self: PeerId | undefined
  const host = await createLibp2p<HostServices>({
    privateKey: opts.privateKey,
    nodeInfo: { name: CLIENT_NAME, version: SEMVER },
    addresses: { listen: opts.transports?.listen ?? [listenAddress(opts.host, opts.port)] },
    transports: opts.transports?.list ?? [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    peerDiscovery: [],
    connectionMonitor: { enabled: false },
    ...(opts.metrics === undefined ? {} : { metrics: opts.metrics }),
    connectionManager: {
      maxConnections: opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
      maxIncomingPendingConnections: 16,
      inboundConnectionThreshold: 20,
      inboundUpgradeTimeout: UPGRADE_TIMEOUT_MS,
      dialTimeout: UPGRADE_TIMEOUT_MS,
      reconnectRetries: 0,
    },
    connectionGater: {
      denyDialPeer: (peer) => self !== undefined && peer.equals(self),
      denyDialMultiaddr: () => false,
      denyInboundEncryptedConnection: (peer) => self !== undefined && peer.equals(self),
      denyOutboundEncryptedConnection: (peer) => self !== undefined && peer.equals(self),
    },
    services: {
      handshake: handshakeService({ networkId, handle: handlers.handshake, onInboundError }),
      peers: peersService({ networkId, handle: handlers.peers, onInboundError }),
      ping: pingService({ networkId, handle: handlers.ping, onInboundError }),
      ...chainServices(networkId, handlers, onInboundError),
      ...(handlers.echo === undefined
        ? {}
        : { echo: echoService({ networkId, handle: handlers.echo, onInboundError }) }),
    },
    start: false,
  })
  self = host.peerId
  await host.start()
  return host
}

/** The chain protocols' services whose handlers are given; consensus, bootstrap and app allow more in flight. */
function chainServices(networkId: number, handlers: HostHandlers, onInboundError: HostOptions['onInboundError']) {
  const limits = { maxInflight: CHAIN_MAX_INFLIGHT }
  const { consensus, bootstrap, app, appGossip } = handlers
  return {
    ...(consensus === undefined
      ? {}
      : { consensus: consensusService({ networkId, handle: consensus, onInboundError, ...limits }) }),
    ...(bootstrap === undefined
      ? {}
      : { bootstrap: bootstrapService({ networkId, handle: bootstrap, onInboundError, ...limits }) }),
    ...(app === undefined ? {} : { app: appService({ networkId, handle: app, onInboundError, ...limits }) }),
    ...(appGossip === undefined
      ? {}
      : { appGossip: appGossipService({ networkId, handle: appGossip, onInboundError }) }),
  }
}

/** The TCP port the host listens on, from its listen addresses; undefined before it listens. */
export function boundPort(host: Pick<Libp2p, 'getMultiaddrs'>): number | undefined {
  for (const ma of host.getMultiaddrs()) {
    const m = /\/tcp\/(\d+)/.exec(ma.toString())
    if (m) return Number(m[1])
  }
  return undefined
}
