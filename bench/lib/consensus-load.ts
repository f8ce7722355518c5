/**
 * The client side of the consensus bench's load phases: pre-signed transfers pushed to the five nodes with a
 * bounded number in flight (each sender always to the same node, senders spread round robin), then waiting
 * until the block holding every sender's last tx has been announced by every node (HeadWatcher). A producer
 * that goes quiet while txs are missing is woken with a 0-value tx from a spare key (counted as a stall).
 */
import { addressOf, type SignedTx, signTx } from './cchain-floor.js'
import { pool, type Receipt, type RpcClient, sleep } from './cchain-rpc.js'
import type { HeadWatcher } from './consensus-heads.js'

export interface Pushed {
  errors: number
  firstError?: string
}

/** Send each tx to `clients[route(tx)]`, at most `concurrency` in flight, in the order given. */
export async function pushRouted(
  clients: RpcClient[],
  txs: SignedTx[],
  concurrency: number,
  route: (tx: SignedTx) => number,
): Promise<Pushed> {
  const out: Pushed = { errors: 0 }
  await pool(txs, concurrency, async (tx) => {
    try {
      await clients[route(tx)]!.call('eth_sendRawTransaction', [tx.raw])
    } catch (err) {
      out.errors++
      out.firstError ??= (err as Error).message
    }
  })
  return out
}

/** Some senders' last txs were not accepted in time; `stuck` are those txs. */
export class NotLanded extends Error {
  constructor(
    readonly stuck: SignedTx[],
    timeoutMs: number,
  ) {
    super(`${stuck.length} senders short of their last tx after ${timeoutMs} ms`)
  }
}

/** For each stuck tx: its sender, nonce, and every node's latest/pending nonce for the sender. */
export async function stuckReport(clients: RpcClient[], stuck: SignedTx[]): Promise<unknown[]> {
  return Promise.all(
    stuck.map(async (tx) => ({
      sender: tx.sender,
      nonce: Number(tx.nonce),
      nodes: await Promise.all(
        clients.map(async (c) => {
          const q = (tag: string) => c.call<string>('eth_getTransactionCount', [tx.from, tag]).then(Number, () => -1)
          return `${await q('latest')}/${await q('pending')}`
        }),
      ),
    })),
  )
}

export interface Landed {
  /** highest block holding one of the txs */
  block: number
  /** performance.now() when that block had reached every node */
  everywhereAt: number
  stalls: number
}

export interface LandOptions {
  timeoutMs: number
  /** no head from any node for this long while txs are missing: poke */
  stallMs: number
  pokeKey: Uint8Array
}

/**
 * Wait until every sender's last tx in `txs` is accepted (nonces read on `client`, re-read on every new head),
 * then until the highest block holding them is announced by all `nodes` of `heads`.
 */
export async function waitLanded(
  client: RpcClient,
  heads: HeadWatcher,
  nodes: number[],
  txs: SignedTx[],
  o: LandOptions,
): Promise<Landed> {
  const last = new Map<string, SignedTx>()
  for (const tx of txs) if ((last.get(tx.from)?.nonce ?? -1n) < tx.nonce) last.set(tx.from, tx)
  let left = [...last.values()]
  const deadline = performance.now() + o.timeoutMs
  let stalls = 0
  let quietSince = performance.now()
  while (left.length > 0) {
    const nonces = await Promise.all(
      left.map((tx) => client.call<string>('eth_getTransactionCount', [tx.from, 'latest'])),
    )
    left = left.filter((tx, i) => BigInt(nonces[i]!) <= tx.nonce)
    if (left.length === 0) break
    const before = performance.now()
    await heads.next(50)
    const now = performance.now()
    if (now - before < 50) quietSince = now
    else if (now - quietSince >= o.stallMs) {
      stalls++
      quietSince = now
      await poke(client, o.pokeKey)
    }
    if (now > deadline) throw new NotLanded(left, o.timeoutMs)
  }
  const receipts = await Promise.all(
    [...last.values()].map((tx) => client.call<Receipt | null>('eth_getTransactionReceipt', [tx.hash])),
  )
  if (receipts.some((r) => r === null)) throw new Error('a last tx has no receipt although its nonce is used')
  const block = Math.max(...receipts.map((r) => Number(r!.blockNumber)))
  for (;;) {
    const at = heads.everywhereAt(block, nodes)
    if (at !== undefined) return { block, everywhereAt: at, stalls }
    if (performance.now() > deadline) throw new Error(`block ${block} not announced by every node in time`)
    await heads.next(100)
  }
}

/** A 0-value self-transfer from `key`; failures (e.g. the key not funded yet) are ignored. */
async function poke(client: RpcClient, key: Uint8Array): Promise<void> {
  try {
    const from = addressOf(key)
    const nonce = BigInt(await client.call<string>('eth_getTransactionCount', [from, 'pending']))
    await client.call('eth_sendRawTransaction', [signTx(key, 0, nonce, { to: from, gasLimit: 21_000n }).raw])
  } catch {
    // a poke is only a nudge
  }
}

/** Receipts of blocks from..to on `client`: how many of `hashes` are there, and how many failed. */
export async function countReceipts(
  client: RpcClient,
  hashes: string[],
  from: number,
  to: number,
): Promise<{ found: number; failed: number }> {
  const status = new Map<string, string>()
  for (let n = from; n <= to; n++) {
    const rs = await client.call<(Receipt & { transactionHash: string })[] | null>('eth_getBlockReceipts', [
      `0x${n.toString(16)}`,
    ])
    for (const r of rs ?? []) status.set(r.transactionHash, r.status)
  }
  let found = 0
  let failed = 0
  for (const h of hashes) {
    const s = status.get(h)
    if (s !== undefined) {
      found++
      if (s !== '0x1') failed++
    }
  }
  return { found, failed }
}

/** Poll `client` for the receipt of `hash` every `everyMs`; returns its block number. */
export async function receiptBlock(client: RpcClient, hash: string, timeoutMs: number, everyMs = 5): Promise<number> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const r = await client.call<Receipt | null>('eth_getTransactionReceipt', [hash])
    if (r !== null) return Number(r.blockNumber)
    if (performance.now() > deadline) throw new Error(`no receipt for ${hash} within ${timeoutMs} ms`)
    await sleep(everyMs)
  }
}
