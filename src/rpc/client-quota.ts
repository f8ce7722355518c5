/**
 * Counted resources shared by every client (connections, subscriptions, filters) with a cap in all and a cap
 * per client, a client being a remote IP address (`clientKey`: IPv4-mapped IPv6 addresses count as their IPv4
 * address; other IPv6 addresses count one by one). 0 means no cap. `take` says which cap is full, so the
 * error can say it; `release` gives the slot back.
 */

/** The client a remote address belongs to. */
export function clientKey(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined || remoteAddress === '') return 'unknown'
  return remoteAddress.startsWith('::ffff:') && remoteAddress.includes('.') ? remoteAddress.slice(7) : remoteAddress
}

export type QuotaRefusal = 'total' | 'client'

export class ClientQuota {
  readonly #byClient = new Map<string, number>()
  #total = 0

  /** `max` in all, `perClient` per client; 0 = no cap */
  constructor(
    readonly max: number,
    readonly perClient: number,
  ) {}

  get total(): number {
    return this.#total
  }

  count(client: string): number {
    return this.#byClient.get(client) ?? 0
  }

  /** Takes one slot for `client`, or says which cap is full. */
  take(client: string): QuotaRefusal | undefined {
    if (this.max > 0 && this.#total >= this.max) return 'total'
    const held = this.#byClient.get(client) ?? 0
    if (this.perClient > 0 && held >= this.perClient) return 'client'
    this.#byClient.set(client, held + 1)
    this.#total++
    return undefined
  }

  release(client: string): void {
    const held = this.#byClient.get(client)
    if (held === undefined) return
    this.#total--
    if (held <= 1) this.#byClient.delete(client)
    else this.#byClient.set(client, held - 1)
  }
}

/**
 * A token bucket per client: `rate` tokens a second, at most `burst` stored (a new client starts full). `take`
 * returns 0 when the client may go on, else the ms until it may. Buckets that have refilled are forgotten
 * when the table reaches `maxClients` entries; a new client that finds it still full is not tracked.
 */
export class ClientRateLimiter {
  readonly #buckets = new Map<string, { tokens: number; at: number }>()
  readonly #now: () => number

  constructor(
    readonly rate: number,
    readonly burst: number,
    now: () => number = () => performance.now(),
    readonly maxClients = 10_000,
  ) {
    this.#now = now
  }

  take(client: string, n = 1): number {
    if (this.rate <= 0) return 0
    const now = this.#now()
    let bucket = this.#buckets.get(client)
    if (bucket === undefined) {
      if (this.#buckets.size >= this.maxClients) this.#forgetFull(now)
      // still full: this client goes untracked (it starts with a full bucket anyway)
      if (this.#buckets.size >= this.maxClients) return 0
      bucket = { tokens: this.burst, at: now }
      this.#buckets.set(client, bucket)
    } else {
      bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) * this.rate) / 1000)
      bucket.at = now
    }
    if (bucket.tokens >= n) {
      bucket.tokens -= n
      return 0
    }
    return Math.ceil(((n - bucket.tokens) * 1000) / this.rate)
  }

  #forgetFull(now: number): void {
    for (const [client, b] of this.#buckets) {
      if (b.tokens + ((now - b.at) * this.rate) / 1000 >= this.burst) this.#buckets.delete(client)
    }
  }
}
