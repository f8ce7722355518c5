/**
 * Atomic txs against one real `firn --dev` process, each next to a floor measured in the same run:
 * - issue: 16 EVM accounts funded on C (EVM transfers from EWOQ) each issue BENCH_ATOMIC_PER_ACCOUNT exports C -> X
 *   through `avax.issueTx`, their nonces in order (the atomic mempool admits an export only at the account's
 *   nonce on the preferred state, so an account issues its next export once the last one is Accepted, polled with
 *   `avax.getAtomicTxStatus`); timed from the first issue until every tx is Accepted. Floor: the same signed txs
 *   decoded, verified and applied in process (verifyAtomicTx + transferAtomic, bench/lib/atomic-floor.ts).
 * - getUTXOs: an address holding BENCH_ATOMIC_UTXOS UTXOs X -> C seeded by the genesis file's `atomicUtxos`; every
 *   page of 1,024 walked with startIndex, BENCH_ATOMIC_WALKS times (after one warm-up walk); p50/p99 of the full
 *   pages. Floor: the same pages read with SharedMemory.indexed from the stopped node's own LevelDB.
 * Target (issue): getUTXOs p99 < 50 ms for a page of 1,024 (reported, not asserted). Prints one JSON object.
 * Knobs: BENCH_ATOMIC_PER_ACCOUNT (25), BENCH_ATOMIC_UTXOS (10000), BENCH_ATOMIC_WALKS (10).
 */
import '../src/runtime/polyfill.js'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sha256 } from '@noble/hashes/sha2.js'
import { formatAddress } from '../src/chains/evm/atomic/bech32.js'
import { EWOQ_PRIVATE_KEY } from '../src/chains/evm/rules/presets.js'
import { SharedMemory } from '../src/chains/shared-memory/shared-memory.js'
import { getAtomicUtxos } from '../src/chains/shared-memory/utxo-page.js'
import { chainIds } from '../src/config/chain-ids.js'
import { openDatabase } from '../src/db/open.js'
import { shortIdToString } from '../src/identity/ids.js'
import { type FirnProcess, startFirn } from '../test/helpers/firn-process.js'
import { type ExportSpec, floorRun, shortOf, signExports } from './lib/atomic-floor.js'
import { addressOf, benchKey, signTx } from './lib/cchain-floor.js'
import { cpuMs, type LatencyStats, latencyStats, RpcClient, round, waitReceipts } from './lib/cchain-rpc.js'

const started = performance.now()
const PER_ACCOUNT = Number(process.env.BENCH_ATOMIC_PER_ACCOUNT ?? 25)
const UTXOS = Number(process.env.BENCH_ATOMIC_UTXOS ?? 10_000)
const WALKS = Number(process.env.BENCH_ATOMIC_WALKS ?? 10)
const ACCOUNTS = 16
const FLOOR_RUNS = 3
/** the pause between two avax.getAtomicTxStatus of one account */
const POLL_MS = 2
const PAGE = 1024
const ACCEPT_TIMEOUT_MS = 60_000
const NETWORK_ID = 12345
const ids = chainIds(NETWORK_ID)
const EWOQ_KEY = Uint8Array.from(Buffer.from(EWOQ_PRIVATE_KEY, 'hex'))
/** each account's funding: 10,000 AVAX in wei */
const FUNDING_WEI = 10n ** 22n
const keys = Array.from({ length: ACCOUNTS }, (_, i) => benchKey(i))
const utxoOwner = sha256(new TextEncoder().encode('firn bench: getUTXOs owner'))
/** 0.001 AVAX out, 0.01 AVAX burnt: the dynamic fee at a base fee up to ~800 gwei */
const spec: ExportSpec = {
  networkId: NETWORK_ID,
  cChain: ids.C,
  xChain: ids.X,
  avaxAssetId: ids.avaxAssetId,
  amount: 1_000_000n,
  fee: 10_000_000n,
}

/** JSON-RPC by-name params through the bench's client (typed for positional ones) */
const named = (o: Record<string, unknown>) => o as unknown as unknown[]
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const hexWithChecksum = (b: Uint8Array) =>
  `0x${Buffer.concat([b, createHash('sha256').update(b).digest().subarray(28)]).toString('hex')}`

async function fund(client: RpcClient): Promise<void> {
  const nonce = BigInt(await client.call<string>('eth_getTransactionCount', [addressOf(EWOQ_KEY), 'pending']))
  const txs = keys.map((k, i) =>
    signTx(EWOQ_KEY, 0, nonce + BigInt(i), { to: addressOf(k), value: FUNDING_WEI, gasLimit: 21_000n }),
  )
  for (const tx of txs) await client.call('eth_sendRawTransaction', [tx.raw])
  await waitReceipts(client, txs, { timeoutMs: ACCEPT_TIMEOUT_MS })
}

/** One account's exports, one at a time: issue, then poll until Accepted. Counts refused issues and status polls. */
async function issueAll(
  client: RpcClient,
  txs: Uint8Array[],
  deadline: number,
): Promise<{ retries: number; polls: number }> {
  let retries = 0
  let polls = 0
  for (const bytes of txs) {
    let txID: string
    for (;;) {
      try {
        txID = (
          await client.call<{ txID: string }>('avax.issueTx', named({ tx: hexWithChecksum(bytes), encoding: 'hex' }))
        ).txID
        break
      } catch (err) {
        if (performance.now() > deadline) throw err
        retries++
        await sleep(2)
      }
    }
    for (;;) {
      const s = await client.call<{ status: string }>('avax.getAtomicTxStatus', named({ txID }))
      polls++
      if (s.status === 'Accepted') break
      if (s.status !== 'Processing' || performance.now() > deadline) throw new Error(`export ${txID}: ${s.status}`)
      await sleep(POLL_MS)
    }
  }
  return { retries, polls }
}

/** Every page of the owner's UTXOs through `page(start)`, timed; the full pages' latencies and the unique count. */
async function walk(
  page: (start?: {
    address: string
    utxo: string
  }) => Promise<{ ids: string[]; end: { address: string; utxo: string } }>,
): Promise<{ fullPageMs: number[]; pages: number; unique: number }> {
  const seen = new Set<string>()
  const fullPageMs: number[] = []
  let start: { address: string; utxo: string } | undefined
  let pages = 0
  for (;;) {
    const t0 = performance.now()
    const p = await page(start)
    const ms = performance.now() - t0
    pages++
    const before = seen.size
    for (const id of p.ids) seen.add(id)
    if (p.ids.length === PAGE) fullPageMs.push(ms)
    if (p.ids.length < PAGE || seen.size === before) return { fullPageMs, pages, unique: seen.size }
    start = p.end
  }
}

async function walks(pageFn: Parameters<typeof walk>[0]): Promise<{ stats: LatencyStats; pagesPerWalk: number }> {
  const warm = await walk(pageFn)
  if (warm.unique !== UTXOS) throw new Error(`walk found ${warm.unique} UTXOs, expected ${UTXOS}`)
  const samples: number[] = []
  for (let i = 0; i < WALKS; i++) samples.push(...(await walk(pageFn)).fullPageMs)
  return { stats: latencyStats(samples), pagesPerWalk: warm.pages }
}

const dir = await mkdtemp(join(tmpdir(), 'firn-atomic-bench-'))
let node: FirnProcess | undefined
try {
  const genesisFile = join(dir, 'genesis.json')
  const owner = shortIdToString(shortOf(utxoOwner))
  const atomicUtxos = [{ sourceChain: 'X', destinationChain: 'C', address: owner, amount: '1000000', count: UTXOS }]
  await writeFile(genesisFile, JSON.stringify({ atomicUtxos }))
  const t0Start = performance.now()
  node = await startFirn({ args: ['--dev', `--genesis-file=${genesisFile}`], timeoutMs: 60_000 })
  const startSeconds = round((performance.now() - t0Start) / 1000)
  const rpc = new RpcClient(`${node.url}/ext/bc/C/rpc`, 4)
  const avax = new RpcClient(`${node.url}/ext/bc/C/avax`, ACCOUNTS + 1)
  const baseFeeWei = BigInt(await rpc.call<string>('eth_baseFee'))

  // signed before any clock; the floor on the same bytes (a warm-up run, then the timed one)
  const signed = signExports(keys, PER_ACCOUNT, spec)
  const total = ACCOUNTS * PER_ACCOUNT
  await floorRun(keys, signed, spec, baseFeeWei, FUNDING_WEI)
  const floorRuns: number[] = []
  for (let i = 0; i < FLOOR_RUNS; i++)
    floorRuns.push(total / (await floorRun(keys, signed, spec, baseFeeWei, FUNDING_WEI)))
  const floorTps = median(floorRuns)

  await fund(rpc)
  const heightBefore = Number(BigInt(await rpc.call<string>('eth_blockNumber')))
  const cpu0 = await cpuMs(node.pid)
  const t0 = performance.now()
  const deadline = t0 + ACCEPT_TIMEOUT_MS
  const loops = await Promise.all(signed.map((txs) => issueAll(avax, txs, deadline)))
  const issueSeconds = (performance.now() - t0) / 1000
  const nodeTps = total / issueSeconds
  const nodeCpuMsPerTx = ((await cpuMs(node.pid)) - cpu0) / total
  const blocks = Number(BigInt(await rpc.call<string>('eth_blockNumber'))) - heightBefore

  // getUTXOs over HTTP, as a wallet pages them
  const cAddress = formatAddress('C', 'local', shortOf(utxoOwner))
  const api = await walks(async (start) => {
    const r = await avax.call<{ utxos: string[]; endIndex: { address: string; utxo: string } }>(
      'avax.getUTXOs',
      named({
        addresses: [cAddress],
        sourceChain: 'X',
        limit: PAGE,
        encoding: 'hex',
        ...(start ? { startIndex: start } : {}),
      }),
    )
    return { ids: r.utxos, end: r.endIndex }
  })
  rpc.close()
  avax.close()
  await node.stop()

  // the floor: the same pages from the stopped node's LevelDB, through SharedMemory.indexed (utxo-page.ts)
  const dbPath = join(node.dataDir, 'db', 'dev')
  if (!existsSync(dbPath)) throw new Error(`no LevelDB at ${dbPath}`)
  const db = await openDatabase({ type: 'leveldb', path: dbPath })
  let floorPages: Awaited<ReturnType<typeof walks>>
  try {
    const memory = new SharedMemory(db)
    const ownerBytes = shortOf(utxoOwner)
    floorPages = await walks(async (start) => {
      const p = await getAtomicUtxos(
        memory,
        ids.C,
        ids.X,
        [ownerBytes],
        start ? Buffer.from(start.address, 'hex') : undefined,
        start ? Buffer.from(start.utxo, 'hex') : undefined,
        PAGE,
      )
      const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
      return { ids: p.utxoIds.map(hex), end: { address: hex(p.endAddress), utxo: hex(p.endUtxoId) } }
    })
  } finally {
    await db.close()
  }

  console.log(
    JSON.stringify({
      bench: 'atomic',
      nodeStartSeconds: startSeconds,
      issue: {
        accounts: ACCOUNTS,
        txs: total,
        kind: 'export C -> X, 1 input, 1 output',
        seconds: round(issueSeconds),
        acceptedTxPerSec: Math.round(nodeTps),
        blocks,
        txPerBlock: round(total / blocks),
        issueRetries: loops.reduce((n, l) => n + l.retries, 0),
        statusPolls: loops.reduce((n, l) => n + l.polls, 0),
        pollEveryMs: POLL_MS,
        nodeCpuMsPerTx: round(nodeCpuMsPerTx),
        floor: {
          what: 'decodeSignedTx + verifyAtomicTx + transferAtomic, in process, one core',
          txPerSec: Math.round(floorTps),
          msPerTx: round(1000 / floorTps),
          runs: FLOOR_RUNS,
          of: 'median',
        },
        ratio: round(nodeTps / floorTps),
        baseFeeWei: baseFeeWei.toString(),
      },
      getUtxos: {
        utxos: UTXOS,
        pageSize: PAGE,
        pagesPerWalk: api.pagesPerWalk,
        walks: WALKS,
        statsOf: 'full pages of 1,024 only',
        api: api.stats,
        floor: { what: 'SharedMemory.indexed (getAtomicUtxos) on the stopped node LevelDB', ...floorPages.stats },
        p99Ratio: round(api.stats.p99Ms / floorPages.stats.p99Ms),
        p99TargetMs: 50,
      },
      wallSeconds: round((performance.now() - started) / 1000),
    }),
  )
} catch (err) {
  // the node's last words help more than the client's stack
  process.stderr.write(`${node?.output().slice(-4000) ?? ''}\n`)
  throw err
} finally {
  await node?.cleanup()
  await rm(dir, { recursive: true, force: true })
}
