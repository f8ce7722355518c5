/**
 * `make profile-transfers`: a CPU profile of Firn under each transfer workload of the shared harness
 * (../shared/bench-peers `run.mjs --only <workload>`: eth1, eth16, erc1, erc16), taken through the node's own
 * `admin.startCPUProfiler` / `admin.stopCPUProfiler`, each on a fresh `firn --dev`. Prints one JSON object: per
 * workload the harness's tx/s and the profile's summary (scripts/lib/cpuprofile.ts: busy ms, top functions and
 * packages by self time); the `.cpuprofile` files are kept (their directory is printed) to open in Chrome DevTools.
 * docs/performance.md quotes its output before and after each change.
 *
 * Knobs: BENCH_PROFILE_WORKLOADS (eth1,eth16,erc1,erc16), BENCH_PROFILE_N (2000 txs), BENCH_PROFILE_OUT (the
 * directory for the profiles; default <harness work dir>/profiles).
 */
import '../src/runtime/polyfill.js'
import { copyFile, mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { EWOQ_PRIVATE_KEY } from '../src/chains/evm/rules/presets.js'
import { summarizeProfile } from './lib/cpuprofile.js'
import { prepareHarness, run, say, startDevFirn } from './lib/harness.js'

const WORKLOADS = (process.env.BENCH_PROFILE_WORKLOADS ?? 'eth1,eth16,erc1,erc16').split(',')
const N = process.env.BENCH_PROFILE_N ?? '2000'

const work = await prepareHarness()
const outDir = process.env.BENCH_PROFILE_OUT ?? join(work, 'profiles')
await mkdir(outDir, { recursive: true })
const report: Record<string, unknown> = {}
for (const workload of WORKLOADS) {
  const node = await startDevFirn()
  try {
    const admin = async (method: string) => {
      const reply = await node.rpc('/ext/admin', method, {})
      if (reply.body.error !== undefined) throw new Error(`${method}: ${reply.body.error.message}`)
    }
    const json = join(work, '.run', `profile-${workload}.json`)
    await mkdir(join(work, '.run'), { recursive: true })
    say(`== ${workload}: firn --dev at ${node.url}, CPU profiler on`)
    await admin('admin.startCPUProfiler')
    await run(
      'node',
      ['run.mjs', '--url', `${node.url}/ext/bc/C/rpc`, '--key', EWOQ_PRIVATE_KEY, '--label', 'firn'].concat([
        '--server-pid',
        String(node.pid),
        '--only',
        workload,
        '--n',
        N,
        '--json',
        json,
      ]),
      work,
    )
    await admin('admin.stopCPUProfiler')
    const file = join(outDir, `firn-${workload}.cpuprofile`)
    await copyFile(join(node.dataDir, 'profiles', 'cpu.profile'), file)
    const result = JSON.parse(await readFile(json, 'utf8')) as { tx?: Record<string, { e2eTps?: number }> }
    report[workload] = {
      e2eTxPerSec: result.tx?.[workload]?.e2eTps ?? null,
      profile: file,
      ...summarizeProfile(JSON.parse(await readFile(file, 'utf8'))),
    }
  } finally {
    await node.cleanup()
  }
}
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
say(`profiles in ${outDir}`)
