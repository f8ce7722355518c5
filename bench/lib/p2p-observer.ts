/**
 * The measured node of the p2p memory bench, alone in its process: run as
 * `node --expose-gc --import tsx bench/lib/p2p-observer.ts <peers> <settleMs>`. It starts one Network and prints
 * `{"listening":{"port","nodeId"}}`; once it has <peers> connected peers (the peers run in another process,
 * bench/lib/p2p-peers.ts) and <settleMs> passed, it forces GC and prints `{"memory":{...}}`, then waits for
 * SIGTERM. With <peers> = 0 it measures right after settling (the baseline).
 */
import '../../src/runtime/polyfill.js'
import { P2P_HOST, say, sleep, startBenchNode } from './p2p-node.js'

const want = Number(process.argv[2] ?? 1)
const settleMs = Number(process.argv[3] ?? 3000)
const WAIT_MS = 120_000
const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error('run with --expose-gc')

const node = await startBenchNode()
process.on('SIGTERM', () => {
  node.close().finally(() => process.exit(0))
})
say({ listening: { ip: `${P2P_HOST}:${node.port}`, nodeId: node.nodeId } })
const t0 = performance.now()
const deadline = Date.now() + WAIT_MS
while (node.peers.size < want) {
  if (Date.now() > deadline) {
    say({ error: `observer has ${node.peers.size} of ${want} peers after ${WAIT_MS / 1000} s` })
    await node.close()
    process.exit(1)
  }
  await sleep(20)
}
const connectMs = Math.round(performance.now() - t0)
await sleep(settleMs)
for (let i = 0; i < 3; i++) {
  gc()
  await sleep(50)
}
const m = process.memoryUsage()
say({
  memory: {
    peers: node.peers.size,
    connectMs,
    rss: m.rss,
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
  },
})
