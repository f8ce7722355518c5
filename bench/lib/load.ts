/**
 * A small closed-loop HTTP load generator on raw keep-alive sockets: `connections` clients each send a request,
 * wait for the whole response (Content-Length framing), record the latency, and send the next, for a fixed
 * time. Raw sockets keep the generator cheap enough not to be the bottleneck on a 2-core machine.
 */
import { connect, type Socket } from 'node:net'

export interface LoadOptions {
  host: string
  port: number
  path: string
  body: string
  /** the body of the i-th request, for loads of distinct requests (`body` is then the first's) */
  bodyAt?: (i: number) => string
  connections: number
  durationMs: number
  warmupMs?: number
  /** extra header lines */
  headers?: Record<string, string>
}

export interface LoadResult {
  requests: number
  errors: number
  seconds: number
  rps: number
  p50Ms: number
  p99Ms: number
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const extra = Object.entries(o.headers ?? {})
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')
  const requestOf = (body: string) =>
    Buffer.from(
      `POST ${o.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`,
    )
  const request = requestOf(o.body)
  const bodyAt = o.bodyAt
  let sent = 0
  const latencies: number[] = []
  let errors = 0
  let measuring = false
  let stopping = false
  const sockets: Socket[] = []

  const client = () =>
    new Promise<void>((resolve) => {
      const socket = connect({ host: o.host, port: o.port, noDelay: true })
      sockets.push(socket)
      let buf: Buffer = Buffer.alloc(0)
      let sentAt = 0
      const send = () => {
        if (stopping) {
          socket.end()
          return resolve()
        }
        sentAt = performance.now()
        socket.write(bodyAt === undefined ? request : requestOf(bodyAt(sent++)))
      }
      socket.on('connect', send)
      socket.on('error', (err) => {
        errors++
        if (errors === 1) process.stderr.write(`load: ${err.message}\n`)
        resolve()
      })
      socket.on('close', () => resolve())
      socket.on('data', (chunk: Buffer) => {
        buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk])
        for (;;) {
          const headerEnd = buf.indexOf('\r\n\r\n')
          if (headerEnd === -1) return
          const head = buf.subarray(0, headerEnd).toString('latin1')
          const m = /content-length: *(\d+)/i.exec(head)
          if (m === null) {
            // this generator frames by Content-Length only; anything else would be miscounted, so stop loudly
            socket.destroy(new Error(`response without Content-Length: ${head.split('\r\n')[0]}`))
            return
          }
          const len = Number(m[1])
          if (buf.length < headerEnd + 4 + len) return
          if (!head.startsWith('HTTP/1.1 200')) errors++
          buf = buf.subarray(headerEnd + 4 + len)
          if (measuring) latencies.push(performance.now() - sentAt)
          send()
        }
      })
    })

  const done = Promise.all(Array.from({ length: o.connections }, client))
  await new Promise((r) => setTimeout(r, o.warmupMs ?? 1000))
  measuring = true
  const start = performance.now()
  await new Promise((r) => setTimeout(r, o.durationMs))
  measuring = false
  const seconds = (performance.now() - start) / 1000
  stopping = true
  await Promise.race([done, new Promise((r) => setTimeout(r, 5000))])
  for (const s of sockets) s.destroy()
  latencies.sort((a, b) => a - b)
  const pct = (p: number) => round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0)
  return {
    requests: latencies.length,
    errors,
    seconds: round(seconds),
    rps: Math.round(latencies.length / seconds),
    p50Ms: pct(0.5),
    p99Ms: pct(0.99),
  }
}

const round = (x: number) => Math.round(x * 1000) / 1000
