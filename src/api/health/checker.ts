/**
 * The health checker behind `/ext/health` (the reference's api/health worker): checks registered per namespace
 * (readiness, health, liveness) with tags, run together every `--health-check-frequency` and their last results
 * cached; a query reads the cache and never runs a check. A result keeps its details (`message`), its error, when
 * it ran (`timestamp`), how long it took (`duration`, ns), and since when and how often in a row it failed.
 *
 * A plain service, not an actor: it decides nothing for the node, it reads snapshots and stores (docs/architecture.md,
 * decisions of 2026-11-27).
 */

export type HealthNamespace = 'readiness' | 'health' | 'liveness'

/** What a check found: its details, and an error text when it fails. A check may also throw (the error). */
export interface CheckOutcome {
  details: unknown
  error?: string
}

export type Check = () => CheckOutcome | Promise<CheckOutcome>

/** One check's last result, as the reference's JSON (`message` omitted when a check gives no details). */
export interface HealthResult {
  message?: unknown
  error?: string
  /** RFC 3339, when the check last finished (the zero time before it ran) */
  timestamp: string
  /** ns the check took */
  duration: number
  contiguousFailures: number
  timeOfFirstFailure: string | null
}

export interface HealthReply {
  checks: Record<string, HealthResult>
  healthy: boolean
}

/** The reference's tags: every check has `all`; an `application` check answers every query. */
export const ALL_TAG = 'all'
export const APPLICATION_TAG = 'application'

const ZERO_TIME = '0001-01-01T00:00:00Z'
const NOT_YET_RUN: HealthResult = {
  error: 'not yet run',
  timestamp: ZERO_TIME,
  duration: 0,
  contiguousFailures: 0,
  timeOfFirstFailure: null,
}

interface Registered {
  check: Check
  tags: string[]
  /** a readiness check: once it passed, it keeps passing with the details it had then */
  monotonic: boolean
  passed?: { details: unknown }
}

export interface HealthCheckerOptions {
  /** how long one check may run before it counts as failed (ms) */
  checkTimeoutMs?: number
  now?: () => number
  log?: { info(msg: string, fields?: object): void; warn(msg: string, fields?: object): void }
}

export class HealthChecker {
  readonly #checks = new Map<HealthNamespace, Map<string, Registered>>()
  readonly #results = new Map<HealthNamespace, Map<string, HealthResult>>()
  readonly #timeoutMs: number
  readonly #now: () => number
  readonly #log: HealthCheckerOptions['log']
  #timer: NodeJS.Timeout | undefined
  #round: Promise<void> | undefined

  constructor(opts: HealthCheckerOptions = {}) {
    this.#timeoutMs = opts.checkTimeoutMs ?? 10_000
    this.#now = opts.now ?? Date.now
    this.#log = opts.log
    for (const ns of ['readiness', 'health', 'liveness'] as const) {
      this.#checks.set(ns, new Map())
      this.#results.set(ns, new Map())
    }
  }

  /** Registers a check; it fails ("not yet run") until its first run. Names are unique per namespace. */
  register(ns: HealthNamespace, name: string, check: Check, tags: string[] = [], monotonic = ns === 'readiness') {
    if (tags.includes(ALL_TAG)) throw new Error(`restricted tag: "${ALL_TAG}"`)
    const checks = this.#checks.get(ns)!
    if (checks.has(name)) throw new Error(`duplicate check: "${name}"`)
    checks.set(name, { check, tags, monotonic })
    this.#results.get(ns)!.set(name, NOT_YET_RUN)
  }

  /** The cached results of the checks with any of `tags` (none: all), plus every application check. */
  results(ns: HealthNamespace, tags: readonly string[] = []): HealthReply {
    const wanted = new Set(tags.length === 0 ? [ALL_TAG] : tags)
    const checks: Record<string, HealthResult> = {}
    let healthy = true
    for (const [name, reg] of this.#checks.get(ns)!) {
      const selected =
        wanted.has(ALL_TAG) || reg.tags.includes(APPLICATION_TAG) || reg.tags.some((tag) => wanted.has(tag))
      if (!selected) continue
      const result = this.#results.get(ns)!.get(name) ?? NOT_YET_RUN
      checks[name] = result
      healthy &&= result.error === undefined
    }
    return { checks, healthy }
  }

  /** Runs every check now (one round at a time: a call during a round waits for it). */
  runOnce(): Promise<void> {
    this.#round ??= this.#runAll().finally(() => {
      this.#round = undefined
    })
    return this.#round
  }

  /** Runs a round now and then every `frequencyMs`; a round still running skips the tick. */
  start(frequencyMs: number): Promise<void> {
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => {
        if (this.#round === undefined) void this.runOnce()
      }, frequencyMs)
      this.#timer.unref()
    }
    return this.runOnce()
  }

  /** No round starts after this; one in flight finishes. */
  async stop(): Promise<void> {
    clearInterval(this.#timer)
    this.#timer = undefined
    await this.#round
  }

  async #runAll(): Promise<void> {
    const runs: Promise<void>[] = []
    for (const [ns, checks] of this.#checks) for (const [name, reg] of checks) runs.push(this.#runCheck(ns, name, reg))
    await Promise.all(runs)
  }

  async #runCheck(ns: HealthNamespace, name: string, reg: Registered): Promise<void> {
    const start = process.hrtime.bigint()
    const outcome: CheckOutcome = reg.passed ?? (await this.#withDeadline(reg.check))
    const end = this.#now()
    const duration = Number(process.hrtime.bigint() - start)
    const timestamp = new Date(end).toISOString()
    const results = this.#results.get(ns)!
    const prev = results.get(name) ?? NOT_YET_RUN
    const result: HealthResult = {
      ...(outcome.details === undefined || outcome.details === null ? {} : { message: outcome.details }),
      timestamp,
      duration,
      contiguousFailures: 0,
      timeOfFirstFailure: null,
    }
    if (outcome.error !== undefined) {
      result.error = outcome.error
      result.contiguousFailures = prev.contiguousFailures + 1
      result.timeOfFirstFailure = prev.contiguousFailures > 0 ? prev.timeOfFirstFailure : timestamp
      if (prev.error === undefined || prev === NOT_YET_RUN)
        this.#log?.warn('check started failing', { namespace: ns, name, tags: reg.tags, error: outcome.error })
    } else {
      if (prev.error !== undefined && prev !== NOT_YET_RUN)
        this.#log?.info('check started passing', { namespace: ns, name, tags: reg.tags })
      if (reg.monotonic) reg.passed = { details: outcome.details }
    }
    results.set(name, result)
  }

  async #withDeadline(check: Check): Promise<CheckOutcome> {
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<CheckOutcome>((resolve) => {
      timer = setTimeout(
        () => resolve({ details: undefined, error: `health check timed out after ${this.#timeoutMs} ms` }),
        this.#timeoutMs,
      )
    })
    try {
      return await Promise.race([Promise.resolve().then(check), deadline])
    } catch (err) {
      return { details: undefined, error: err instanceof Error ? err.message : String(err) }
    } finally {
      clearTimeout(timer)
    }
  }
}
