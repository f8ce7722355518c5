/**
 * Dials and redials: the bootstrappers (`--bootstrap-ips` / `--bootstrap-ids`) and the validators learned from
 * gossip are dial targets; a failed dial, an outbound connection to a bootstrapper that ends without a session,
 * or a lost session of a validator is retried with a jittered exponential backoff capped near 60 s.
 */
import type { Logger } from '../log/logger.js'
import { multiaddrText } from './addresses.js'
import { HANDSHAKE_TIMEOUT_MS, REDIAL_INITIAL_MS, REDIAL_MAX_MS } from './types.js'

/** Next redial delay: x[1,2) per failure, capped at [0.75,1) x 60 s. */
export function nextBackoff(current: number, random: () => number = Math.random): number {
  const next = current * (1 + random())
  return next > REDIAL_MAX_MS ? REDIAL_MAX_MS * (0.75 + 0.25 * random()) : next
}

interface DialTarget {
  addr: string
  backoffMs: number
  timer?: NodeJS.Timeout
  bootstrapper: boolean
}

export interface DialerDeps {
  selfNodeId: string
  bootstrap: { ips: string[]; ids: string[] }
  log: Logger
  random: () => number
  dial: (addr: string, signal: AbortSignal) => Promise<unknown>
  /** a registered session exists for the NodeID */
  hasSession: (nodeId: string) => boolean
  /** worth a redial once its session is gone */
  isValidator: (nodeId: string) => boolean
  /** the newest address the peer claimed */
  claimedAddr: (nodeId: string) => string | undefined
}

export class Dialer {
  readonly #targets = new Map<string, DialTarget>()
  readonly #dialing = new Set<string>()
  /** bootstrap `ip:port` -> expected NodeID */
  readonly #bootstrapByAddr = new Map<string, string>()
  #stopped = false

  constructor(private readonly d: DialerDeps) {}

  /** The NodeID expected at an address we dialed (a bootstrapper's), else null. */
  expectedAt(remoteAddr: string): string | null {
    return this.#bootstrapByAddr.get(remoteAddr) ?? null
  }

  /** Makes every configured bootstrapper (except ourselves) a target and dials it. */
  dialBootstrappers(): void {
    const { bootstrap } = this.d
    bootstrap.ips.forEach((ip, i) => {
      const nodeId = bootstrap.ids[i] as string
      if (nodeId === this.d.selfNodeId) return
      this.#bootstrapByAddr.set(ip, nodeId)
      this.#targets.set(nodeId, { addr: multiaddrText(ip), backoffMs: REDIAL_INITIAL_MS, bootstrapper: true })
      this.dial(nodeId)
    })
  }

  /** A validator learned from gossip: keep its newest address and dial it unless connected. */
  learned(nodeId: string, addr: string): void {
    const target = this.#targets.get(nodeId)
    if (target) {
      if (!target.bootstrapper) target.addr = addr
    } else {
      this.#targets.set(nodeId, { addr, backoffMs: REDIAL_INITIAL_MS, bootstrapper: false })
    }
    if (!this.d.hasSession(nodeId)) this.dial(nodeId)
  }

  dial(nodeId: string): void {
    const target = this.#targets.get(nodeId)
    if (!target || this.#stopped || this.d.hasSession(nodeId) || this.#dialing.has(nodeId)) return
    this.#dialing.add(nodeId)
    this.d
      .dial(target.addr, AbortSignal.timeout(HANDSHAKE_TIMEOUT_MS))
      .then(
        () => {},
        (err: unknown) => {
          this.d.log.debug('dial failed', { nodeID: nodeId, addr: target.addr, err })
          this.scheduleDial(nodeId)
        },
      )
      .finally(() => this.#dialing.delete(nodeId))
  }

  scheduleDial(nodeId: string): void {
    const target = this.#targets.get(nodeId)
    if (!target || this.#stopped || target.timer !== undefined || this.d.hasSession(nodeId)) return
    const delay = target.backoffMs
    target.backoffMs = nextBackoff(target.backoffMs, this.d.random)
    target.timer = setTimeout(() => {
      target.timer = undefined
      try {
        this.dial(nodeId)
      } catch (err) {
        this.d.log.debug('redial failed', { err })
      }
    }, delay)
  }

  /** A peer connected: its redial backoff starts over. */
  connected(nodeId: string): void {
    const target = this.#targets.get(nodeId)
    if (!target) return
    clearTimeout(target.timer)
    target.timer = undefined
    target.backoffMs = REDIAL_INITIAL_MS
  }

  /** A session ended: a lost validator or bootstrapper is redialed; so is a bootstrapper we could not handshake. */
  sessionEnded(s: { nodeId: string | null; outbound: boolean; remoteAddr: string }): void {
    if (this.#stopped) return
    const nodeId = s.nodeId ?? (s.outbound ? this.#bootstrapByAddr.get(s.remoteAddr) : undefined)
    if (nodeId === undefined || this.d.hasSession(nodeId)) return
    const wasValidator = s.nodeId !== null && this.d.isValidator(nodeId)
    const claimed = this.d.claimedAddr(nodeId)
    if (!this.#targets.has(nodeId) && wasValidator && claimed !== undefined) {
      this.#targets.set(nodeId, { addr: claimed, backoffMs: REDIAL_INITIAL_MS, bootstrapper: false })
    }
    const target = this.#targets.get(nodeId)
    if (target?.bootstrapper || (wasValidator && target)) this.scheduleDial(nodeId)
  }

  /** Cancels every pending redial. */
  stop(): void {
    this.#stopped = true
    for (const t of this.#targets.values()) clearTimeout(t.timer)
  }
}
