/**
 * `make bench-peers`: the shared side-by-side harness (../shared/bench-peers) against a fresh `firn --dev`, next to
 * Hardhat, anvil (1 s blocks) and the bare node:http floor, in one run on this machine:
 * the harness made ready (scripts/lib/harness.ts), Firn started, the harness's `runall.sh` run with Firn as its
 * target (it starts and stops each peer itself), Firn stopped, then the medians printed as JSON and the Markdown
 * table (every raw run stays in the results file, named on stderr). Then Firn's own figures (`firn` in the JSON):
 * its resident memory when idle after start-up and after the whole harness, and eth_blockNumber's latency polled
 * every 5 ms while the harness's 16-sender transfers (`run.mjs --only eth16`) load the same node again.
 *
 * Knobs: BENCH_PEERS_REPS (1), BENCH_PEERS_PEERS ("floor hardhat anvil-interval"), BENCH_PEERS_QUICK=1 (3 s loads,
 * 300 txs), BENCH_PEERS_VMFLOOR=0 (skip stock @ethereumjs/vm in process), BENCH_PEERS_OUT (a copy of the results),
 * and BENCH_PEERS_SRC / BENCH_PEERS_WORK (harness.ts).
 */
import '../src/runtime/polyfill.js'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type LatencyStats, startProbe } from '../bench/lib/cchain-rpc.js'
import { EWOQ_PRIVATE_KEY } from '../src/chains/evm/rules/presets.js'
import { memoryOf } from '../test/helpers/clients.js'
import { prepareHarness, run, say, startDevFirn } from './lib/harness.js'

const REPS = process.env.BENCH_PEERS_REPS ?? '1'
const PEERS = process.env.BENCH_PEERS_PEERS ?? 'floor hardhat anvil-interval'
const QUICK = process.env.BENCH_PEERS_QUICK === '1'
const VMFLOOR = process.env.BENCH_PEERS_VMFLOOR !== '0'

const work = await prepareHarness()
const node = await startDevFirn()
const out = join(work, `results-firn-${new Date().toISOString().slice(0, 10)}.json`)
const firn: { idleRssMb?: number; afterHarnessRssMb?: number; blockNumberUnderEth16?: LatencyStats } = {}
const rssMb = async (pid: number) => Math.round((await memoryOf(pid)).rssMb * 10) / 10
try {
  await new Promise((r) => setTimeout(r, 3_000))
  firn.idleRssMb = await rssMb(node.pid)
  say(`firn --dev at ${node.url} (pid ${node.pid}); peers: ${PEERS}; ${REPS} repetition(s)`)
  const target = ['--target', `${node.url}/ext/bc/C/rpc`, '--target-label', 'firn', '--target-pid', String(node.pid)]
  await run(
    'bash',
    [
      'runall.sh',
      ...['--reps', REPS, '--peers', PEERS],
      ...(QUICK ? ['--quick'] : []),
      ...(VMFLOOR ? [] : ['--no-vmfloor']),
      ...target,
      ...['--target-key', EWOQ_PRIVATE_KEY, '--out', out],
    ],
    work,
  )
  firn.afterHarnessRssMb = await rssMb(node.pid)
  say('eth_blockNumber every 5 ms while 16 senders load firn again')
  const probe = startProbe(`${node.url}/ext/bc/C/rpc`, 5)
  try {
    await run(
      'node',
      ['run.mjs', '--url', `${node.url}/ext/bc/C/rpc`, '--key', EWOQ_PRIVATE_KEY, '--label', 'firn', '--only', 'eth16'],
      work,
    )
  } finally {
    firn.blockNumberUnderEth16 = await probe.stop()
  }
} finally {
  await node.cleanup()
}
const results = JSON.parse(await readFile(out, 'utf8')) as { table?: string; runs?: unknown }
const { runs: _runs, table, ...medians } = results
process.stdout.write(`${JSON.stringify({ ...medians, firn }, null, 2)}\n\n${table ?? ''}\n`)
say(`results with every raw run: ${out}`)
if (process.env.BENCH_PEERS_OUT !== undefined) {
  await writeFile(process.env.BENCH_PEERS_OUT, JSON.stringify({ ...results, firn }))
}
