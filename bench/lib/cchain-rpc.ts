/**
 * The client side of the C-chain end-to-end bench: a keep-alive JSON-RPC client on node:http, pushing pre-signed
 * txs with bounded concurrency in the order given, waiting for and verifying receipts, a sequential
 * eth_blockNumber latency probe, and a process's CPU time from /proc.
 */

import { readFile } from 'node:fs/promises'
import { Agent, request } from 'node:http'
import type { SignedTx } from './cchain-floor.js'

export class RpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message} (${code})`)
  }
}

export class RpcClient {
  readonly #agent: Agent
  readonly #host: string
  readonly #port: number
  readonly #path: string
  #id = 0

  constructor(url: string, maxSockets: number) {
    const u = new URL(url)
    this.#host = u.hostname
    this.#port = Number(u.port)
    this.#path = u.pathname
    this.#agent = new Agent({ keepAlive: true, maxSockets })
  }

  call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++this.#id, method, params })
    return new Promise<T>((resolve, reject) => {
      const req = request(
        {
          host: this.#host,
          port: this.#port,
          path: this.#path,
          method: 'POST',
          agent: this.#agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('error', reject)
          res.on('end', () => {
            try {
              const reply = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
                result?: T
                error?: { code: number; message: string }
              }
              if (reply.error) reject(new RpcError(method, reply.error.code, reply.error.message))
              else resolve(reply.result as T)
            } catch (err) {
              reject(new Error(`${method}: HTTP ${res.statusCode}: ${(err as Error).message}`))
            }
          })
        },
      )
      req.on('error', reject)
      req.end(body)
    })
  }

  close(): void {
    this.#agent.destroy()
  }
}

export interface Receipt {
  status: string
  blockNumber: string
  contractAddress: string | null
  gasUsed: string
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Run `work` over `items` with at most `concurrency` in flight, taking items in order. */
export async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length) await work(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker))
}

export interface PushResult {
  errors: number
  firstError?: string
}

/**
 * eth_sendRawTransaction each tx, taken in order, at most `concurrency` in flight, and no tx sent while its
 * sender's lowest unanswered nonce is `window` or more below it (the pool keeps at most 64 future nonces per
 * sender and drops the rest without telling the client).
 */
export async function push(client: RpcClient, txs: SignedTx[], concurrency: number, window = 48): Promise<PushResult> {
  const out: PushResult = { errors: 0 }
  const low = new Map<number, bigint>()
  for (const tx of txs) if (!low.has(tx.sender) || tx.nonce < low.get(tx.sender)!) low.set(tx.sender, tx.nonce)
  const answered = new Set<string>()
  let wake: (() => void)[] = []
  await pool(txs, concurrency, async (tx) => {
    while (tx.nonce - low.get(tx.sender)! >= BigInt(window)) await new Promise<void>((r) => wake.push(r))
    try {
      const hash = await client.call<string>('eth_sendRawTransaction', [tx.raw])
      if (hash !== tx.hash) throw new Error(`eth_sendRawTransaction returned ${hash}, expected ${tx.hash}`)
    } catch (err) {
      out.errors++
      out.firstError ??= (err as Error).message
    }
    answered.add(`${tx.sender}:${tx.nonce}`)
    let n = low.get(tx.sender)!
    while (answered.has(`${tx.sender}:${n}`)) n++
    low.set(tx.sender, n)
    const woken = wake
    wake = []
    for (const w of woken) w()
  })
  return out
}

/** Each sender's highest-nonce tx: once its receipt exists, so do the sender's others. */
export function lastPerSender(txs: SignedTx[]): SignedTx[] {
  const last = new Map<number, SignedTx>()
  for (const tx of txs) {
    const prev = last.get(tx.sender)
    if (prev === undefined || tx.nonce > prev.nonce) last.set(tx.sender, tx)
  }
  return [...last.values()]
}

export interface WaitOptions {
  timeoutMs: number
  /** how often eth_blockNumber is polled, ms (receipts are looked up when it moves) */
  pollMs?: number
  /** no new block for this long while receipts are missing and the node idle: call `poke` */
  stallMs?: number
  /** the node's CPU time so far, ms (a long build is busy, a stalled producer is idle) */
  cpuMs?: () => Promise<number>
  /** send something that wakes the block producer */
  poke?: () => Promise<void>
}

export interface WaitResult {
  /** times the producer was found stalled and poked */
  stalls: number
  /** idle time spent until the stalls were noticed, ms */
  stallWaitMs: number
}

/**
 * Wait until the receipts of `txs` all exist: poll eth_blockNumber; when it moves, read the senders' nonces
 * (cheap), and once every sender's nonce is past its tx, confirm with eth_getTransactionReceipt (Firn's receipt
 * lookup costs in proportion to the block's size, so polling receipts would load the node being measured).
 * When no block comes for `stallMs` while some are missing and the node used under a quarter of a core meanwhile,
 * `poke` the producer (Firn's producer does not build again for txs that arrived during its previous build
 * until another tx arrives).
 */
export async function waitReceipts(client: RpcClient, txs: SignedTx[], o: WaitOptions): Promise<WaitResult> {
  const pollMs = o.pollMs ?? 5
  const stallMs = o.stallMs ?? 300
  const out: WaitResult = { stalls: 0, stallWaitMs: 0 }
  const wanted = new Map<string, bigint>()
  for (const tx of txs) if ((wanted.get(tx.from) ?? -1n) <= tx.nonce) wanted.set(tx.from, tx.nonce + 1n)
  let left = [...wanted.keys()]
  const deadline = performance.now() + o.timeoutMs
  let seen = -1
  let movedAt = performance.now()
  let cpuAt = (await o.cpuMs?.()) ?? 0
  for (;;) {
    const height = Number(await client.call<string>('eth_blockNumber'))
    const now = performance.now()
    if (height !== seen) {
      seen = height
      movedAt = now
      cpuAt = (await o.cpuMs?.()) ?? 0
      const nonces = await Promise.all(left.map((a) => client.call<string>('eth_getTransactionCount', [a, 'latest'])))
      left = left.filter((a, i) => BigInt(nonces[i]!) < wanted.get(a)!)
      if (left.length === 0) {
        const receipts = await Promise.all(
          txs.map((tx) => client.call<Receipt | null>('eth_getTransactionReceipt', [tx.hash])),
        )
        const missing = receipts.filter((r) => r === null).length
        if (missing === 0) return out
        throw new Error(`${missing} of ${txs.length} receipts missing after the senders' nonces moved past them`)
      }
    } else if (o.poke !== undefined && o.cpuMs !== undefined && now - movedAt >= stallMs) {
      const cpu = await o.cpuMs()
      if (cpu - cpuAt < (now - movedAt) / 4) {
        out.stalls++
        out.stallWaitMs += now - movedAt
        await o.poke()
      }
      movedAt = now
      cpuAt = cpu
    }
    if (now > deadline) throw new Error(`${left.length} senders still short of their last tx after ${o.timeoutMs} ms`)
    await sleep(pollMs)
  }
}

export interface Verified {
  receipts: number
  missing: number
  failed: number
  /** distinct blocks the txs landed in */
  blocks: number
}

/**
 * Every receipt of blocks `from`..`to` (eth_getBlockReceipts, one call a block): count the `hashes` without a
 * receipt and those with a status other than 0x1.
 */
export async function verifyReceipts(client: RpcClient, hashes: string[], from: number, to: number): Promise<Verified> {
  const status = new Map<string, { status: string; block: string }>()
  for (let n = from; n <= to; n++) {
    const receipts = await client.call<(Receipt & { transactionHash: string })[] | null>('eth_getBlockReceipts', [
      `0x${n.toString(16)}`,
    ])
    for (const r of receipts ?? []) status.set(r.transactionHash, { status: r.status, block: r.blockNumber })
  }
  const out: Verified = { receipts: 0, missing: 0, failed: 0, blocks: 0 }
  const blocks = new Set<string>()
  for (const h of hashes) {
    const r = status.get(h)
    if (r === undefined) out.missing++
    else {
      out.receipts++
      if (r.status !== '0x1') out.failed++
      blocks.add(r.block)
    }
  }
  out.blocks = blocks.size
  return out
}

/** Mean latency of eth_getTransactionReceipt, one call at a time over `hashes`, ms. */
export async function receiptLatency(client: RpcClient, hashes: string[]): Promise<number> {
  const t0 = performance.now()
  for (const h of hashes) await client.call('eth_getTransactionReceipt', [h])
  return round((performance.now() - t0) / hashes.length)
}

export interface LatencyStats {
  samples: number
  errors: number
  p50Ms: number
  p99Ms: number
  maxMs: number
}

/** Summary of latency samples (ms). */
export function latencyStats(samples: number[], errors = 0): LatencyStats {
  const s = [...samples].sort((a, b) => a - b)
  const pct = (p: number) => round(s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0)
  return { samples: s.length, errors, p50Ms: pct(0.5), p99Ms: pct(0.99), maxMs: round(s[s.length - 1] ?? 0) }
}

/**
 * A probe on its own connection: eth_blockNumber one at a time, a new one every `everyMs` (or at once when a
 * reply took longer). `stop()` ends it and returns the latencies.
 */
export function startProbe(url: string, everyMs: number): { stop(): Promise<LatencyStats> } {
  const client = new RpcClient(url, 1)
  const samples: number[] = []
  let errors = 0
  let stopping = false
  const loop = (async () => {
    while (!stopping) {
      const t0 = performance.now()
      try {
        await client.call('eth_blockNumber')
        samples.push(performance.now() - t0)
      } catch {
        errors++
      }
      const wait = everyMs - (performance.now() - t0)
      if (wait > 0) await sleep(wait)
    }
  })()
  return {
    async stop() {
      stopping = true
      await loop
      client.close()
      return latencyStats(samples, errors)
    },
  }
}

/** user + system CPU time of process `pid` so far, ms (Linux /proc; 0 where unavailable). */
export async function cpuMs(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // fields[11] and [12] are utime and stime (fields 14 and 15 of proc(5)), in clock ticks (100 Hz on Linux)
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return 0
  }
}

export const round = (x: number) => Math.round(x * 1000) / 1000
