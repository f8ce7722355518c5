/**
 * Memory per connected peer: the RSS and heap of ONE Firn p2p node (bench/lib/p2p-observer.ts, alone in its
 * process, run with --expose-gc) while N other nodes, all in a second process (bench/lib/p2p-peers.ts), are
 * connected to it over TCP loopback. One fresh observer process per N and round.
 */
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { spawnScript } from './p2p-child.js'

const HERE = dirname(fileURLToPath(import.meta.url))
const OBSERVER = join(HERE, 'p2p-observer.ts')
const PEERS = join(HERE, 'p2p-peers.ts')

export interface MemorySample {
  peers: number
  /** ms from the observer listening until it had N peers (includes starting the peers process) */
  connectMs: number
  rss: number
  heapUsed: number
  heapTotal: number
  external: number
  arrayBuffers: number
}

/** One observer with `peers` connected peers; measured after `settleMs` and a forced GC. */
export async function measureObserver(peers: number, settleMs: number): Promise<MemorySample> {
  const observer = spawnScript(OBSERVER, [String(peers), String(settleMs)], ['--expose-gc'])
  let others: ReturnType<typeof spawnScript> | undefined
  try {
    const at = await observer.next<{ ip: string; nodeId: string }>('listening', 60_000)
    if (peers > 0) {
      others = spawnScript(PEERS, [String(peers), at.ip, at.nodeId])
      await others.next('started', 120_000)
    }
    return await observer.next<MemorySample>('memory', 180_000)
  } finally {
    await Promise.all([others?.stop(), observer.stop()])
  }
}
