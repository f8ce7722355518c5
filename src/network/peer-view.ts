/**
 * Connected peers as `info.peers`, `info.uptime` and `info.acps` read them: a view of the connected peer
 * sessions' snapshots (each session actor keeps its peer's state; nothing is copied here).
 */
import type { Connections } from './connections.js'

export interface PeerInfo {
  /** remote address of the connection `ip:port` */
  ip: string
  /** the address the peer signed in its handshake */
  publicIP: string
  nodeId: string
  /** `<name>/<maj>.<min>.<patch>` from the handshake */
  version: string
  /** the peer's handshake upgrade time, unix seconds */
  upgradeTime: number
  lastSent: Date
  lastReceived: Date
  /** the peer's latest Ping.uptime: its view of OUR uptime, 0-100 */
  observedUptime: number
  trackedSubnets: string[]
  supportedACPs: number[]
  objectedACPs: number[]
  /** primary aliases of the chains on which the peer is benched */
  benched: string[]
}

/** What the API reads. */
export interface PeerSource {
  list(): PeerInfo[]
  get(nodeId: string): PeerInfo | undefined
}

export class PeerView implements PeerSource {
  constructor(
    private readonly connections: Connections,
    /** a chain ID's primary alias (the ID itself when it has none) */
    private readonly aliasOf: (chainId: string) => string,
  ) {}

  get(nodeId: string): PeerInfo | undefined {
    if (!this.connections.isConnected(nodeId)) return undefined
    const c = this.connections.sessionContext(nodeId)
    if (c === undefined) return undefined
    const connectedAt = c.connectedAt ?? 0
    return {
      ip: c.remoteAddr,
      publicIP: c.publicIp ?? '',
      nodeId,
      version: c.version ?? '',
      upgradeTime: c.upgradeTime ?? 0,
      lastSent: new Date(Math.max(c.lastSentAt ?? 0, connectedAt)),
      lastReceived: new Date(Math.max(c.lastReceivedAt ?? 0, connectedAt)),
      observedUptime: c.observedUptime,
      trackedSubnets: [...c.trackedSubnets],
      supportedACPs: [...c.supportedAcps],
      objectedACPs: [...c.objectedAcps],
      benched: c.benchedChains.map(this.aliasOf).sort(),
    }
  }

  list(): PeerInfo[] {
    return this.connections.connectedNodeIds().flatMap((id) => {
      const p = this.get(id)
      return p === undefined ? [] : [p]
    })
  }

  nodeIds(): string[] {
    return this.connections.connectedNodeIds()
  }

  get size(): number {
    return this.connections.connectedNodeIds().length
  }
}
