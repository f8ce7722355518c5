/**
 * The bootstrapper's IO over `BootstrapIo` (the chain's runtime supplies the IO functions): `bootstrapRun` carries
 * out the requests the bootstrapper emits (`BootstrapRequest`) and answers with its events, as the Observable its
 * `bootstrapIo` slot returns. One subscription is one bootstrap run (its requests share the run's fetch store and
 * peer tracker); unsubscribing stops it. Requests to `io.self` never reach the network: its frontier is
 * `lastAccepted().id`, its GetAccepted answer the ids `has` accepted. Failures and timeouts count as empty
 * answers, and a frontier round in which other beacons were asked and none answered has no candidates (it is
 * retried: our own frontier alone would end the bootstrap where it started). Everything a peer controls is bounded
 * (50 requests in flight per phase, ids per answer capped at the number asked, 2000 containers per Ancestors,
 * `maxStored` blocks in memory).
 */
import { Observable } from 'rxjs'
import {
  acceptedByMajority,
  MAX_ANCESTORS_CONTAINERS,
  MAX_OUTSTANDING_REQUESTS,
  MAX_STORED_BLOCKS,
  sampleFrontierPeers,
  startThreshold,
  totalWeight,
} from './bootstrap.js'
import { type AncestorsFetch, fetchAncestors } from './bootstrap-ancestors.js'
import { Fetcher, PeerTracker } from './bootstrap-fetcher.js'
import type { BootstrapIo, BootstrapperEvent, BootstrapRequest } from './bootstrapper.types.js'
import { DEFAULT_SNOW_PARAMS } from './params.js'

export type { BootstrapIo } from './bootstrapper.types.js'

export interface BootstrapOptions {
  /** frontier sample size (default K = 20) */
  sampleK?: number
  maxOutstanding?: number
  maxStored?: number
  maxContainers?: number
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** Runs `fn` over `items` with at most `limit` at a time; results in item order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i] as T)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker))
  return out
}

/** A request the bootstrapper emitted, or anything else it emitted (ignored here). */
type Emitted = BootstrapRequest | { type: string }

/**
 * One bootstrap run over `io`: every request in `requests$` (the bootstrapper's emitted events) is carried out and
 * answered with events, in the Observable returned. Unsubscribing stops the run (answers still in flight are
 * dropped).
 */
export function bootstrapRun(
  io: BootstrapIo,
  requests$: Observable<Emitted>,
  options: BootstrapOptions = {},
): Observable<BootstrapperEvent> {
  return new Observable<BootstrapperEvent>((subscriber) => {
    const run = new BootstrapRun(io, options, (e) => subscriber.next(e))
    const sub = requests$.subscribe({
      next: (req) => run.handle(req),
      error: (err: unknown) => subscriber.error(err),
      complete: () => subscriber.complete(),
    })
    return () => {
      sub.unsubscribe()
      run.stop()
    }
  })
}

/** A run's state: the fetch store, the peer tracker, the phase in progress. */
class BootstrapRun {
  readonly #sampleK: number
  readonly #maxOutstanding: number
  readonly #fetcherOptions: { maxStored: number; maxContainers: number }
  readonly #tracker = new PeerTracker()
  #fetcher: Fetcher | undefined
  #executedTotal = 0
  /** the fetch phase in progress: its tick, its stop */
  #fetching: AncestorsFetch | undefined
  #stopExecuting: (() => void) | undefined
  #stopped = false

  constructor(
    private readonly io: BootstrapIo,
    options: BootstrapOptions,
    private readonly send: (e: BootstrapperEvent) => void,
  ) {
    this.#sampleK = options.sampleK ?? DEFAULT_SNOW_PARAMS.k
    this.#maxOutstanding = Math.max(1, options.maxOutstanding ?? MAX_OUTSTANDING_REQUESTS)
    this.#fetcherOptions = {
      maxStored: options.maxStored ?? MAX_STORED_BLOCKS,
      maxContainers: options.maxContainers ?? MAX_ANCESTORS_CONTAINERS,
    }
  }

  handle(req: Emitted): void {
    if (this.#stopped) return
    const r = req as BootstrapRequest
    switch (r.type) {
      case 'bootstrap.checkStake':
        this.#answer(() => this.#checkStake())
        return
      case 'bootstrap.fetchFrontier':
        this.#answer(() => this.#fetchFrontier(r.round))
        return
      case 'bootstrap.fetchAccepted':
        this.#answer(() => this.#fetchAccepted(r.round, r.candidates))
        return
      case 'bootstrap.fetchAncestors':
        this.#fetching?.stop()
        this.#fetching = this.#fetchAncestors(r.accepted, r.resume)
        return
      case 'bootstrap.tick':
        this.#fetching?.tick()
        return
      case 'bootstrap.execute':
        this.#stopExecuting?.()
        this.#stopExecuting = this.#execute()
        return
    }
  }

  stop(): void {
    this.#stopped = true
    this.#fetching?.stop()
    this.#stopExecuting?.()
  }

  /** Sends the answer of a one-shot request; a failure fails the bootstrap. */
  #answer(work: () => Promise<BootstrapperEvent>): void {
    work().then(
      (e) => {
        if (!this.#stopped) this.send(e)
      },
      (e: unknown) => {
        if (!this.#stopped) this.send({ type: 'bootstrap.failed', message: errorText(e) })
      },
    )
  }

  #fetcherNow(): Fetcher {
    const la = this.io.lastAccepted()
    if (this.#fetcher === undefined) this.#fetcher = new Fetcher(la, this.#fetcherOptions)
    else if (this.#fetcher.lastAccepted.id !== la.id) this.#fetcher.setLastAccepted(la)
    return this.#fetcher
  }

  async #checkStake(): Promise<BootstrapperEvent> {
    const { io } = this
    const total = totalWeight(io.beacons())
    if (total <= 0n) return { type: 'bootstrap.stake', ready: true, noBeacons: true, at: io.now() }
    return {
      type: 'bootstrap.stake',
      ready: io.connectedWeight() >= startThreshold(total),
      noBeacons: false,
      at: io.now(),
    }
  }

  async #fetchFrontier(round: number): Promise<BootstrapperEvent> {
    const { io } = this
    const peers = sampleFrontierPeers(io.beacons(), this.#sampleK, () => io.random())
    const answers = await mapLimited(peers, this.#maxOutstanding, async (peer) =>
      peer === io.self ? io.lastAccepted().id : io.getAcceptedFrontier(peer).catch(() => undefined),
    )
    // Other beacons were asked and none answered (a connection still opening, a peer restarting): our own frontier
    // alone would let the round accept what we have and end the bootstrap where it started, so the round is retried
    // (no candidates) as when nobody answers.
    const othersAsked = peers.some((peer) => peer !== io.self)
    const othersAnswered = answers.some((id, i) => peers[i] !== io.self && typeof id === 'string')
    const candidates =
      othersAsked && !othersAnswered ? [] : [...new Set(answers.filter((id): id is string => typeof id === 'string'))]
    return { type: 'bootstrap.frontier', round, candidates, at: io.now() }
  }

  async #fetchAccepted(round: number, candidates: string[]): Promise<BootstrapperEvent> {
    const { io } = this
    const asked = [...candidates]
    const askedSet = new Set(asked)
    const beacons = io.beacons().filter((b) => b.weight > 0n)
    const localAnswer = async (): Promise<string[]> => {
      const out: string[] = []
      for (const id of asked) if (await io.has(id)) out.push(id)
      return out
    }
    const answers = await mapLimited(beacons, this.#maxOutstanding, async (b) => {
      const ids = b.nodeId === io.self ? await localAnswer() : await io.getAccepted(b.nodeId, asked).catch(() => [])
      return [b.nodeId, ids.slice(0, asked.length).filter((id) => askedSet.has(id))] as const
    })
    return {
      type: 'bootstrap.acceptedIds',
      round,
      accepted: acceptedByMajority(new Map(answers), beacons),
      at: io.now(),
    }
  }

  /** Fetches down to the last accepted block; `tick` retries the ids no peer could take. */
  #fetchAncestors(accepted: string[], resume: boolean): AncestorsFetch {
    return fetchAncestors(
      { io: this.io, fetcher: this.#fetcherNow(), tracker: this.#tracker, maxOutstanding: this.#maxOutstanding },
      accepted,
      resume,
      this.send,
    )
  }

  /** Executes the stored blocks in height order; returns its stop. */
  #execute(): () => void {
    const { io } = this
    let stopped = false
    void (async () => {
      const f = this.#fetcherNow()
      for (;;) {
        const blk = f.nextExecutable()
        if (blk === undefined || stopped) break
        const la = f.lastAccepted
        if (blk.parentId !== la.id) {
          throw new Error(
            `bootstrap: block ${blk.id} at height ${blk.height} does not build on the last accepted block ${la.id} at height ${la.height}`,
          )
        }
        await io.execute(blk)
        if (stopped) return
        f.executed(blk)
        this.#executedTotal += 1
        this.send({
          type: 'bootstrap.executeProgress',
          executed: this.#executedTotal,
          remaining: f.storedCount,
          at: io.now(),
        })
      }
      if (!stopped) this.send({ type: 'bootstrap.executed', more: f.hasDropped, at: io.now() })
    })().catch((e: unknown) => {
      if (!stopped) this.send({ type: 'bootstrap.failed', message: errorText(e) })
    })
    return () => {
      stopped = true
    }
  }
}
