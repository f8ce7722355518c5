/**
 * The other side of the p2p memory bench: `node --import tsx bench/lib/p2p-peers.ts <count> <ip:port> <NodeID>`
 * starts <count> Networks in this process, each bootstrapping from the observer at <ip:port>, prints
 * `{"started":<count>}` and runs until SIGTERM. With sybil protection off they also find and dial each other
 * through gossip; that mesh lives here, not in the observer's process.
 */
import '../../src/runtime/polyfill.js'
import { type BenchNode, say, startBenchNode } from './p2p-node.js'

const count = Number(process.argv[2] ?? 1)
const ip = process.argv[3]
const id = process.argv[4]
if (ip === undefined || id === undefined) throw new Error('usage: p2p-peers.ts <count> <ip:port> <NodeID>')

const nodes: BenchNode[] = []
process.on('SIGTERM', () => {
  Promise.allSettled(nodes.map((n) => n.close())).finally(() => process.exit(0))
})
for (let i = 0; i < count; i++) nodes.push(await startBenchNode({ ip, id }))
say({ started: nodes.length })
setInterval(() => {}, 1 << 30)
