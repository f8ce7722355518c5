/**
 * The five-node network of the consensus bench: real `firn` processes laid out by scripts/network.ts
 * (`networkLayout`: the reference's local staking keys, `--dev-speed`, node2..5 bootstrapping from node1) in a
 * fresh temp dir on a free base port in 27000..29990, spawned as children of the bench (not detached) so that
 * `stopAll` and the exit hook always take them down. One node can be stopped, wiped and restarted alone.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type NetworkLayout, type NetworkNode, networkLayout } from '../../scripts/network.js'
import { freeBasePort } from '../../test/helpers/ports.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const ENTRY = join(ROOT, 'src', 'bin', 'firn.ts')
const TSX = import.meta.resolve('tsx')
const HOST = '127.0.0.1'
const STOP_KILL_AFTER_MS = 15_000

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** One JSON-RPC call to a node's `/ext/<path>`; undefined when the node does not answer (yet). */
export async function infoCall<T>(port: number, method: string, params: unknown = {}): Promise<T | undefined> {
  try {
    const res = await fetch(`http://${HOST}:${port}/ext/info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(5_000),
    })
    const body = (await res.json()) as { result?: T }
    return body.result
  } catch {
    return undefined
  }
}

async function tail(file: string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trimEnd().split('\n').slice(-15).join('\n')
  } catch {
    return '(no output)'
  }
}

export class BenchNetwork {
  readonly layout: NetworkLayout
  readonly #procs = new Map<number, ChildProcess>()
  readonly #onExit = () => {
    for (const p of this.#procs.values()) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL')
  }

  private constructor(
    readonly dir: string,
    readonly basePort: number,
  ) {
    this.layout = networkLayout({ FIRN_NETWORK_DIR: dir, FIRN_NETWORK_BASE_PORT: String(basePort) })
    process.on('exit', this.#onExit)
  }

  static async create(): Promise<BenchNetwork> {
    const dir = await mkdtemp(join(tmpdir(), 'firn-consensus-bench-'))
    return new BenchNetwork(dir, await freeBasePort(27_000, 30_000))
  }

  get nodes(): NetworkNode[] {
    return this.layout.nodes
  }

  /** node i's `/rpc` of an EVM chain (C unless named) */
  rpcUrl(i: number, chain = 'C'): string {
    return `http://${HOST}:${this.nodes[i]!.httpPort}/ext/bc/${chain}/rpc`
  }

  wsUrl(i: number, chain = 'C'): string {
    return `ws://${HOST}:${this.nodes[i]!.httpPort}/ext/bc/${chain}/ws`
  }

  /** every node gets these flags too (call before starting them) */
  addArgs(...args: string[]): void {
    for (const n of this.nodes) n.args.push(...args)
  }

  /** the node's process (spawned by this object), if running */
  pid(i: number): number | undefined {
    const p = this.#procs.get(i)
    return p !== undefined && p.exitCode === null && p.signalCode === null ? p.pid : undefined
  }

  /** Spawn node i (0-based); returns at once. */
  async spawn(i: number): Promise<void> {
    const node = this.nodes[i]!
    await mkdir(node.dataDir, { recursive: true, mode: 0o750 })
    const out = openSync(node.logFile, 'a')
    try {
      const p = spawn(process.execPath, ['--import', TSX, ENTRY, ...node.args], {
        cwd: node.dataDir,
        stdio: ['ignore', out, out],
      })
      this.#procs.set(i, p)
    } finally {
      closeSync(out)
    }
  }

  /** Wait until node i answers info.getNodeID with its NodeID. */
  async waitServing(i: number, timeoutMs: number): Promise<void> {
    const node = this.nodes[i]!
    const deadline = performance.now() + timeoutMs
    for (;;) {
      await this.#checkAlive(i)
      const id = await infoCall<{ nodeID: string }>(node.httpPort, 'info.getNodeID')
      if (id?.nodeID === node.nodeId) return
      if (performance.now() > deadline) throw new Error(`${node.name} did not serve within ${timeoutMs} ms`)
      await sleep(100)
    }
  }

  /** Wait until node i says the chain (C unless named) is bootstrapped; polls every `pollMs`. */
  async waitBootstrapped(i: number, timeoutMs: number, pollMs = 50, chain = 'C'): Promise<void> {
    const node = this.nodes[i]!
    const deadline = performance.now() + timeoutMs
    for (;;) {
      await this.#checkAlive(i)
      const r = await infoCall<{ isBootstrapped: boolean }>(node.httpPort, 'info.isBootstrapped', { chain })
      if (r?.isBootstrapped === true) return
      if (performance.now() > deadline)
        throw new Error(`${node.name}: ${chain} not bootstrapped within ${timeoutMs} ms`)
      await sleep(pollMs)
    }
  }

  /** Start all five (node1 first, like `make network`) and wait until each serves and has C bootstrapped. */
  async startAll(timeoutMs: number): Promise<void> {
    await this.spawn(0)
    await this.waitServing(0, timeoutMs)
    for (let i = 1; i < 5; i++) await this.spawn(i)
    await Promise.all(this.nodes.map((_, i) => this.waitServing(i, timeoutMs)))
    await Promise.all(this.nodes.map((_, i) => this.waitBootstrapped(i, timeoutMs, 200)))
  }

  async #checkAlive(i: number): Promise<void> {
    const p = this.#procs.get(i)
    if (p === undefined || p.exitCode !== null || p.signalCode !== null) {
      const node = this.nodes[i]!
      throw new Error(`${node.name} is not running; last output (${node.logFile}):\n${await tail(node.logFile)}`)
    }
  }

  /** SIGTERM node i and wait for it to exit (SIGKILL after 15 s). */
  async stop(i: number): Promise<void> {
    const p = this.#procs.get(i)
    if (p === undefined) return
    if (p.exitCode === null && p.signalCode === null) {
      const exited = new Promise((r) => p.once('exit', r))
      p.kill('SIGTERM')
      const t = setTimeout(() => p.kill('SIGKILL'), STOP_KILL_AFTER_MS)
      await exited
      clearTimeout(t)
    }
    this.#procs.delete(i)
  }

  /** Node i's data dir without its logs: the database, process files. */
  async wipe(i: number): Promise<void> {
    const node = this.nodes[i]!
    await rm(join(node.dataDir, 'db'), { recursive: true, force: true })
  }

  /** Node i's LevelDB directory (the local network's database). */
  dbPath(i: number): string {
    return join(this.nodes[i]!.dataDir, 'db', 'local')
  }

  /** Node i's C chain log. */
  cLog(i: number): string {
    return join(this.nodes[i]!.dataDir, 'logs', 'C.log')
  }

  /** Stop every node this object started; `keep` leaves the temp dir (BENCH_CONS_KEEP). */
  async close(keep = false): Promise<void> {
    await Promise.all([...this.#procs.keys()].map((i) => this.stop(i)))
    process.off('exit', this.#onExit)
    if (!keep) await rm(this.dir, { recursive: true, force: true })
  }
}
