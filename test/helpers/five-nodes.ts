/**
 * Five real `firn` processes with scripts/network.ts's layout (the local genesis stakers, `--dev-speed`) in a temp
 * dir on a free port range, for consensus tests: start/stop/kill single nodes, wait for the C chain to bootstrap,
 * sign and send EVM transfers, read receipts, heights and blocks. `shutdown()` stops every process the handle
 * started (SIGKILL for stragglers) and removes the data; register it with `after`.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Wallet } from 'ethers'
import {
  isRunning,
  type NetworkLayout,
  type NetworkNode,
  networkLayout,
  startNode,
  stopOne,
} from '../../scripts/network.js'
import { EWOQ_PRIVATE_KEY } from '../../src/chains/evm/rules/presets.js'
import { freeBasePort } from './ports.js'

export const CHAIN_ID = 43112n
/** type 2 fee fields every transfer uses */
const MAX_FEE = 100_000_000_000n
const TIP = 1n
const GAS = 21_000n

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export interface RawReply {
  status: number
  text: string
  result?: unknown
  error?: { code: number; message: string }
}

/** One JSON-RPC call; HTTP errors and non-JSON bodies (the 503 while bootstrapping) come back in `text`. */
export async function post(url: string, method: string, params: unknown, timeoutMs = 10_000): Promise<RawReply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  })
  const text = await res.text()
  let body: { result?: unknown; error?: { code: number; message: string } } = {}
  try {
    body = JSON.parse(text)
  } catch {}
  return { status: res.status, text, result: body.result, error: body.error }
}

async function call<T>(url: string, method: string, params: unknown): Promise<T> {
  const reply = await post(url, method, params)
  if (reply.status !== 200 || reply.error) {
    throw new Error(`${method} at ${url}: HTTP ${reply.status} ${reply.error?.message ?? reply.text.slice(0, 200)}`)
  }
  return reply.result as T
}

export interface BlockInfo {
  number: string
  hash: string
  stateRoot: string
  parentHash: string
  transactions: string[]
}

/** A node of the running set: its layout entry, URLs and, while running, its pid. */
export class FiveNode {
  pid: number | undefined
  constructor(readonly layout: NetworkNode) {}
  get name(): string {
    return this.layout.name
  }
  get url(): string {
    return `http://127.0.0.1:${this.layout.httpPort}`
  }
  get rpcUrl(): string {
    return this.rpcUrlOf('C')
  }
  /** an EVM chain's `/rpc` by alias (C, or a chain declared in the genesis file) */
  rpcUrlOf(chain: string): string {
    return `${this.url}/ext/bc/${chain}/rpc`
  }
  eth<T>(method: string, params: unknown[] = [], chain = 'C'): Promise<T> {
    return call<T>(this.rpcUrlOf(chain), method, params)
  }
  async height(chain = 'C'): Promise<number> {
    return Number(await this.eth<string>('eth_blockNumber', [], chain))
  }
  block(height: number, chain = 'C'): Promise<BlockInfo | null> {
    return this.eth<BlockInfo | null>('eth_getBlockByNumber', [`0x${height.toString(16)}`, false], chain)
  }
  receipt(hash: string, chain = 'C'): Promise<{ status: string; blockNumber: string; blockHash: string } | null> {
    return this.eth('eth_getTransactionReceipt', [hash], chain)
  }
  async isBootstrapped(chain = 'C'): Promise<boolean> {
    const r = await call<{ isBootstrapped: boolean }>(`${this.url}/ext/info`, 'info.isBootstrapped', { chain })
    return r.isBootstrapped
  }
  /** the last lines of the process output and of the C chain log, for failure messages */
  async logs(lines = 30): Promise<string> {
    const read = async (file: string) => {
      try {
        return (await readFile(file, 'utf8')).trimEnd().split('\n').slice(-lines).join('\n')
      } catch {
        return '(none)'
      }
    }
    const c = join(this.layout.dataDir, 'logs', 'C.log')
    return `--- ${this.name} firn.out\n${await read(this.layout.logFile)}\n--- ${this.name} C.log\n${await read(c)}`
  }
}

export class FiveNodes {
  readonly nodes: FiveNode[]
  private readonly started = new Set<number>()
  private constructor(
    readonly dir: string,
    readonly layout: NetworkLayout,
  ) {
    this.nodes = layout.nodes.map((n) => new FiveNode(n))
  }

  /** A layout in a fresh temp dir on free ports; nothing started yet. */
  static async create(): Promise<FiveNodes> {
    const dir = await mkdtemp(join(tmpdir(), 'firn-consensus-'))
    const basePort = await freeBasePort(23_000, 40_000)
    return new FiveNodes(dir, networkLayout({ FIRN_NETWORK_DIR: dir, FIRN_NETWORK_BASE_PORT: String(basePort) }))
  }

  node(index: number): FiveNode {
    const n = this.nodes[index - 1]
    if (!n) throw new Error(`no node ${index}`)
    return n
  }

  /** Starts node `index` (1..5) and waits until it serves HTTP (not until it is bootstrapped). */
  async start(index: number): Promise<void> {
    const n = this.node(index)
    // FIRN_TEST_C_LOG_LEVEL=debug: the C chain's log at that level (its config file), for chasing a failure
    const level = process.env.FIRN_TEST_C_LOG_LEVEL
    if (level !== undefined && level !== '') {
      const dir = join(n.layout.dataDir, 'configs', 'chains', 'C')
      await mkdir(dir, { recursive: true })
      await writeFile(join(dir, 'config.json'), JSON.stringify({ 'log-level': level }))
    }
    n.pid = await startNode(n.layout)
    this.started.add(n.pid)
  }

  /** Starts the given nodes (default all five: node1 first, as the script does), then waits for C bootstrapped. */
  async startAll(indexes = [1, 2, 3, 4, 5], timeoutMs = 120_000): Promise<void> {
    const [first, ...rest] = indexes
    if (first !== undefined) await this.start(first)
    await Promise.all(rest.map((i) => this.start(i)))
    await Promise.all(indexes.map((i) => this.waitBootstrapped(i, timeoutMs)))
  }

  /** SIGTERM and wait for exit (SIGKILL after 15 s). */
  async stop(index: number): Promise<void> {
    const n = this.node(index)
    await stopOne(n.layout, true)
    n.pid = undefined
  }

  /** SIGKILL and wait until the process is gone. */
  async kill(index: number): Promise<void> {
    const n = this.node(index)
    const pid = n.pid
    if (pid === undefined) return
    try {
      process.kill(pid, 'SIGKILL')
    } catch {}
    while (await isRunning(pid)) await sleep(50)
    await rm(n.layout.pidFile, { force: true })
    n.pid = undefined
  }

  async waitBootstrapped(index: number, timeoutMs = 120_000, chain = 'C'): Promise<void> {
    const n = this.node(index)
    await waitFor(`${n.name} bootstrapped ${chain}`, timeoutMs, () => n.isBootstrapped(chain).catch(() => false), n)
  }

  running(): FiveNode[] {
    return this.nodes.filter((n) => n.pid !== undefined)
  }

  /** Stops everything this handle started (SIGTERM, then SIGKILL), then removes the data dir unless keepData. */
  async shutdown(keepData = false): Promise<void> {
    await Promise.all(this.nodes.map((n) => stopOne(n.layout, true).catch(() => {})))
    for (const pid of this.started) {
      if (await isRunning(pid)) {
        try {
          process.kill(pid, 'SIGKILL')
        } catch {}
      }
    }
    for (const n of this.nodes) n.pid = undefined
    if (!keepData) await rm(this.dir, { recursive: true, force: true })
  }
}

/** Polls `check` every 100 ms until it is true; on timeout throws, with the node's logs if given. */
export async function waitFor(
  what: string,
  timeoutMs: number,
  check: () => Promise<boolean>,
  node?: FiveNode,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return
    await sleep(100)
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${node ? `\n${await node.logs()}` : ''}`)
}

/** An EVM chain of the network: its alias (the `/ext/bc/<alias>/rpc` path) and its EIP-155 chain ID. */
export interface EvmChainRef {
  alias: string
  chainId: bigint
}
export const C_CHAIN: EvmChainRef = { alias: 'C', chainId: CHAIN_ID }

/** A sender with a locally tracked nonce: signs type-2 transfers on one chain and sends them raw to any node. */
export class Sender {
  readonly wallet: Wallet
  nonce = 0
  constructor(
    privateKey: string,
    readonly chain: EvmChainRef = C_CHAIN,
  ) {
    this.wallet = new Wallet(privateKey)
  }
  get address(): string {
    return this.wallet.address
  }
  static ewoq(chain: EvmChainRef = C_CHAIN): Sender {
    return new Sender(`0x${EWOQ_PRIVATE_KEY}`, chain)
  }
  static random(chain: EvmChainRef = C_CHAIN): Sender {
    return new Sender(Wallet.createRandom().privateKey, chain)
  }
  async syncNonce(node: FiveNode): Promise<void> {
    this.nonce = Number(await node.eth<string>('eth_getTransactionCount', [this.address, 'latest'], this.chain.alias))
  }
  /** Signs the next transfer and sends it to `node`; returns the tx hash (the node's answer, checked). */
  async send(node: FiveNode, to: string, value = 1n): Promise<string> {
    const raw = await this.wallet.signTransaction({
      type: 2,
      chainId: this.chain.chainId,
      nonce: this.nonce,
      to,
      value,
      gasLimit: GAS,
      maxFeePerGas: MAX_FEE,
      maxPriorityFeePerGas: TIP,
    })
    const hash = await node.eth<string>('eth_sendRawTransaction', [raw], this.chain.alias)
    this.nonce++
    return hash
  }
}

/** Waits until `node` has a successful receipt for every hash (on the C chain unless `chain` names another). */
export async function waitReceipts(node: FiveNode, hashes: string[], timeoutMs = 60_000, chain = 'C'): Promise<void> {
  const pending = new Set(hashes)
  await waitFor(
    `${pending.size} receipts on ${node.name} (${chain})`,
    timeoutMs,
    async () => {
      for (const h of [...pending]) {
        const r = await node.receipt(h, chain).catch(() => null)
        if (r === null) return false
        if (r.status !== '0x1') throw new Error(`${h} failed on ${node.name}: status ${r.status}`)
        pending.delete(h)
      }
      return true
    },
    node,
  )
}

/** The block hashes 1..height on a node (in parallel batches). */
export async function hashes(node: FiveNode, height: number, chain = 'C'): Promise<string[]> {
  const out: string[] = []
  for (let from = 1; from <= height; from += 50) {
    const batch = []
    for (let h = from; h < Math.min(from + 50, height + 1); h++) batch.push(node.block(h, chain))
    for (const b of await Promise.all(batch)) out.push(b?.hash ?? 'missing')
  }
  return out
}

/** Waits until every node has reached `height`. */
export async function waitHeight(nodes: FiveNode[], height: number, timeoutMs = 60_000, chain = 'C'): Promise<void> {
  for (const n of nodes) {
    await waitFor(
      `${n.name} at height ${height} (${chain})`,
      timeoutMs,
      async () => (await n.height(chain).catch(() => -1)) >= height,
      n,
    )
  }
}

/** Every node in `nodes` has the same block hash at every height 1..height of `chain`. */
export async function assertSameChain(nodes: FiveNode[], height: number, chain = 'C'): Promise<void> {
  const [first, ...rest] = await Promise.all(nodes.map((n) => hashes(n, height, chain)))
  assert.equal(first!.length, height)
  assert.ok(!first!.includes('missing'), `${nodes[0]!.name} lacks a block of ${chain} below ${height}`)
  for (const [i, other] of rest.entries()) {
    for (let h = 0; h < height; h++) {
      assert.equal(
        other[h],
        first![h],
        `${nodes[i + 1]!.name} and ${nodes[0]!.name} differ at height ${h + 1} of ${chain}`,
      )
    }
  }
}

/** The lowest tip height of `chain` among the nodes. */
export async function minHeight(nodes: FiveNode[], chain = 'C'): Promise<number> {
  return Math.min(...(await Promise.all(nodes.map((n) => n.height(chain)))))
}
