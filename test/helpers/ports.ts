/**
 * Port ranges for five-node networks on 127.0.0.1 (scripts/network.ts layout: node i has HTTP base + 10i and
 * staking base + 10i + 1). Each user keeps its own range so that test files running at once rarely race.
 */
import { createServer } from 'node:net'

/** `port` can be bound on 127.0.0.1 right now. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => server.close(() => resolve(true)))
  })
}

/** A base port in [from, to), a multiple of 10 from `from`, whose ten ports are free; 50 tries. */
export async function freeBasePort(from: number, to: number): Promise<number> {
  const slots = Math.floor((to - from - 50) / 10)
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = from + 10 * Math.floor(Math.random() * slots)
    const ports = [0, 1, 2, 3, 4].flatMap((i) => [base + 10 * i, base + 10 * i + 1])
    if ((await Promise.all(ports.map(portFree))).every(Boolean)) return base
  }
  throw new Error(`no free base port in [${from}, ${to}) after 50 tries`)
}
