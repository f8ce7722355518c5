/**
 * Request/response over libp2p between two in-process hosts on 127.0.0.1 (TCP + Noise + Yamux, as the node's
 * host): the test-only echo protocol through Firn's ExchangeService (protocols/service/exchange.ts: one long-lived
 * stream per peer, requests multiplexed by id), next to the floor measured in the same run: the same echo frames
 * on one raw libp2p stream with a bare id -> callback map and nothing else (no deadlines, no refusals, no limits).
 * 100-byte payloads, at 1 and 16 requests in flight. CPU µs per request counts both ends (one process).
 * Prints one JSON object. Knobs: BENCH_EXCHANGE_REQUESTS (20000), BENCH_EXCHANGE_ROUNDS (3, medians reported).
 */
import '../src/runtime/polyfill.js'
import { noise } from '@chainsafe/libp2p-noise'
import { yamux } from '@chainsafe/libp2p-yamux'
import type { Stream } from '@libp2p/interface'
import { tcp } from '@libp2p/tcp'
import { createLibp2p } from 'libp2p'
import { decodeFrames, encodeFrame } from '../protocols/codec/frame.js'
import { EchoMessage } from '../protocols/echo/echo.js'
import { echoAnswer, echoService } from '../protocols/echo/service.js'

const REQUESTS = Number(process.env.BENCH_EXCHANGE_REQUESTS ?? 20_000)
const ROUNDS = Number(process.env.BENCH_EXCHANGE_ROUNDS ?? 3)
const FLOOR_PROTOCOL = '/firn-bench/echo-floor/1'
const chainId = new Uint8Array(32)
const payload = new Uint8Array(100)

const host = () =>
  createLibp2p({
    addresses: { listen: ['/ip4/127.0.0.1/tcp/0'] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    connectionMonitor: { enabled: false },
    services: { echo: echoService({ networkId: 1, handle: (r) => echoAnswer(r), maxInflight: 1024 }) },
  })

interface Run {
  inFlight: number
  requestsPerSecond: number
  cpuMicrosPerRequest: number
  p50Ms: number
  p99Ms: number
}

async function measure(inFlight: number, request: () => Promise<unknown>): Promise<Run> {
  let started = 0
  const lat: number[] = []
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (started < REQUESTS) {
        started++
        const t = performance.now()
        await request()
        lat.push(performance.now() - t)
      }
    }),
  )
  const ms = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  lat.sort((a, b) => a - b)
  const at = (q: number) => Math.round((lat[Math.min(lat.length - 1, Math.floor(lat.length * q))] ?? 0) * 100) / 100
  return {
    inFlight,
    requestsPerSecond: Math.round((REQUESTS / ms) * 1000),
    cpuMicrosPerRequest: Math.round((cpu.user + cpu.system) / REQUESTS),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
  }
}

/** The floor's client: frames out on one stream, answers matched by id. */
function floorClient(stream: Stream): () => Promise<void> {
  const waiting = new Map<number, () => void>()
  void (async () => {
    for await (const m of decodeFrames(stream, EchoMessage)) {
      const id = m.requestId ?? 0
      waiting.get(id)?.()
      waiting.delete(id)
    }
  })().catch(() => {})
  let id = 0
  return () =>
    new Promise<void>((resolve) => {
      id++
      waiting.set(id, resolve)
      stream.send(encodeFrame(EchoMessage, { requestId: id, deadlineMs: 0n, request: { chainId, payload } }))
    })
}

const median = (runs: Run[]): Run => {
  const mid = <K extends keyof Run>(k: K) => [...runs.map((r) => r[k])].sort((a, b) => a - b)[runs.length >> 1]!
  return {
    inFlight: runs[0]!.inFlight,
    requestsPerSecond: mid('requestsPerSecond'),
    cpuMicrosPerRequest: mid('cpuMicrosPerRequest'),
    p50Ms: mid('p50Ms'),
    p99Ms: mid('p99Ms'),
  }
}

const a = await host()
const b = await host()
try {
  await b.handle(FLOOR_PROTOCOL, async (stream) => {
    try {
      for await (const m of decodeFrames(stream, EchoMessage)) {
        const frame = encodeFrame(EchoMessage, { requestId: m.requestId, deadlineMs: 0n, response: m.request })
        if (!stream.send(frame)) await stream.onDrain()
      }
    } catch {
      // the client went away
    }
  })
  await a.dial(b.getMultiaddrs()[0]!)
  const floorStream = await a.dialProtocol(b.peerId, FLOOR_PROTOCOL)
  const floor = floorClient(floorStream)
  const firn = () => a.services.echo.request(b.peerId, { chainId, payload })
  // warm up both paths (JIT, stream windows)
  await measure(16, firn)
  await measure(16, floor)
  const results: Record<string, { firn: Run; floor: Run; ratio: number }> = {}
  for (const inFlight of [1, 16]) {
    const f: Run[] = []
    const fl: Run[] = []
    for (let i = 0; i < ROUNDS; i++) {
      fl.push(await measure(inFlight, floor))
      f.push(await measure(inFlight, firn))
    }
    const firnRun = median(f)
    const floorRun = median(fl)
    results[`inFlight${inFlight}`] = {
      firn: firnRun,
      floor: floorRun,
      ratio: Math.round((firnRun.requestsPerSecond / floorRun.requestsPerSecond) * 100) / 100,
    }
  }
  console.log(
    JSON.stringify({
      bench: 'exchange',
      what: 'echo request/response between two in-process libp2p hosts over 127.0.0.1 TCP + Noise + Yamux',
      requests: REQUESTS,
      rounds: ROUNDS,
      payloadBytes: payload.byteLength,
      ...results,
    }),
  )
  floorStream.abort(new Error('done'))
} finally {
  await a.stop()
  await b.stop()
}
