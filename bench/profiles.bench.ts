/**
 * What a profile request costs the node's other callers, on a real `firn --dev` process: the latency of
 * `admin.memoryProfile` (the sampling heap profile) and of Firn's `admin.heapSnapshot` (the full snapshot), and the
 * worst `info.getNodeID` round trip seen by a client calling in a loop meanwhile, next to the floor measured in
 * the same run: the same loop with nothing else going on. The node's CPU time per call (from /proc, Linux) is
 * measured with the calls alone, as the wall times swing with whatever else runs on the machine. Prints one JSON
 * object.
 */
import '../src/runtime/polyfill.js'
import { readFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { rpc, startFirn } from '../test/helpers/firn-process.js'

const PROFILES = Number(process.env.BENCH_PROFILES ?? 10)
const SNAPSHOTS = Number(process.env.BENCH_SNAPSHOTS ?? 3)

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0
}
const round = (x: number): number => Math.round(x * 100) / 100

/** The process's user + system CPU time in ms (/proc/<pid>/stat, clock ticks of 10 ms). */
const cpuMs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/** The node's CPU ms per call of `method`, over `n` calls in a row with nothing else running. */
async function cpuPerCall(url: string, pid: number, method: string, n: number): Promise<number> {
  const before = cpuMs(pid)
  for (let i = 0; i < n; i++) {
    const r = await rpc(`${url}/ext/admin`, method)
    if (r.body.error) throw new Error(`${method}: ${r.body.error.message}`)
  }
  return round((cpuMs(pid) - before) / n)
}

/** Calls info.getNodeID one after another until `until` settles; the round-trip times in ms. */
async function infoLoop(url: string, until: Promise<unknown>): Promise<number[]> {
  let done = false
  void until.finally(() => {
    done = true
  })
  const times: number[] = []
  while (!done) {
    const t = performance.now()
    const r = await rpc(`${url}/ext/info`, 'info.getNodeID')
    if (r.status !== 200) throw new Error(`info.getNodeID: ${r.status}`)
    times.push(performance.now() - t)
  }
  return times
}

/** Runs `method` `n` times in a row while the info loop runs; latencies of both. */
async function during(url: string, method: string, n: number) {
  const calls: number[] = []
  const work = (async () => {
    for (let i = 0; i < n; i++) {
      const t = performance.now()
      const r = await rpc(`${url}/ext/admin`, method)
      if (r.body.error) throw new Error(`${method}: ${r.body.error.message}`)
      calls.push(performance.now() - t)
    }
  })()
  const info = await infoLoop(url, work)
  await work
  return {
    callMs: { p50: round(quantile(calls, 0.5)), max: round(Math.max(...calls)) },
    infoMs: { p50: round(quantile(info, 0.5)), p99: round(quantile(info, 0.99)), max: round(Math.max(...info)) },
    infoCalls: info.length,
  }
}

const node = await startFirn({ args: ['--dev', '--db-type=memdb', '--log-level=warn', '--log-display-level=info'] })
try {
  const idle = await infoLoop(node.url, new Promise((r) => setTimeout(r, 2_000)))
  const memory = await during(node.url, 'admin.memoryProfile', PROFILES)
  const snapshot = await during(node.url, 'admin.heapSnapshot', SNAPSHOTS)
  const cpu = {
    memoryProfile: await cpuPerCall(node.url, node.pid, 'admin.memoryProfile', PROFILES),
    heapSnapshot: await cpuPerCall(node.url, node.pid, 'admin.heapSnapshot', SNAPSHOTS),
  }
  const floor = { p50: round(quantile(idle, 0.5)), p99: round(quantile(idle, 0.99)), max: round(Math.max(...idle)) }
  console.log(
    JSON.stringify({
      bench: 'profiles',
      floorInfoMs: floor,
      nodeCpuMsPerCall: cpu,
      memoryProfile: memory,
      heapSnapshot: snapshot,
      worstInfoVsFloor: {
        memoryProfile: round(memory.infoMs.max / floor.max),
        heapSnapshot: round(snapshot.infoMs.max / floor.max),
      },
    }),
  )
} finally {
  await node.cleanup()
}
