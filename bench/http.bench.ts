/**
 * `info.getNetworkID` throughput and latency with 64 concurrent keep-alive clients against a real `firn --dev`
 * process, next to the floor measured in the same run: a bare node:http server answering a fixed JSON-RPC
 * body. Prints one JSON object. Target (issue 2): Firn at >= 60 % of the floor.
 */
import '../src/runtime/polyfill.js'
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startFirn } from '../test/helpers/firn-process.js'
import { type LoadResult, runLoad } from './lib/load.js'

const HERE = dirname(fileURLToPath(import.meta.url))
const BODY = '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}'
const CONNECTIONS = 64
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 3000)
/** Floor and Firn run alternately this many times; the medians are reported (two cores are shared with the
 * load generator, so one round alone swings by +-15 %). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)

async function bare() {
  const proc = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), join(HERE, 'lib', 'bare-server.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const port = await new Promise<number>((resolve) =>
    proc.stdout.once('data', (d) => resolve(Number(String(d).trim()))),
  )
  try {
    return await runLoad({
      host: '127.0.0.1',
      port,
      path: '/ext/info',
      body: BODY,
      connections: CONNECTIONS,
      durationMs: DURATION_MS,
    })
  } finally {
    proc.kill('SIGTERM')
  }
}

async function firn() {
  const node = await startFirn({ args: ['--dev', '--db-type=memdb', '--log-level=warn', '--log-display-level=info'] })
  try {
    const port = Number(new URL(node.url).port)
    return await runLoad({
      host: '127.0.0.1',
      port,
      path: '/ext/info',
      body: BODY,
      connections: CONNECTIONS,
      durationMs: DURATION_MS,
    })
  } finally {
    await node.cleanup()
  }
}

const floors: LoadResult[] = []
const firns: LoadResult[] = []
for (let i = 0; i < ROUNDS; i++) {
  floors.push(await bare())
  firns.push(await firn())
}
const median = (runs: LoadResult[]): LoadResult => [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)]!
const floor = median(floors)
const result = median(firns)
process.stdout.write(
  `${JSON.stringify({
    bench: 'info.getNetworkID',
    connections: CONNECTIONS,
    durationMs: DURATION_MS,
    rounds: ROUNDS,
    firn: result,
    floor: { what: 'bare node:http, fixed JSON-RPC body', ...floor },
    ratio: Math.round((result.rps / floor.rps) * 1000) / 1000,
    target: 0.6,
    allRps: { firn: firns.map((r) => r.rps), floor: floors.map((r) => r.rps) },
  })}\n`,
)
