/**
 * The cost of the node's metrics (issue 14): C-chain transfer throughput of a `firn --dev` node, BENCH_TXS
 * pre-signed EIP-1559 transfers from 16 senders per round (eth_sendRawTransaction over keep-alive HTTP,
 * BENCH_CONCURRENCY in flight, timed until every receipt exists, as bench/cchain.bench.ts times them):
 * - floor: rounds with no scrape, on the same node in the same run;
 * - scraped: rounds with a GET /ext/metrics every second, alternating with the floor's rounds (off, on, off, on ...);
 * - metricsOff: the same rounds on a second node started with `--api-metrics-enabled=false` (nothing counted);
 * - scrape: one scrape's size, its latency and the node's CPU per scrape over BENCH_SCRAPES back-to-back scrapes.
 * Each node first runs one untimed round (warm-up). Prints one JSON object. Knobs: BENCH_TXS (2000), BENCH_ROUNDS
 * (6: half of them scraped), BENCH_CONCURRENCY (32),
 * BENCH_SCRAPES (50).
 */
import '../src/runtime/polyfill.js'
import { EWOQ_PRIVATE_KEY } from '../src/chains/evm/rules/presets.js'
import { type FirnProcess, startFirn } from '../test/helpers/firn-process.js'
import { addressOf, benchKey, type SignedTx, signTransfers, signTx } from './lib/cchain-floor.js'
import { cpuMs, lastPerSender, latencyStats, push, RpcClient, round, waitReceipts } from './lib/cchain-rpc.js'

const TXS = Number(process.env.BENCH_TXS ?? 2000)
const ROUNDS = Math.max(2, Number(process.env.BENCH_ROUNDS ?? 6))
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32)
const SCRAPES = Number(process.env.BENCH_SCRAPES ?? 50)
const SENDERS = 16
const PER_SENDER = Math.ceil(TXS / SENDERS)
const RPC_PATH = '/ext/bc/C/rpc'
const started = performance.now()

const ewoqKey = Uint8Array.from(Buffer.from(EWOQ_PRIVATE_KEY, 'hex'))
const keys = Array.from({ length: SENDERS }, (_, i) => benchKey(i))
const pokeKey = benchKey(SENDERS + 1)
// every round's txs signed before anything is timed; round r uses nonces r * PER_SENDER ..; round 0 warms up
const rounds = Array.from({ length: ROUNDS + 1 }, (_, r) =>
  signTransfers(
    keys,
    PER_SENDER * SENDERS,
    keys.map(() => BigInt(r * PER_SENDER)),
  ),
)

/** A 0-value self-transfer: wakes Firn's lone-validator producer when it stalls (see bench/lib/cchain-rpc.ts). */
function poker(client: RpcClient, key: Uint8Array) {
  const from = addressOf(key)
  return async () => {
    const nonce = BigInt(await client.call<string>('eth_getTransactionCount', [from, 'pending']))
    await client.call('eth_sendRawTransaction', [signTx(key, 0, nonce, { to: from, gasLimit: 21_000n }).raw])
  }
}

/** Funds the senders and the poke key from EWOQ, outside any clock. */
async function fund(node: FirnProcess, client: RpcClient): Promise<void> {
  const funds = [...keys, pokeKey].map((k, i) =>
    signTx(ewoqKey, 0, BigInt(i), { to: addressOf(k), value: 10n ** 22n, gasLimit: 21_000n }),
  )
  for (const tx of funds) await client.call('eth_sendRawTransaction', [tx.raw])
  await waitReceipts(client, funds, { timeoutMs: 60_000, poke: poker(client, ewoqKey), cpuMs: () => cpuMs(node.pid) })
}

interface Round {
  txPerSec: number
  /** the node's CPU (user + system) per tx during the round, µs: less sensitive than tx/s to a busy machine */
  cpuUsPerTx: number
}

/** One timed round: push, wait for every sender's last receipt. */
async function timed(node: FirnProcess, client: RpcClient, txs: SignedTx[]): Promise<Round> {
  const cpu0 = await cpuMs(node.pid)
  const t0 = performance.now()
  const pushed = await push(client, txs, CONCURRENCY)
  if (pushed.errors > 0) throw new Error(`${pushed.errors} sends failed, first: ${pushed.firstError}`)
  await waitReceipts(client, lastPerSender(txs), {
    timeoutMs: 60_000,
    poke: poker(client, pokeKey),
    cpuMs: () => cpuMs(node.pid),
  })
  const seconds = (performance.now() - t0) / 1000
  const cpu = (await cpuMs(node.pid)) - cpu0
  return { txPerSec: Math.round(txs.length / seconds), cpuUsPerTx: Math.round((cpu * 1000) / txs.length) }
}

/** GET /ext/metrics every second until stopped: the scrapes' latencies and the last size. */
function scrapeEverySecond(url: string) {
  const ms: number[] = []
  let bytes = 0
  const tick = async () => {
    const t0 = performance.now()
    const text = await (await fetch(url)).text()
    ms.push(performance.now() - t0)
    bytes = Buffer.byteLength(text)
  }
  const timer = setInterval(() => void tick(), 1000)
  return {
    stop: () => {
      clearInterval(timer)
      return { scrapes: ms.length, bytes, ...latencyStats(ms) }
    },
  }
}

const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length))
/** the rounds, and the mean tx/s and CPU µs per tx */
const summary = (rounds: Round[]) => ({
  rounds,
  txPerSec: mean(rounds.map((r) => r.txPerSec)),
  cpuUsPerTx: mean(rounds.map((r) => r.cpuUsPerTx)),
})

async function withNode<T>(args: string[], run: (node: FirnProcess, client: RpcClient) => Promise<T>): Promise<T> {
  const node = await startFirn({ args: ['--dev', ...args] })
  const client = new RpcClient(`${node.url}${RPC_PATH}`, CONCURRENCY)
  try {
    await fund(node, client)
    await Promise.all(Array.from({ length: CONCURRENCY }, () => client.call('eth_blockNumber')))
    return await run(node, client)
  } finally {
    client.close()
    await node.cleanup()
  }
}

const on = await withNode([], async (node, client) => {
  const metricsUrl = `${node.url}/ext/metrics`
  const floor: Round[] = []
  const scraped: Round[] = []
  const scrapes: ReturnType<ReturnType<typeof scrapeEverySecond>['stop']>[] = []
  await timed(node, client, rounds[0]!)
  for (let r = 1; r <= ROUNDS; r++) {
    if (r % 2 === 1) {
      floor.push(await timed(node, client, rounds[r]!))
      continue
    }
    const scraper = scrapeEverySecond(metricsUrl)
    scraped.push(await timed(node, client, rounds[r]!))
    scrapes.push(scraper.stop())
  }
  // back-to-back scrapes on the idle node: latency, and the node's CPU per scrape
  const cpu0 = await cpuMs(node.pid)
  const lat: number[] = []
  let bytes = 0
  for (let i = 0; i < SCRAPES; i++) {
    const t0 = performance.now()
    bytes = Buffer.byteLength(await (await fetch(metricsUrl)).text())
    lat.push(performance.now() - t0)
  }
  const cpuPerScrape = round(((await cpuMs(node.pid)) - cpu0) / SCRAPES)
  return { floor, scraped, scrapes, scrape: { bytes, firnCpuMsPerScrape: cpuPerScrape, ...latencyStats(lat) } }
})

const off = await withNode(['--api-metrics-enabled=false'], async (node, client) => {
  const txPerSec: Round[] = []
  // a fresh node: its senders' nonces start at 0 again, so it runs the first rounds' txs
  await timed(node, client, rounds[0]!)
  for (let r = 1; r <= ROUNDS / 2; r++) txPerSec.push(await timed(node, client, rounds[r]!))
  return txPerSec
})

const floor = summary(on.floor)
const scraped = summary(on.scraped)
const metricsOff = summary(off)
process.stdout.write(
  `${JSON.stringify({
    bench: 'metrics.cost',
    txsPerRound: PER_SENDER * SENDERS,
    senders: SENDERS,
    concurrency: CONCURRENCY,
    floor: { what: 'same node, same run, rounds without a scrape (alternating with the scraped ones)', ...floor },
    scrapedEverySecond: {
      ...scraped,
      txPerSecRatioToFloor: round(scraped.txPerSec / floor.txPerSec),
      cpuPerTxRatioToFloor: round(scraped.cpuUsPerTx / floor.cpuUsPerTx),
      scrapes: on.scrapes,
    },
    metricsOff: {
      what: 'a second node with --api-metrics-enabled=false, as many rounds as the floor',
      ...metricsOff,
      floorTxPerSecRatioToOff: round(floor.txPerSec / metricsOff.txPerSec),
      floorCpuPerTxRatioToOff: round(floor.cpuUsPerTx / metricsOff.cpuUsPerTx),
    },
    idleScrape: { scrapes: SCRAPES, ...on.scrape },
    wallSeconds: round((performance.now() - started) / 1000),
  })}\n`,
)
