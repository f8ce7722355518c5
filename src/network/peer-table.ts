/**
 * Connected peers as `info.peers`, `info.uptime` and `info.acps` read them. The p2p layer (peer sessions)
 * writes entries when a handshake completes and removes them on disconnect; until peers exist it is empty.
 */

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

export class PeerTable {
  private readonly peers = new Map<string, PeerInfo>()

  upsert(peer: PeerInfo): void {
    this.peers.set(peer.nodeId, peer)
  }

  remove(nodeId: string): void {
    this.peers.delete(nodeId)
  }

  get(nodeId: string): PeerInfo | undefined {
    return this.peers.get(nodeId)
  }

  list(): PeerInfo[] {
    return [...this.peers.values()]
  }

  nodeIds(): string[] {
    return [...this.peers.keys()]
  }

  get size(): number {
    return this.peers.size
  }
}
