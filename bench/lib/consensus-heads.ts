/**
 * newHeads over `/ext/bc/C/ws` on every node of the consensus bench: for each node, the local time
 * (performance.now) each accepted block number arrived and its hash, so "accepted everywhere" is the latest of
 * the five arrival times of a block, measured without polling the nodes.
 */
import WebSocket from 'ws'

export interface HeadEvent {
  hash: string
  /** performance.now() when the notification arrived */
  at: number
}

export class HeadWatcher {
  /** per node: block number -> arrival */
  readonly heads: Map<number, HeadEvent>[]
  readonly #sockets: WebSocket[] = []
  #waiters: (() => void)[] = []

  private constructor(n: number) {
    this.heads = Array.from({ length: n }, () => new Map())
  }

  /** Subscribe to newHeads on every URL; resolves once every subscription is confirmed. */
  static async open(urls: string[]): Promise<HeadWatcher> {
    const w = new HeadWatcher(urls.length)
    try {
      await Promise.all(urls.map((u, i) => w.#subscribe(u, i)))
    } catch (err) {
      w.close()
      throw err
    }
    return w
  }

  #subscribe(url: string, i: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url)
      this.#sockets.push(ws)
      let subId: string | undefined
      ws.on('open', () =>
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })),
      )
      ws.on('error', reject)
      ws.on('message', (data: Buffer) => {
        const at = performance.now()
        const msg = JSON.parse(data.toString('utf8')) as {
          id?: number
          result?: string
          error?: { message: string }
          params?: { subscription: string; result: { number: string; hash: string } }
        }
        if (msg.id === 1) {
          if (msg.error) reject(new Error(`eth_subscribe newHeads: ${msg.error.message}`))
          subId = msg.result
          resolve()
          return
        }
        if (msg.params !== undefined && msg.params.subscription === subId) {
          const n = Number(msg.params.result.number)
          if (!this.heads[i]!.has(n)) this.heads[i]!.set(n, { hash: msg.params.result.hash, at })
          const woken = this.#waiters
          this.#waiters = []
          for (const f of woken) f()
        }
      })
    })
  }

  /** The time block `n` reached the last of the nodes, or undefined while some node lacks it. */
  everywhereAt(n: number, nodes: number[] = this.heads.map((_, i) => i)): number | undefined {
    let latest = 0
    for (const i of nodes) {
      const h = this.heads[i]!.get(n)
      if (h === undefined) return undefined
      latest = Math.max(latest, h.at)
    }
    return latest
  }

  /** the highest block number node i has announced (0 if none) */
  height(i: number): number {
    let max = 0
    for (const n of this.heads[i]!.keys()) if (n > max) max = n
    return max
  }

  /** Resolve on the next head from any node, or after `ms`. */
  next(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms)
      this.#waiters.push(() => {
        clearTimeout(t)
        resolve()
      })
    })
  }

  /** Block numbers in `from..to` where two nodes announced different hashes. */
  mismatches(from: number, to: number): number[] {
    const out: number[] = []
    for (let n = from; n <= to; n++) {
      const hashes = new Set(this.heads.map((m) => m.get(n)?.hash).filter((h) => h !== undefined))
      if (hashes.size > 1) out.push(n)
    }
    return out
  }

  close(): void {
    for (const ws of this.#sockets) ws.terminate()
  }
}
