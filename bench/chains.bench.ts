/**
 * What a second chain costs the first: C-chain transfer throughput on a `firn --dev` node that runs C alone, next
 * to a node that also runs D (a second EVM chain declared in `--genesis-file`, test/helpers/chains-genesis.ts):
 * - one: BENCH_TXS pre-signed transfers from 16 senders on C, the node running C only;
 * - twoIdle: the same on C, the node running C and D, D idle;
 * - twoBusy: BENCH_TXS on C and BENCH_TXS on D at once on that node; the sum over the wall time of both.
 * Each is timed from the first send until every sender's last receipt exists (bench/lib/cchain-rpc.ts), after a
 * warm-up of both processes, in BENCH_CHAINS_ROUNDS rounds (default 5; which node goes first alternates); the
 * figures are the medians. Targets (issue 12): twoIdle at
 * least 90 % of one; twoBusy's sum at least one. Knobs: BENCH_TXS (2000), BENCH_CONCURRENCY (32).
 * Prints one JSON object.
 */
import '../src/runtime/polyfill.js'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EWOQ_PRIVATE_KEY } from '../src/chains/evm/rules/presets.js'
import { D_CHAIN_ID, devChainsGenesis, writeGenesisFile } from '../test/helpers/chains-genesis.js'
import { type FirnProcess, startFirn } from '../test/helpers/firn-process.js'
import { addressOf, benchKey, CHAIN_ID, type SignedTx, signTransfers, signTx } from './lib/cchain-floor.js'
import { cpuMs, lastPerSender, push, RpcClient, round, waitReceipts } from './lib/cchain-rpc.js'

const TXS = Number(process.env.BENCH_TXS ?? 2000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32)
const ROUNDS = Number(process.env.BENCH_CHAINS_ROUNDS ?? 5)
const WARMUP_TXS = 500
const SENDERS = 16
const RECEIPT_TIMEOUT_MS = 120_000
const EWOQ_KEY = Uint8Array.from(Buffer.from(EWOQ_PRIVATE_KEY, 'hex'))
const keys = Array.from({ length: SENDERS }, (_, i) => benchKey(i))

interface Chain {
  node: FirnProcess
  client: RpcClient
  chainId: bigint
  /** each sender's next nonce */
  nonces: bigint[]
}

async function open(node: FirnProcess, alias: string, chainId: bigint): Promise<Chain> {
  const client = new RpcClient(`${node.url}/ext/bc/${alias}/rpc`, CONCURRENCY)
  // fund the senders from EWOQ (outside any clock)
  const ewoq = addressOf(EWOQ_KEY)
  const nonce = BigInt(await client.call<string>('eth_getTransactionCount', [ewoq, 'pending']))
  const fund = keys.map((k, i) =>
    signTx(EWOQ_KEY, 0, nonce + BigInt(i), { to: addressOf(k), value: 10n ** 22n, gasLimit: 21_000n }, chainId),
  )
  for (const tx of fund) await client.call('eth_sendRawTransaction', [tx.raw])
  await waitReceipts(client, fund, { timeoutMs: RECEIPT_TIMEOUT_MS })
  await Promise.all(Array.from({ length: CONCURRENCY }, () => client.call('eth_blockNumber')))
  return { node, client, chainId, nonces: keys.map(() => 0n) }
}

/** the next `count` transfers of a chain's senders, signed before the clock */
function nextTxs(chain: Chain, count = TXS): SignedTx[] {
  const txs = signTransfers(keys, count, chain.nonces, chain.chainId)
  for (const tx of txs) if (tx.nonce >= chain.nonces[tx.sender]!) chain.nonces[tx.sender] = tx.nonce + 1n
  return txs
}

async function send(chain: Chain, txs: SignedTx[]): Promise<void> {
  const pushed = await push(chain.client, txs, CONCURRENCY)
  if (pushed.errors > 0) throw new Error(`${pushed.errors} sends failed, first: ${pushed.firstError}`)
  await waitReceipts(chain.client, lastPerSender(txs), { timeoutMs: RECEIPT_TIMEOUT_MS })
}

/** tx/s of these chains each sending its next batch at once, and the node's CPU per tx (µs) */
async function timed(chains: Chain[], count = TXS): Promise<{ txPerSec: number; cpuUsPerTx: number }> {
  const batches = chains.map((c) => nextTxs(c, count))
  const pid = chains[0]!.node.pid
  const cpu0 = await cpuMs(pid)
  const t0 = performance.now()
  await Promise.all(chains.map((c, i) => send(c, batches[i]!)))
  const seconds = (performance.now() - t0) / 1000
  const txs = batches.reduce((n, b) => n + b.length, 0)
  return { txPerSec: Math.round(txs / seconds), cpuUsPerTx: Math.round((((await cpuMs(pid)) - cpu0) * 1000) / txs) }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const dir = await mkdtemp(join(tmpdir(), 'firn-chains-bench-'))
const nodes: FirnProcess[] = []
try {
  const single = await startFirn({ args: ['--dev'] })
  nodes.push(single)
  const genesisFile = await writeGenesisFile(dir, devChainsGenesis())
  const double = await startFirn({ args: ['--dev', `--genesis-file=${genesisFile}`] })
  nodes.push(double)
  const one = await open(single, 'C', CHAIN_ID)
  const c = await open(double, 'C', CHAIN_ID)
  const d = await open(double, 'D', BigInt(D_CHAIN_ID))

  // warm both processes up (JIT, pools, caches) before any clock
  await timed([one], WARMUP_TXS)
  await timed([c, d], WARMUP_TXS)
  const runs: { one: number; twoIdle: number; twoBusy: number; oneCpu: number; twoIdleCpu: number }[] = []
  for (let r = 0; r < ROUNDS; r++) {
    // alternate which node goes first, so neither always runs after the other's writes
    const first = r % 2 === 0
    const a = first ? await timed([one]) : undefined
    const b = await timed([c])
    const a2 = a ?? (await timed([one]))
    const both = await timed([c, d])
    runs.push({
      one: a2.txPerSec,
      twoIdle: b.txPerSec,
      twoBusy: both.txPerSec,
      oneCpu: a2.cpuUsPerTx,
      twoIdleCpu: b.cpuUsPerTx,
    })
    process.stderr.write(`round ${r + 1}: ${JSON.stringify(runs.at(-1))}\n`)
  }
  const oneTps = median(runs.map((x) => x.one))
  const idleTps = median(runs.map((x) => x.twoIdle))
  const busyTps = median(runs.map((x) => x.twoBusy))
  console.log(
    JSON.stringify({
      bench: 'chains',
      txs: TXS,
      senders: SENDERS,
      concurrency: CONCURRENCY,
      rounds: ROUNDS,
      oneChain: { cTxPerSec: oneTps, cpuUsPerTx: median(runs.map((x) => x.oneCpu)) },
      twoChainsIdle: { cTxPerSec: idleTps, cpuUsPerTx: median(runs.map((x) => x.twoIdleCpu)) },
      twoChainsBusy: { sumTxPerSec: busyTps },
      ratios: {
        idleOverOne: round(idleTps / oneTps),
        idleTarget: 0.9,
        busySumOverOne: round(busyTps / oneTps),
        busyTarget: 1,
      },
      runs,
    }),
  )
} finally {
  for (const n of nodes) await n.cleanup()
  await rm(dir, { recursive: true, force: true })
}
