/**
 * p2p: (1) time from spawning five real `firn` processes (scripts/network.ts layout, fresh temp dir, free random
 * base port) until every node's info.peers lists the other four, next to the time until all five serve HTTP;
 * (2) memory per connected peer: RSS and heapUsed of ONE node (alone in its process, forced GC) with 1 and with
 * N peers connected over TCP loopback from a second process. Prints one JSON object.
 * Knobs: BENCH_P2P_ROUNDS (3), BENCH_P2P_SPAWN (staged: node1 first like `make network`; all: five at once),
 * BENCH_P2P_TIMEOUT_MS (120000), BENCH_P2P_PEERS (20), BENCH_P2P_MEM_ROUNDS (5), BENCH_P2P_SETTLE_MS (3000).
 */
import '../src/runtime/polyfill.js'
import { type FiveNodeRun, fiveNodeRun } from './lib/p2p-five.js'
import { type MemorySample, measureObserver } from './lib/p2p-memory.js'

const ROUNDS = Number(process.env.BENCH_P2P_ROUNDS ?? 3)
const SPAWN = process.env.BENCH_P2P_SPAWN === 'all' ? 'all' : 'staged'
const TIMEOUT_MS = Number(process.env.BENCH_P2P_TIMEOUT_MS ?? 120_000)
const PEERS = Number(process.env.BENCH_P2P_PEERS ?? 20)
const MEM_ROUNDS = Number(process.env.BENCH_P2P_MEM_ROUNDS ?? 5)
const SETTLE_MS = Number(process.env.BENCH_P2P_SETTLE_MS ?? 3000)
if (!(PEERS >= 2)) throw new Error('BENCH_P2P_PEERS must be >= 2')

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[mid]! : Math.round((s[mid - 1]! + s[mid]!) / 2)
}

const runs: FiveNodeRun[] = []
for (let i = 0; i < ROUNDS; i++) runs.push(await fiveNodeRun(TIMEOUT_MS, SPAWN === 'all'))
const pick = (k: 'firstServesMs' | 'allServeMs' | 'connectedMs' | 'p2pAfterServeMs') => median(runs.map((r) => r[k]))

const counts = [0, 1, PEERS]
const samples: Record<number, MemorySample[]> = { 0: [], 1: [], [PEERS]: [] }
for (let r = 0; r < MEM_ROUNDS; r++) {
  for (const n of counts) samples[n]!.push(await measureObserver(n, SETTLE_MS))
}
type Field = 'rss' | 'heapUsed' | 'external'
const med = (n: number, f: Field) => median(samples[n]!.map((s) => s[f]))
const perPeer = (f: Field) => Math.round((med(PEERS, f) - med(1, f)) / (PEERS - 1))
const perRound = (f: Field) => samples[PEERS]!.map((s, i) => Math.round((s[f] - samples[1]![i]![f]) / (PEERS - 1)))

process.stdout.write(
  `${JSON.stringify({
    bench: 'p2p',
    fiveNodes: {
      what: 'ms from the first spawn of five firn processes (scripts/network.ts layout) until each serves info.getNodeID, and until every info.peers lists the other four',
      spawn:
        SPAWN === 'all' ? 'all five at once' : 'node1, then node2..5 once node1 serves (as scripts/network.ts start)',
      rounds: ROUNDS,
      median: {
        firstServesMs: pick('firstServesMs'),
        allServeMs: pick('allServeMs'),
        connectedMs: pick('connectedMs'),
        p2pAfterServeMs: pick('p2pAfterServeMs'),
      },
      runs,
    },
    memoryPerPeer: {
      what: `one Firn Network (the observer) alone in its process, ${PEERS} or 1 or 0 peers connected to it from a second process; process RSS and heapUsed after forced GC`,
      transport:
        'TCP on 127.0.0.1 (Network.start has no transports option, so @libp2p/memory cannot be used through it; TCP also lets the peers live in another process)',
      note: 'figures are for ONE node: the other ends of the connections and the mesh the peers form among themselves are in the other process; RSS per round swings (allocator retention), heapUsed is the steadier figure',
      settleMs: SETTLE_MS,
      rounds: MEM_ROUNDS,
      medianBytes: Object.fromEntries(
        counts.map((n) => [n, { rss: med(n, 'rss'), heapUsed: med(n, 'heapUsed'), external: med(n, 'external') }]),
      ),
      rssBytesPerPeer: perPeer('rss'),
      heapUsedBytesPerPeer: perPeer('heapUsed'),
      externalBytesPerPeer: perPeer('external'),
      formula: `(median(${PEERS} peers) - median(1 peer)) / ${PEERS - 1}`,
      perRound: { rss: perRound('rss'), heapUsed: perRound('heapUsed') },
      samples,
    },
  })}\n`,
)
