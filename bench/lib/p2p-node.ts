import type { Logger } from '../../src/log/logger.js'
import type { PeerView } from '../../src/network/peer-view.js'
import { startNetworkNode } from '../../test/helpers/network-node.js'

export const P2P_HOST = '127.0.0.1'
export const P2P_NETWORK_ID = 12345

export interface BenchNode {
  nodeId: string
  port: number
  /** connected peers, as info.peers would list them */
  peers: PeerView
  close(): Promise<void>
}

const quiet = (): void => {}
const silent: Logger = {
  name: 'network',
  verbo: quiet,
  debug: quiet,
  trace: quiet,
  info: quiet,
  warn: quiet,
  error: quiet,
  fatal: quiet,
}

/** Starts a node; `bootstrap` is the `ip:port` and NodeID of the node to dial first. */
export async function startBenchNode(bootstrap?: { ip: string; id: string }): Promise<BenchNode> {
  const node = await startNetworkNode({
    config: {
      networkId: P2P_NETWORK_ID,
      host: P2P_HOST,
      ...(bootstrap === undefined ? {} : { bootstrap: [bootstrap] }),
    },
    log: silent,
  })
  return { nodeId: node.nodeId, port: node.network.port, peers: node.peers, close: node.close }
}

/** Writes one JSON line to stdout (the child scripts' protocol with bench/lib/p2p-memory.ts). */
export function say(message: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(message)}\n`)
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
