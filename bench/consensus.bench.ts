/**
 * Snowman consensus on five real `firn --dev-speed` processes (scripts/network.ts layout, fresh temp dir, free
 * base port in 27000..29990), newHeads subscribed over /ext/bc/C/ws on every node:
 * - finality: BENCH_CONS_SAMPLES EWOQ transfers, one at a time, each sent to the next node in turn; latency from
 *   the send until the block holding it was announced by ALL five nodes (its block number from a 5 ms receipt poll
 *   on the sending node, the arrival times from the subscriptions); p50, p99, max (target p50 < 300 ms);
 * - finalityD: the same on D, a second EVM chain every node runs (declared in a --genesis-file), after C;
 * - load: BENCH_CONS_TXS pre-signed transfers from 16 funded senders, sender s always to node s % 5,
 *   BENCH_CONS_CONCURRENCY in flight; tx/s from the first send until the block with the last one reached every
 *   node; blocks/s and txs per block;
 * - fill: a trickle of transfers (each sender 4 unconfirmed) until the chain is BENCH_CONS_BLOCKS high (blocks/s);
 * - bootstrap: stop node5, read its blocks from its LevelDB, wipe its database, restart it, time until
 *   info.isBootstrapped C; blocks/s = blocks executed (its C.log 'bootstrapping' lines) / that time;
 * - floor: after every node stopped, the same blocks verified + accepted in process on a fresh EvmVm with the
 *   network's preset; ratio = bootstrap blocks/s / floor blocks/s (target >= 0.5).
 * Prints one JSON object. Knobs: BENCH_CONS_SAMPLES (60), BENCH_CONS_TXS (3000), BENCH_CONS_CONCURRENCY (32),
 * BENCH_CONS_BLOCKS (2000), BENCH_CONS_FILL_MS (780000: the fill stops there, short of the height), BENCH_CONS_TIMEOUT_MS (180000 per wait), BENCH_CONS_KEEP (1: keep the temp dir).
 */
import '../src/runtime/polyfill.js'
import { readFile, stat } from 'node:fs/promises'
import { cpus, loadavg } from 'node:os'
import { EWOQ_PRIVATE_KEY } from '../src/chains/evm/rules/presets.js'
import { D_CHAIN_ID, devChainsGenesis, writeGenesisFile } from '../test/helpers/chains-genesis.js'
import { addressOf, benchKey, CHAIN_ID, type SignedTx, signMany, signTx } from './lib/cchain-floor.js'
import { latencyStats, RpcClient, round } from './lib/cchain-rpc.js'
import { floorReplay, readAcceptedBlocks } from './lib/consensus-floor.js'
import { HeadWatcher } from './lib/consensus-heads.js'
import { countReceipts, NotLanded, pushRouted, receiptBlock, stuckReport, waitLanded } from './lib/consensus-load.js'
import { BenchNetwork, infoCall } from './lib/consensus-net.js'

const SAMPLES = Number(process.env.BENCH_CONS_SAMPLES ?? 60)
const TXS = Number(process.env.BENCH_CONS_TXS ?? 3000)
const CONCURRENCY = Number(process.env.BENCH_CONS_CONCURRENCY ?? 32)
const TARGET_BLOCKS = Number(process.env.BENCH_CONS_BLOCKS ?? 2000)
const FILL_MS = Number(process.env.BENCH_CONS_FILL_MS ?? 780_000)
const TIMEOUT_MS = Number(process.env.BENCH_CONS_TIMEOUT_MS ?? 180_000)
const KEEP = process.env.BENCH_CONS_KEEP === '1'
const SENDERS = 16
const STALL_MS = 2_000
/** unconfirmed transfers per sender while filling */
const FILL_WINDOW = 4
const SINK = '0x000000000000000000000000000000000000beef'
const ALL = [0, 1, 2, 3, 4]
const BOOT = 4

const started = performance.now()
const loadAtStart = loadavg().map((x) => round(x))
const phases: Record<string, number> = {}
let phaseAt = started
function phase(name: string): void {
  const now = performance.now()
  phases[name] = round((now - phaseAt) / 1000)
  phaseAt = now
}

const ewoqKey = Uint8Array.from(Buffer.from(EWOQ_PRIVATE_KEY, 'hex'))
const keys = Array.from({ length: SENDERS }, (_, i) => benchKey(i))
const pokeKey = benchKey(SENDERS)
const nonces = keys.map(() => 0n)
const bySender = (tx: SignedTx) => tx.sender % 5

/** the next `count` transfers of the 16 senders, round robin, advancing the local nonces */
function nextTransfers(count: number): SignedTx[] {
  const txs = signMany(keys, count, nonces, (s) => ({
    to: addressOf(keys[(s + 1) % SENDERS]!),
    value: 1n,
    gasLimit: 21_000n,
  }))
  for (const tx of txs) if (tx.nonce + 1n > nonces[tx.sender]!) nonces[tx.sender] = tx.nonce + 1n
  return txs
}

/**
 * SAMPLES EWOQ transfers on one chain, one at a time, each to the next node: ms from the send until the block holding
 * it was announced by all five (`lat`) and by the sending node (`local`).
 */
async function sampleFinality(
  on: RpcClient[],
  h: HeadWatcher,
  chainId: bigint,
  firstNonce: bigint,
): Promise<{ lat: number[]; local: number[] }> {
  const lat: number[] = []
  const local: number[] = []
  for (let i = 0; i < SAMPLES; i++) {
    const node = i % 5
    const tx = signTx(ewoqKey, 0, firstNonce + BigInt(i), { to: SINK, value: 1n, gasLimit: 21_000n }, chainId)
    const t0 = performance.now()
    await on[node]!.call('eth_sendRawTransaction', [tx.raw])
    const b = await receiptBlock(on[node]!, tx.hash, TIMEOUT_MS)
    for (;;) {
      const at = h.everywhereAt(b)
      if (at !== undefined) {
        lat.push(at - t0)
        local.push(h.heads[node]!.get(b)!.at - t0)
        break
      }
      if (performance.now() - t0 > TIMEOUT_MS) throw new Error(`block ${b} not on every node within ${TIMEOUT_MS} ms`)
      await h.next(100)
    }
  }
  return { lat, local }
}

const net = await BenchNetwork.create()
// every node also runs D, a second EVM chain (finality is measured on both)
net.addArgs(`--genesis-file=${await writeGenesisFile(net.dir, devChainsGenesis())}`)
const clients = ALL.map((i) => new RpcClient(net.rpcUrl(i), CONCURRENCY))
let heads: HeadWatcher | undefined
let headsD: HeadWatcher | undefined
let output: Record<string, unknown> = {}
let blocks: Uint8Array[] = []
try {
  await net.startAll(TIMEOUT_MS)
  await Promise.all(ALL.map((i) => net.waitBootstrapped(i, TIMEOUT_MS, 200, 'D')))
  heads = await HeadWatcher.open(ALL.map((i) => net.wsUrl(i)))
  const h = heads
  phase('start')

  // fund the senders and the poke key from EWOQ through node1
  const landOpts = { timeoutMs: TIMEOUT_MS, stallMs: STALL_MS, pokeKey }
  const fillOpts = { ...landOpts, timeoutMs: Math.min(TIMEOUT_MS, 60_000) }
  const ewoq = addressOf(ewoqKey)
  let ewoqNonce = BigInt(await clients[0]!.call<string>('eth_getTransactionCount', [ewoq, 'pending']))
  const funding = [...keys, pokeKey].map((k) =>
    signTx(ewoqKey, 0, ewoqNonce++, { to: addressOf(k), value: 10n ** 22n, gasLimit: 21_000n }),
  )
  await pushRouted(clients, funding, 1, () => 0)
  await waitLanded(clients[0]!, h, ALL, funding, landOpts)
  phase('fund')

  // 1. finality, one tx at a time, on C, then on D
  const finality = await sampleFinality(clients, h, CHAIN_ID, ewoqNonce)
  ewoqNonce += BigInt(SAMPLES)
  const dClients = ALL.map((i) => new RpcClient(net.rpcUrl(i, 'D'), CONCURRENCY))
  clients.push(...dClients)
  headsD = await HeadWatcher.open(ALL.map((i) => net.wsUrl(i, 'D')))
  const dNonce = BigInt(await dClients[0]!.call<string>('eth_getTransactionCount', [ewoq, 'pending']))
  const finalityD = await sampleFinality(dClients, headsD, BigInt(D_CHAIN_ID), dNonce)
  phase('finality')

  // 2. throughput under load
  const loadTxs = nextTransfers(TXS)
  const before = Math.max(...ALL.map((i) => h.height(i)))
  const t0 = performance.now()
  const pushed = await pushRouted(clients, loadTxs, CONCURRENCY, bySender)
  const sentSeconds = (performance.now() - t0) / 1000
  const landed = await waitLanded(clients[0]!, h, ALL, loadTxs, landOpts)
  const seconds = (landed.everywhereAt - t0) / 1000
  const loadBlocks = landed.block - before
  const verified = await countReceipts(
    clients[0]!,
    loadTxs.map((t) => t.hash),
    before + 1,
    landed.block,
  )
  phase('load')

  // 3a. more blocks until the chain is TARGET_BLOCKS high
  const fillFrom = Math.min(...ALL.map((i) => h.height(i)))
  const f0 = performance.now()
  let fillTxs = 0
  const low = () => Math.min(...ALL.map((i) => h.height(i)))
  // a trickle, not batches: each sender keeps FILL_WINDOW transfers unconfirmed and sends the next when its oldest
  // has a receipt on the node it went to, so every block is small and blocks pipeline (batches made one big block
  // per finality round, about 2 blocks/s)
  let fillError: string | undefined
  let stuck: unknown[] | undefined
  const fillDone = () => low() >= TARGET_BLOCKS || performance.now() - f0 >= FILL_MS
  const receiptOn = async (node: number, hash: string): Promise<void> => {
    const until = performance.now() + fillOpts.timeoutMs
    while (performance.now() < until) {
      if ((await clients[node]!.call('eth_getTransactionReceipt', [hash])) !== null) return
      await new Promise((r) => setTimeout(r, 20))
    }
    throw new Error(`fill: no receipt for ${hash} on node${node + 1} after ${fillOpts.timeoutMs} ms`)
  }
  try {
    await Promise.all(
      keys.map(async (_, sender) => {
        const window: SignedTx[] = []
        while (!fillDone() && fillError === undefined) {
          const [tx] = signMany([keys[sender]!], 1, [nonces[sender]!], () => ({
            to: addressOf(keys[(sender + 1) % SENDERS]!),
            value: 1n,
            gasLimit: 21_000n,
          }))
          if (tx === undefined) break
          nonces[sender] = tx.nonce + 1n
          const signed = { ...tx, sender }
          await clients[bySender(signed)]!.call('eth_sendRawTransaction', [signed.raw])
          fillTxs++
          window.push(signed)
          if (window.length >= FILL_WINDOW) {
            const oldest = window.shift()!
            await receiptOn(bySender(oldest), oldest.hash)
          }
        }
        for (const tx of window) await receiptOn(bySender(tx), tx.hash)
      }),
    )
  } catch (err) {
    // keep going: bootstrap what the network accepted so far, and say why the fill stopped
    fillError = (err as Error).message
    if (err instanceof NotLanded) stuck = await stuckReport(clients, err.stuck)
  }
  const fillSeconds = (performance.now() - f0) / 1000
  const fillTo = Math.min(...ALL.map((i) => h.height(i)))
  const mismatched = h.mismatches(1, fillTo)
  phase('fill')

  // 3b. bootstrap node5 from scratch
  await net.stop(BOOT)
  blocks = await readAcceptedBlocks(net.dbPath(BOOT))
  const height = blocks.length
  await net.wipe(BOOT)
  const logFrom = await stat(net.cLog(BOOT)).then(
    (s) => s.size,
    () => 0,
  )
  const b0 = performance.now()
  await net.spawn(BOOT)
  await net.waitServing(BOOT, TIMEOUT_MS)
  const serveSeconds = (performance.now() - b0) / 1000
  await net.waitBootstrapped(BOOT, TIMEOUT_MS, 20)
  const bootSeconds = (performance.now() - b0) / 1000
  const bootHeight = Number(await clients[BOOT]!.call<string>('eth_blockNumber'))
  const progress = (await readFile(net.cLog(BOOT), 'utf8'))
    .slice(logFrom)
    .split('\n')
    .filter((l) => l.includes('"msg":"bootstrapping"'))
    .map((l) => JSON.parse(l) as { timestamp: string; executed: number })
  const executed = Math.max(0, ...progress.map((p) => p.executed))
  // the node's own view: executed blocks over the time between its first and last progress line
  const logSpan =
    progress.length < 2 ? 0 : (Date.parse(progress.at(-1)!.timestamp) - Date.parse(progress[0]!.timestamp)) / 1000
  const peers = await infoCall<{ numPeers: string }>(net.nodes[BOOT]!.httpPort, 'info.peers')
  phase('bootstrap')

  output = {
    finality: {
      what: 'ms from eth_sendRawTransaction (to node1..5 in turn) until the block holding the tx was announced over newHeads by all five nodes; one tx at a time',
      ...latencyStats(finality.lat),
      sendingNodeP50Ms: latencyStats(finality.local).p50Ms,
      targetP50Ms: 300,
    },
    finalityD: {
      what: 'the same on D, a second EVM chain every node runs (declared in --genesis-file), measured after C',
      ...latencyStats(finalityD.lat),
      sendingNodeP50Ms: latencyStats(finalityD.local).p50Ms,
    },
    load: {
      what: `${TXS} pre-signed transfers from ${SENDERS} senders (sender s to node s%5), ${CONCURRENCY} in flight; clock from the first send until the block with the last tx reached every node`,
      txs: TXS,
      seconds: round(seconds),
      sendSeconds: round(sentSeconds),
      txPerSec: Math.round(TXS / seconds),
      blocks: loadBlocks,
      blocksPerSec: round(loadBlocks / seconds),
      txPerBlock: Math.round((TXS / Math.max(1, loadBlocks)) * 10) / 10,
      sendErrors: pushed.errors,
      ...(pushed.firstError ? { firstSendError: pushed.firstError } : {}),
      receipts: verified.found,
      failed: verified.failed,
      quietPokes: landed.stalls,
    },
    fill: {
      what: `${SENDERS} senders, ${FILL_WINDOW} unconfirmed transfers each, until every node is at height ${TARGET_BLOCKS}`,
      fromHeight: fillFrom,
      toHeight: fillTo,
      reachedTarget: fillTo >= TARGET_BLOCKS,
      txs: fillTxs,
      seconds: round(fillSeconds),
      blocksPerSec: round((fillTo - fillFrom) / fillSeconds),
      window: FILL_WINDOW,
      hashMismatchHeights: mismatched.length,
      ...(fillError === undefined ? {} : { error: fillError, stuck, stuckFormat: 'per node: latest/pending nonce' }),
    },
    bootstrap: {
      what: 'node5 stopped, its database wiped, restarted: s from spawn until info.isBootstrapped C; blocks/s = blocks executed (C.log) / that time',
      height,
      heightAfter: bootHeight,
      executed,
      serveSeconds: round(serveSeconds),
      seconds: round(bootSeconds),
      blocksPerSec: round(executed / bootSeconds),
      blocksPerSecAfterServing: round(executed / (bootSeconds - serveSeconds)),
      progressLines: progress.length,
      blocksPerSecBetweenProgressLines: logSpan > 0 ? round(executed / logSpan) : null,
      peers: Number(peers?.numPeers ?? -1),
    },
  }
} finally {
  heads?.close()
  headsD?.close()
  for (const c of clients) c.close()
  await net.close(KEEP)
}
phase('stop')

// the floor, with no firn process running
if (blocks.length > 0) {
  const floor = await floorReplay(blocks)
  const boot = output.bootstrap as { blocksPerSec: number }
  output.floor = {
    what: 'the same blocks, vm.verifyBlock(rlp) + vm.acceptBlock(hash) one by one on a fresh EvmVm (evmPreset(12345, { dev: true }), memory-level) in this process, after a 200-block warm-up',
    ...floor,
  }
  output.bootstrapRatio = { ratio: round(boot.blocksPerSec / floor.blocksPerSec), target: 0.5 }
  phase('floor')
}
output = {
  bench: 'consensus',
  network: { nodes: 5, flags: '--network-id=local --dev-speed', basePort: net.basePort },
  machine: { cpus: cpus().length, loadAvgAtStart: loadAtStart },
  ...output,
  wallSeconds: round((performance.now() - started) / 1000),
  phasesSeconds: phases,
}
process.stdout.write(`${JSON.stringify(output)}\n`)
