/**
 * Five-node connect time: five real `firn` processes laid out by scripts/network.ts (`networkLayout`: the
 * reference's local staking keys, node2..5 bootstrapping from node1) in a fresh temp FIRN_NETWORK_DIR on a free
 * random base port, spawned here the way `start` spawns them (node1 first, the other four once node1 serves; or
 * all five at once with `spawnAll`) but without `start`'s blocking and printing, so the clock runs from the
 * first spawn. Polls every node's
 * info.getNodeID (serving) and info.peers (connected: lists the other four) until all five are connected.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type NetworkNode, networkLayout } from '../../scripts/network.js'
import { freeBasePort } from '../../test/helpers/ports.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const ENTRY = join(ROOT, 'src', 'bin', 'firn.ts')
const TSX = import.meta.resolve('tsx')
const HOST = '127.0.0.1'
const POLL_MS = 50
const STOP_KILL_AFTER_MS = 15_000

export interface FiveNodeRun {
  basePort: number
  /** ms from the first spawn until node1 answers info.getNodeID */
  firstServesMs: number
  /** ... until all five answer it */
  allServeMs: number
  /** ... until every node's info.peers lists the other four */
  connectedMs: number
  /** connectedMs - allServeMs: the part after HTTP is up */
  p2pAfterServeMs: number
  /** per node (node1..node5): ms until it served, until it listed the other four */
  nodes: { serveMs: number; connectedMs: number }[]
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

async function call<T>(port: number, method: string): Promise<T | undefined> {
  try {
    const res = await fetch(`http://${HOST}:${port}/ext/info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} }),
      signal: AbortSignal.timeout(2_000),
    })
    const body = (await res.json()) as { result?: T }
    return body.result
  } catch {
    return undefined
  }
}

function spawnNode(node: NetworkNode): ChildProcess {
  const out = openSync(node.logFile, 'a')
  try {
    return spawn(process.execPath, ['--import', TSX, ENTRY, ...node.args], {
      cwd: node.dataDir,
      stdio: ['ignore', out, out],
    })
  } finally {
    closeSync(out)
  }
}

async function stopAll(procs: ChildProcess[]): Promise<void> {
  await Promise.all(
    procs.map(async (p) => {
      if (p.exitCode !== null || p.signalCode !== null) return
      const exited = new Promise((r) => p.once('exit', r))
      p.kill('SIGTERM')
      const t = setTimeout(() => p.kill('SIGKILL'), STOP_KILL_AFTER_MS)
      await exited
      clearTimeout(t)
    }),
  )
}

async function tail(file: string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trimEnd().split('\n').slice(-15).join('\n')
  } catch {
    return '(no output)'
  }
}

/** One run in a fresh temp dir; every process is stopped and the dir removed before it returns. */
export async function fiveNodeRun(timeoutMs: number, spawnAll = false): Promise<FiveNodeRun> {
  const dir = await mkdtemp(join(tmpdir(), 'firn-p2p-bench-'))
  const basePort = await freeBasePort(20_000, 55_000)
  const layout = networkLayout({ FIRN_NETWORK_DIR: dir, FIRN_NETWORK_BASE_PORT: String(basePort) })
  for (const node of layout.nodes) await mkdir(node.dataDir, { recursive: true, mode: 0o750 })
  const procs: ChildProcess[] = []
  const serveMs: (number | undefined)[] = layout.nodes.map(() => undefined)
  const connMs: (number | undefined)[] = layout.nodes.map(() => undefined)
  const launch = async (node: NetworkNode): Promise<void> => {
    const p = spawnNode(node)
    procs.push(p)
    if (p.pid !== undefined) await writeFile(node.pidFile, `${p.pid}\n`)
  }
  const t0 = performance.now()
  try {
    let rest = spawnAll
    for (const node of spawnAll ? layout.nodes : layout.nodes.slice(0, 1)) await launch(node)
    const deadline = t0 + timeoutMs
    for (;;) {
      const now = performance.now()
      if (now > deadline) throw new Error(`not fully connected within ${timeoutMs} ms`)
      const dead = procs.findIndex((p) => p.exitCode !== null || p.signalCode !== null)
      if (dead >= 0) {
        const node = layout.nodes[dead]!
        throw new Error(`${node.name} exited; last output (${node.logFile}):\n${await tail(node.logFile)}`)
      }
      const live = rest ? layout.nodes : layout.nodes.slice(0, 1)
      const polled = await Promise.all(
        live.map(async (node, i) => {
          const at = () => Math.round(performance.now() - t0)
          if (serveMs[i] === undefined) {
            const id = await call<{ nodeID: string }>(node.httpPort, 'info.getNodeID')
            if (id?.nodeID !== node.nodeId) return false
            serveMs[i] = at()
          }
          const list = await call<{ peers: { nodeID: string }[] }>(node.httpPort, 'info.peers')
          const seen = new Set(list?.peers.map((p) => p.nodeID) ?? [])
          const full = layout.nodes.every((other) => other === node || seen.has(other.nodeId))
          if (full) connMs[i] ??= at()
          else connMs[i] = undefined
          return full
        }),
      )
      if (!rest && serveMs[0] !== undefined) {
        rest = true
        for (const node of layout.nodes.slice(1)) await launch(node)
      }
      if (rest && polled.length === 5 && polled.every(Boolean)) {
        const connectedMs = Math.round(performance.now() - t0)
        const allServeMs = Math.max(...(serveMs as number[]))
        return {
          basePort,
          firstServesMs: serveMs[0]!,
          allServeMs,
          connectedMs,
          p2pAfterServeMs: connectedMs - allServeMs,
          nodes: layout.nodes.map((_, i) => ({ serveMs: serveMs[i]!, connectedMs: connMs[i]! })),
        }
      }
      await sleep(POLL_MS)
    }
  } finally {
    await stopAll(procs)
    await rm(dir, { recursive: true, force: true })
  }
}
