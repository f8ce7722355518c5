/**
 * A five-node local network on loopback: `node --import tsx scripts/network.ts start|stop|status`
 * (`make network`, `make network-stop`). Each node runs `src/bin/firn.ts` detached with one of the reference's
 * public local staking keys (test/fixtures/staking), so the five NodeIDs are the local genesis validators.
 * Data, logs and pid files live under $FIRN_NETWORK_DIR (default ~/.firn/network); ports start at
 * $FIRN_NETWORK_BASE_PORT (default 9650): node i serves HTTP on base+10(i-1) and staking on base+10(i-1)+1.
 */
import { spawn } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { LOCAL_GENESIS_VALIDATORS } from '../src/network/validators.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const ENTRY = join(ROOT, 'src', 'bin', 'firn.ts')
const FIXTURES = join(ROOT, 'test', 'fixtures', 'staking')

export const DEFAULT_BASE_PORT = 9650
const HOST = '127.0.0.1'
const SERVE_TIMEOUT_MS = 120_000
const STOP_KILL_AFTER_MS = 15_000

export interface NetworkNode {
  /** 1..5 */
  index: number
  name: string
  nodeId: string
  httpPort: number
  stakingPort: number
  dataDir: string
  pidFile: string
  /** the process's stdout and stderr */
  logFile: string
  processFile: string
  args: string[]
}

export interface NetworkLayout {
  root: string
  basePort: number
  nodes: NetworkNode[]
}

/** Where everything lives and which flags each node gets, from FIRN_NETWORK_DIR and FIRN_NETWORK_BASE_PORT. */
export function networkLayout(env: NodeJS.ProcessEnv = process.env): NetworkLayout {
  const root = resolve(env.FIRN_NETWORK_DIR || join(env.HOME || homedir(), '.firn', 'network'))
  const portText = env.FIRN_NETWORK_BASE_PORT || String(DEFAULT_BASE_PORT)
  const basePort = Number(portText)
  if (!/^\d+$/.test(portText) || basePort < 1 || basePort + 41 > 65535) {
    throw new Error(`FIRN_NETWORK_BASE_PORT must be an integer in [1, 65494], got ${JSON.stringify(portText)}`)
  }
  // staker<i> of test/fixtures/staking is LOCAL_GENESIS_VALIDATORS[i-1] (test/unit/src/identity/local-stakers.test.ts)
  const nodes = LOCAL_GENESIS_VALIDATORS.map((nodeId, i): NetworkNode => {
    const index = i + 1
    const name = `node${index}`
    const dataDir = join(root, name)
    const httpPort = basePort + 10 * i
    const stakingPort = httpPort + 1
    return {
      index,
      name,
      nodeId,
      httpPort,
      stakingPort,
      dataDir,
      pidFile: join(dataDir, 'firn.pid'),
      logFile: join(dataDir, 'firn.out'),
      processFile: join(dataDir, 'process.json'),
      args: [
        '--network-id=local',
        // the C chain at --dev's block timing (1 ms minimum delay), so a tx is final in well under a second
        '--dev-speed',
        `--data-dir=${dataDir}`,
        `--http-host=${HOST}`,
        `--http-port=${httpPort}`,
        `--staking-host=${HOST}`,
        `--staking-port=${stakingPort}`,
        `--staking-tls-key-file=${join(FIXTURES, `staker${index}.key`)}`,
        `--staking-tls-cert-file=${join(FIXTURES, `staker${index}.crt`)}`,
        `--staking-signer-key-file=${join(FIXTURES, `signer${index}.key`)}`,
      ],
    }
  })
  const first = nodes[0]!
  for (const node of nodes.slice(1)) {
    node.args.push(`--bootstrap-ips=${HOST}:${first.stakingPort}`, `--bootstrap-ids=${first.nodeId}`)
  }
  return { root, basePort, nodes }
}

/** The pid in the node's pid file, if any. */
export async function readPid(node: NetworkNode): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(node.pidFile, 'utf8')).trim())
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/**
 * Is `pid` a live firn process? A zombie (exited, not yet reaped by its new parent) counts as gone, and on
 * Linux a pid reused by some other program is not taken for a node.
 */
export async function isRunning(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0)
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return false
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8')
    return cmdline.includes('firn.ts')
  } catch {
    return true // no /proc (macOS): trust kill(0)
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolvePort) => {
    const server = createServer()
    server.once('error', () => resolvePort(false))
    server.listen({ host: HOST, port, exclusive: true }, () => server.close(() => resolvePort(true)))
  })
}

async function call(url: string, method: string, params: unknown = {}): Promise<unknown> {
  const res = await fetch(`${url}/ext/info`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(5_000),
  })
  const body = (await res.json()) as { result?: unknown; error?: { message: string } }
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}

async function tail(file: string, lines = 20): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trimEnd().split('\n').slice(-lines).join('\n')
  } catch {
    return '(no output)'
  }
}

function spawnNode(node: NetworkNode): number {
  const out = openSync(node.logFile, 'a')
  try {
    const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), ENTRY, ...node.args], {
      cwd: node.dataDir,
      detached: true,
      stdio: ['ignore', out, out],
    })
    child.unref()
    if (child.pid === undefined) throw new Error(`${node.name}: could not spawn firn`)
    return child.pid
  } finally {
    closeSync(out)
  }
}

/** Waits until the node wrote its process.json for this pid and answers info.getNodeID; returns its URL. */
async function waitServing(node: NetworkNode, pid: number): Promise<string> {
  const deadline = Date.now() + SERVE_TIMEOUT_MS
  while (Date.now() < deadline) {
    if (!(await isRunning(pid))) {
      throw new Error(`${node.name} exited before serving; last output (${node.logFile}):\n${await tail(node.logFile)}`)
    }
    try {
      const ctx = JSON.parse(await readFile(node.processFile, 'utf8')) as { pid: number; uri: string }
      if (ctx.pid === pid) {
        const { nodeID } = (await call(ctx.uri, 'info.getNodeID')) as { nodeID: string }
        if (nodeID !== node.nodeId) throw new Error(`${node.name} reports ${nodeID}, expected ${node.nodeId}`)
        return ctx.uri
      }
    } catch (err) {
      if ((err as Error).message.startsWith(node.name)) throw err
    }
    await sleep(200)
  }
  throw new Error(`${node.name} did not serve within ${SERVE_TIMEOUT_MS / 1000} s; see ${node.logFile}`)
}

/** Starts ONE node of the layout (detached, pid in its pid file) and waits until it serves; returns its pid. */
export async function startNode(node: NetworkNode): Promise<number> {
  await mkdir(node.dataDir, { recursive: true, mode: 0o750 })
  await rm(node.processFile, { force: true })
  const pid = spawnNode(node)
  await writeFile(node.pidFile, `${pid}\n`)
  await waitServing(node, pid)
  return pid
}

async function peerCount(node: NetworkNode): Promise<string> {
  try {
    const { numPeers } = (await call(`http://${HOST}:${node.httpPort}`, 'info.peers')) as { numPeers: string }
    return numPeers
  } catch {
    return '?'
  }
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)))
  return rows
    .map((r) =>
      r
        .map((cell, c) => cell.padEnd(widths[c]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}

async function printTable(layout: NetworkLayout, withState: boolean): Promise<void> {
  const header = ['node', 'NodeID', 'HTTP URL', 'staking', ...(withState ? ['state', 'pid'] : []), 'peers']
  const rows = [header]
  for (const node of layout.nodes) {
    const pid = await readPid(node)
    const running = pid !== undefined && (await isRunning(pid))
    const row = [node.name, node.nodeId, `http://${HOST}:${node.httpPort}`, `${HOST}:${node.stakingPort}`]
    if (withState) row.push(running ? 'running' : 'stopped', running ? String(pid) : '-')
    row.push(running ? await peerCount(node) : '-')
    rows.push(row)
  }
  process.stdout.write(`${table(rows)}\n`)
}

async function runningNodes(layout: NetworkLayout): Promise<{ node: NetworkNode; pid: number }[]> {
  const found: { node: NetworkNode; pid: number }[] = []
  for (const node of layout.nodes) {
    const pid = await readPid(node)
    if (pid !== undefined && (await isRunning(pid))) found.push({ node, pid })
  }
  return found
}

export async function start(layout: NetworkLayout): Promise<number> {
  const running = await runningNodes(layout)
  if (running.length > 0) {
    const list = running.map(({ node, pid }) => `${node.name} (pid ${pid})`).join(', ')
    process.stderr.write(`the local network is already running: ${list}; stop it with \`make network-stop\`\n`)
    return 1
  }
  for (const node of layout.nodes) {
    for (const port of [node.httpPort, node.stakingPort]) {
      if (!(await portFree(port))) {
        process.stderr.write(`port ${port} (${node.name}) on ${HOST} is in use; set FIRN_NETWORK_BASE_PORT\n`)
        return 1
      }
    }
  }
  process.stdout.write(`starting 5 firn nodes in ${layout.root}\n`)
  try {
    const [first, ...rest] = layout.nodes
    await startNode(first!)
    await Promise.all(rest.map(startNode))
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\nstopping the nodes already started\n`)
    await stop(layout, true)
    return 1
  }
  process.stdout.write('\n')
  await printTable(layout, false)
  process.stdout.write(
    `\ndata and logs: ${layout.root}/node<n> (process output in firn.out, node logs in logs/)\n` +
      'stop with `make network-stop` (or `node --import tsx scripts/network.ts stop`)\n',
  )
  return 0
}

/** SIGTERM one node of the layout, wait for it to exit (SIGKILL after 15 s), remove its pid file. */
export async function stopOne(node: NetworkNode, quiet: boolean): Promise<void> {
  const pid = await readPid(node)
  if (pid !== undefined && (await isRunning(pid))) {
    try {
      process.kill(pid, 'SIGTERM')
    } catch {}
    const killAt = Date.now() + STOP_KILL_AFTER_MS
    let killed = false
    while (await isRunning(pid)) {
      if (!killed && Date.now() >= killAt) {
        if (!quiet) process.stdout.write(`${node.name} (pid ${pid}) did not exit in 15 s: SIGKILL\n`)
        try {
          process.kill(pid, 'SIGKILL')
        } catch {}
        killed = true
      }
      await sleep(100)
    }
    if (!quiet) process.stdout.write(`${node.name} stopped (pid ${pid})\n`)
  }
  await rm(node.pidFile, { force: true })
}

/** SIGTERM every node, wait for it to exit (SIGKILL after 15 s), remove the pid files. Idempotent. */
export async function stop(layout: NetworkLayout, quiet = false): Promise<number> {
  const running = await runningNodes(layout)
  await Promise.all(layout.nodes.map((node) => stopOne(node, quiet)))
  if (!quiet && running.length === 0) process.stdout.write('the local network is not running\n')
  return 0
}

export async function status(layout: NetworkLayout): Promise<number> {
  process.stdout.write(`local network in ${layout.root}\n`)
  await printTable(layout, true)
  return 0
}

async function main(argv: string[]): Promise<number> {
  const command = argv[0]
  let layout: NetworkLayout
  try {
    layout = networkLayout()
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`)
    return 2
  }
  if (command === 'start') return start(layout)
  if (command === 'stop') return stop(layout)
  if (command === 'status') return status(layout)
  process.stderr.write('usage: node --import tsx scripts/network.ts start|stop|status\n')
  return 2
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).then((code) => process.exit(code))
}
