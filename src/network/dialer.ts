/**
 * Dials and redials: the bootstrappers (`--bootstrap-ips` / `--bootstrap-ids`) and the validators learned from
 * gossip are dial targets; a failed dial or a lost session of a validator is retried with a jittered exponential
 * backoff capped near 60 s.
 */
import { multiaddr } from '@multiformats/multiaddr'
import { multiaddrText } from './addresses.js'
import { HANDSHAKE_TIMEOUT_MS, type NetworkCore, REDIAL_INITIAL_MS, REDIAL_MAX_MS } from './core.js'

/** Next redial delay: x[1,2) per failure, capped at [0.75,1) x 60 s. */
export function nextBackoff(current: number, random: () => number = Math.random): number {
  const next = current * (1 + random())
  return next > REDIAL_MAX_MS ? REDIAL_MAX_MS * (0.75 + 0.25 * random()) : next
}

export class Dialer {
  constructor(private readonly n: NetworkCore) {}

  /** Makes every configured bootstrapper (except ourselves) a target and dials it. */
  dialBootstrappers(): void {
    const n = this.n
    const { bootstrap } = n.o.config
    bootstrap.ips.forEach((ip, i) => {
      const nodeId = bootstrap.ids[i] as string
      if (nodeId === n.nodeId) return
      n.bootstrapByAddr.set(ip, nodeId)
      n.targets.set(nodeId, { addr: multiaddrText(ip), backoffMs: REDIAL_INITIAL_MS, bootstrapper: true })
      this.dial(nodeId)
    })
  }

  dial(nodeId: string): void {
    const n = this.n
    const target = n.targets.get(nodeId)
    if (!target || n.closed || n.sessions.has(nodeId) || n.dialing.has(nodeId)) return
    n.dialing.add(nodeId)
    n.host
      .dial(multiaddr(target.addr), { signal: AbortSignal.timeout(HANDSHAKE_TIMEOUT_MS) })
      .then(
        () => {},
        (err: unknown) => {
          n.log.debug('dial failed', { nodeID: nodeId, addr: target.addr, err })
          this.scheduleDial(nodeId)
        },
      )
      .finally(() => n.dialing.delete(nodeId))
  }

  scheduleDial(nodeId: string): void {
    const n = this.n
    const target = n.targets.get(nodeId)
    if (!target || n.closed || target.timer !== undefined || n.sessions.has(nodeId)) return
    const delay = target.backoffMs
    target.backoffMs = nextBackoff(target.backoffMs, n.random)
    target.timer = setTimeout(() => {
      target.timer = undefined
      n.guard('redial', () => this.dial(nodeId))
    }, delay)
  }

  /** Cancels every pending redial. */
  stop(): void {
    for (const t of this.n.targets.values()) clearTimeout(t.timer)
  }
}
