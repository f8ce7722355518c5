/**
 * Outbound requests to peers with the reference's bookkeeping (reference/consensus.md 4.5-4.6): each request races
 * the network-wide adaptive timeout; a response feeds the timeout's latency average and counts as a success on the
 * chain's benchlist, a timeout feeds the full timeout and counts as a failure (app requests never count; Get -> Put
 * never feeds the timeout, `observeLatency: false`). A request
 * to a peer benched on that chain fails at once. The benchlists are the per-chain actors (`benchlist:<alias>`,
 * children of the chain actors), looked up through the actor system by chain ID (`benchlist`); the tracker
 * schedules their expiry ticks.
 */
import {
  type AdaptiveTimeoutConfig,
  type AdaptiveTimeoutState,
  adaptiveTimeoutCreate,
  averageLatencyMs,
  currentTimeoutMs,
  observeLatency,
  observeTimeout,
} from '../../actors/peers/adaptive-timeout.js'
import { isBenched, nextBenchExpiry } from '../../actors/peers/benchlist.js'
import type { BenchlistContext, BenchlistMachineEvent } from '../../actors/peers/benchlist.machine.js'

/** What the tracker needs of a benchlist actor. */
export interface BenchlistRef {
  send(event: BenchlistMachineEvent): void
  getSnapshot(): { context: BenchlistContext }
}

export interface RequestTrackerDeps {
  /** ms clock */
  now: () => number
  /** the benchlist actor of a chain (by chain ID), if it runs: looked up on every use */
  benchlist: (chainId: string) => BenchlistRef | undefined
  /** stake weight of a validator (0 for non-validators: they are not tracked) */
  weight: (nodeId: string) => number
  timeout?: Partial<AdaptiveTimeoutConfig>
  /** timers (tests pass simulated ones) */
  setTimer?: (fn: () => void, ms: number) => unknown
  clearTimer?: (handle: unknown) => void
}

export interface TrackedRequest {
  nodeId: string
  chainId: string
  /** the operation, for errors and logs (`GetAccepted`, `echo` ...) */
  op: string
  /** app requests never count on the benchlist */
  app?: boolean
  /** false: neither the response's latency nor a timeout feeds the adaptive timeout (Get -> Put); default true */
  observeLatency?: boolean
}

export class RequestFailedError extends Error {
  constructor(
    readonly reason: 'benched' | 'timeout' | 'failed',
    message: string,
  ) {
    super(message)
    this.name = 'RequestFailedError'
  }
}

export class RequestTracker {
  #timeout: AdaptiveTimeoutState
  readonly #setTimer: (fn: () => void, ms: number) => unknown
  readonly #clearTimer: (handle: unknown) => void
  readonly #ticks = new Map<string, { at: number; handle: unknown }>()

  constructor(private readonly deps: RequestTrackerDeps) {
    this.#timeout = adaptiveTimeoutCreate(deps.now(), deps.timeout)
    this.#setTimer =
      deps.setTimer ??
      ((fn, ms) => {
        const t = setTimeout(fn, ms)
        t.unref()
        return t
      })
    this.#clearTimer = deps.clearTimer ?? ((h) => clearTimeout(h as NodeJS.Timeout))
  }

  /** the timeout a request sent now gets, ms */
  get currentTimeoutMs(): number {
    return currentTimeoutMs(this.#timeout)
  }

  /** the latency average the timeout derives from, ms */
  get averageLatencyMs(): number {
    return averageLatencyMs(this.#timeout)
  }

  isBenched(nodeId: string, chainId: string): boolean {
    const ref = this.deps.benchlist(chainId)
    return ref !== undefined && isBenched(ref.getSnapshot().context.bench, nodeId, this.deps.now())
  }

  /**
   * Send a request with `send(signal, deadlineMs)` and track it. Rejects with RequestFailedError: `benched` at once,
   * `timeout` when the adaptive timeout passes first, `failed` when `send` fails (not counted on the benchlist).
   */
  async request<T>(req: TrackedRequest, send: (signal: AbortSignal, deadlineMs: number) => Promise<T>): Promise<T> {
    if (this.isBenched(req.nodeId, req.chainId)) {
      throw new RequestFailedError('benched', `${req.op} to ${req.nodeId} failed: benched on ${req.chainId}`)
    }
    const timeoutMs = this.currentTimeoutMs
    const sentAt = this.deps.now()
    const controller = new AbortController()
    let timer: unknown
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = this.#setTimer(() => resolve('timeout'), timeoutMs)
    })
    const answered = send(controller.signal, sentAt + timeoutMs).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    )
    const outcome = await Promise.race([answered, timedOut])
    this.#clearTimer(timer)
    const now = this.deps.now()
    if (outcome === 'timeout') {
      controller.abort()
      if (req.observeLatency !== false) this.#timeout = observeTimeout(this.#timeout, now, timeoutMs)
      if (!req.app) this.#record(req, 'bench.failure', now)
      throw new RequestFailedError('timeout', `${req.op} to ${req.nodeId} timed out after ${timeoutMs} ms`)
    }
    if ('error' in outcome) {
      const why = outcome.error instanceof Error ? outcome.error.message : String(outcome.error)
      throw new RequestFailedError('failed', `${req.op} to ${req.nodeId} failed: ${why}`)
    }
    if (req.observeLatency !== false) this.#timeout = observeLatency(this.#timeout, now - sentAt, now)
    if (!req.app) this.#record(req, 'bench.success', now)
    return outcome.value
  }

  /** Stops the expiry timers. */
  close(): void {
    for (const { handle } of this.#ticks.values()) this.#clearTimer(handle)
    this.#ticks.clear()
  }

  #record(req: TrackedRequest, type: 'bench.success' | 'bench.failure', now: number): void {
    const weight = this.deps.weight(req.nodeId)
    const ref = this.deps.benchlist(req.chainId)
    if (ref === undefined || weight <= 0) return
    ref.send({ type, nodeId: req.nodeId, weight, now })
    this.#scheduleTick(req.chainId, ref)
  }

  /** One timer per chain, at the earliest bench expiry. */
  #scheduleTick(chainId: string, ref: BenchlistRef): void {
    const at = nextBenchExpiry(ref.getSnapshot().context.bench)
    const current = this.#ticks.get(chainId)
    if (at === null || (current !== undefined && current.at <= at)) return
    if (current !== undefined) this.#clearTimer(current.handle)
    const handle = this.#setTimer(
      () => {
        this.#ticks.delete(chainId)
        ref.send({ type: 'bench.tick', now: this.deps.now() })
        this.#scheduleTick(chainId, ref)
      },
      Math.max(0, at - this.deps.now()),
    )
    this.#ticks.set(chainId, { at, handle })
  }
}
