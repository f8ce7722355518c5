/**
 * Latency of one JSON-RPC call sent again and again on one keep-alive connection while something else loads the
 * node (`make bench-peers`: eth_blockNumber while 16 senders send transfers), and a process's resident memory.
 */
import { readFile } from 'node:fs/promises'
import { Agent, request } from 'node:http'

export interface Latency {
  samples: number
  p50Ms: number
  p99Ms: number
  maxMs: number
}

/** POSTs `body` to `url` every `everyMs` (one at a time) until `until` settles; the answers' latencies. */
export async function probeLatency(
  url: string,
  body: string,
  everyMs: number,
  until: Promise<unknown>,
): Promise<Latency> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const times: number[] = []
  let done = false
  void until.finally(() => {
    done = true
  })
  const once = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const started = performance.now()
      const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume()
        res.on('end', () => {
          times.push(performance.now() - started)
          resolve()
        })
      })
      req.on('error', reject)
      req.end(body)
    })
  try {
    while (!done) {
      await once()
      await new Promise((r) => setTimeout(r, everyMs))
    }
  } finally {
    agent.destroy()
  }
  times.sort((a, b) => a - b)
  const at = (q: number) => Math.round((times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0) * 10) / 10
  return { samples: times.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) }
}

/** A process's resident set in MB (Linux /proc). */
export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
  return Math.round(kb / 102.4) / 10
}
