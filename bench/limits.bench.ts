/**
 * Issue 14, item 4: `eth_blockNumber` latency on a real `firn --dev` while 8 looping eth_calls (`0x5b600056`,
 * re-issued as each ends at the 5 s EVM limit) and a subscription flood (10 client addresses x 1,000 newHeads
 * subscriptions, the per-IP cap) run, next to the floor measured in the same run: the same latency without that
 * load. In both windows one client sends transfers one after another (a block each on --dev), so the blocks
 * built show what the load costs the chain. Prints one JSON object.
 */
import '../src/runtime/polyfill.js'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { JsonRpcProvider, Wallet } from 'ethers'
import { EWOQ_PRIVATE_KEY } from '../src/chains/evm/rules/presets.js'
import { call, openWs, wsRpc } from '../test/helpers/clients.js'
import { startFirn } from '../test/helpers/firn-process.js'

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 10_000)
const LOOPS = Number(process.env.BENCH_LOOPS ?? 8)
const SUB_CLIENTS = Number(process.env.BENCH_SUB_CLIENTS ?? 10)
const SUBS_PER_CLIENT = 1000
const LOOP = `0x${'aa'.repeat(20)}`

const dir = await mkdtemp(join(tmpdir(), 'firn-bench-limits-'))
await mkdir(join(dir, 'configs', 'chains', 'C'), { recursive: true })
// a gas cap no loop reaches: only the EVM time limit (default 5 s) ends them
await writeFile(join(dir, 'configs', 'chains', 'C', 'config.json'), JSON.stringify({ 'rpc-gas-cap': 1e15 }))
const node = await startFirn({
  args: ['--dev', '--db-type=memdb', '--log-level=warn', '--log-display-level=info'],
  dataDir: dir,
})
const rpcUrl = `${node.url}/ext/bc/C/rpc`
const provider = new JsonRpcProvider(rpcUrl, 43112, { staticNetwork: true, batchMaxCount: 1, cacheTimeout: -1 })
provider.pollingInterval = 20
const ewoq = new Wallet(EWOQ_PRIVATE_KEY, provider)

const height = async (): Promise<number> => Number((await call(rpcUrl, 'eth_blockNumber')).json?.result)
const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN
const round = (x: number): number => Math.round(x * 100) / 100

/** eth_blockNumber one after another for the window, with transfers mined meanwhile. */
async function window(): Promise<{ n: number; p50: number; p99: number; max: number; blocks: number }> {
  const start = await height()
  const end = performance.now() + DURATION_MS
  let sending = true
  const sender = (async () => {
    while (sending) await (await ewoq.sendTransaction({ to: LOOP, value: 1n })).wait()
  })()
  const latencies: number[] = []
  while (performance.now() < end) {
    const t0 = performance.now()
    await call(rpcUrl, 'eth_blockNumber')
    latencies.push(performance.now() - t0)
  }
  sending = false
  await sender
  latencies.sort((a, b) => a - b)
  const blocks = (await height()) - start
  return {
    n: latencies.length,
    p50: round(percentile(latencies, 0.5)),
    p99: round(percentile(latencies, 0.99)),
    max: round(latencies.at(-1) ?? Number.NaN),
    blocks,
  }
}

try {
  const floor = await window()

  // the subscription flood: every accepted block is pushed to 10,000 subscriptions
  const sockets = await Promise.all(
    Array.from({ length: SUB_CLIENTS }, (_, i) =>
      openWs(`${node.url.replace('http', 'ws')}/ext/bc/C/ws`, `127.0.1.${i + 1}`),
    ),
  )
  let notifications = 0
  for (const ws of sockets) ws.on('message', () => notifications++)
  await Promise.all(
    sockets.map((ws) => {
      const rpc = wsRpc(ws)
      return Promise.all(Array.from({ length: SUBS_PER_CLIENT }, () => rpc('eth_subscribe', ['newHeads'])))
    }),
  )
  notifications = 0
  // 8 loops, each re-issued when it ends
  let looping = true
  let loopsEnded = 0
  let loopsTimedOut = 0
  const loops = Array.from({ length: LOOPS }, async () => {
    while (looping) {
      const answer = await call(rpcUrl, 'eth_call', [{ to: LOOP }, 'latest', { [LOOP]: { code: '0x5b600056' } }])
      loopsEnded++
      if (answer.json?.error?.message?.startsWith('execution aborted') === true) loopsTimedOut++
    }
  })
  const loaded = await window()
  looping = false
  await Promise.all(loops)
  for (const ws of sockets) ws.terminate()

  console.log(
    JSON.stringify({
      bench: 'limits',
      durationMs: DURATION_MS,
      load: {
        loopingCalls: LOOPS,
        subscriptions: SUB_CLIENTS * SUBS_PER_CLIENT,
        loopsEnded,
        loopsTimedOut,
        notifications,
      },
      floor,
      loaded,
      p99OverFloor: round(loaded.p99 / floor.p99),
      blocksVsFloor: round(loaded.blocks / floor.blocks),
    }),
  )
} finally {
  provider.destroy()
  await node.cleanup()
}
