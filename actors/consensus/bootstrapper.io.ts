/**
 * The bootstrapper's five slots implemented over `BootstrapIo` (the composition root supplies the IO functions):
 * `bootstrapperMachine.provide({ actors: createBootstrapActors(io) })`, one call per bootstrap run (the actors
 * share that run's fetch store and peer tracker). Requests to `io.self` never reach the network: its frontier is
 * `lastAccepted().id`, its GetAccepted answer the ids `has` accepted. Failures and timeouts count as empty
 * answers; everything a peer controls is bounded (50 requests in flight per phase, ids per answer capped at the
 * number asked, 2000 containers per Ancestors, `maxStored` blocks in memory).
 */
import { fromCallback, fromPromise } from 'xstate'
import {
  acceptedByMajority,
  MAX_ANCESTORS_CONTAINERS,
  MAX_OUTSTANDING_REQUESTS,
  MAX_STORED_BLOCKS,
  sampleFrontierPeers,
  startThreshold,
  totalWeight,
} from './bootstrap.js'
import { Fetcher, PeerTracker } from './bootstrap-fetcher.js'
import type {
  AcceptedResult,
  BootstrapperEvent,
  BootstrapTick,
  FetchAncestorsInput,
  FrontierResult,
  StakeStatus,
} from './bootstrapper.machine.js'
import { DEFAULT_SNOW_PARAMS } from './params.js'
import type { AcceptedRef, EngineBlock, Weighted } from './types.js'

export interface BootstrapIo {
  self: string
  /** validators of the chain (self included if a validator) */
  beacons(): readonly Weighted[]
  /** connected beacon weight, self counted */
  connectedWeight(): bigint
  lastAccepted(): AcceptedRef
  /** the peer's last accepted id; rejects on failure/timeout */
  getAcceptedFrontier(nodeId: string): Promise<string>
  getAccepted(nodeId: string, ids: string[]): Promise<string[]>
  /** containers newest first */
  getAncestors(nodeId: string, id: string): Promise<Uint8Array[]>
  parse(bytes: Uint8Array): EngineBlock | undefined
  /** already accepted locally */
  has(id: string): Promise<boolean>
  /** verify + accept one block (parent already accepted); throws = fatal */
  execute(block: EngineBlock): Promise<void>
  random(): number
  now(): number
}

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

/** The actor logic for `bootstrapperMachine`'s slots, over one run's IO. */
export function createBootstrapActors(io: BootstrapIo, options: BootstrapOptions = {}) {
  const sampleK = options.sampleK ?? DEFAULT_SNOW_PARAMS.k
  const maxOutstanding = Math.max(1, options.maxOutstanding ?? MAX_OUTSTANDING_REQUESTS)
  const fetcherOptions = {
    maxStored: options.maxStored ?? MAX_STORED_BLOCKS,
    maxContainers: options.maxContainers ?? MAX_ANCESTORS_CONTAINERS,
  }
  const tracker = new PeerTracker()
  let fetcher: Fetcher | undefined
  let executedTotal = 0
  const fetcherNow = (): Fetcher => {
    const la = io.lastAccepted()
    if (fetcher === undefined) fetcher = new Fetcher(la, fetcherOptions)
    else if (fetcher.lastAccepted.id !== la.id) fetcher.setLastAccepted(la)
    return fetcher
  }

  const checkStake = fromPromise<StakeStatus, void>(async () => {
    const total = totalWeight(io.beacons())
    if (total <= 0n) return { ready: true, noBeacons: true, at: io.now() }
    return { ready: io.connectedWeight() >= startThreshold(total), noBeacons: false, at: io.now() }
  })

  const fetchFrontier = fromPromise<FrontierResult, { round: number }>(async () => {
    const peers = sampleFrontierPeers(io.beacons(), sampleK, () => io.random())
    const answers = await mapLimited(peers, maxOutstanding, async (peer) =>
      peer === io.self ? io.lastAccepted().id : io.getAcceptedFrontier(peer).catch(() => undefined),
    )
    const candidates = [...new Set(answers.filter((id): id is string => typeof id === 'string'))]
    return { candidates, at: io.now() }
  })

  const fetchAccepted = fromPromise<AcceptedResult, { round: number; candidates: string[] }>(async ({ input }) => {
    const asked = [...input.candidates]
    const askedSet = new Set(asked)
    const beacons = io.beacons().filter((b) => b.weight > 0n)
    const localAnswer = async (): Promise<string[]> => {
      const out: string[] = []
      for (const id of asked) if (await io.has(id)) out.push(id)
      return out
    }
    const answers = await mapLimited(beacons, maxOutstanding, async (b) => {
      const ids = b.nodeId === io.self ? await localAnswer() : await io.getAccepted(b.nodeId, asked).catch(() => [])
      return [b.nodeId, ids.slice(0, asked.length).filter((id) => askedSet.has(id))] as const
    })
    return { accepted: acceptedByMajority(new Map(answers), beacons), at: io.now() }
  })

  const fetchAncestors = fromCallback<BootstrapTick, FetchAncestorsInput>(({ input, sendBack, receive }) => {
    const f = fetcherNow()
    let stopped = false
    let preparing = true
    const parked = new Set<string>()
    const peers = (): string[] => io.beacons().flatMap((b) => (b.weight > 0n && b.nodeId !== io.self ? [b.nodeId] : []))
    const finish = (event: BootstrapperEvent): void => {
      if (stopped) return
      stopped = true
      sendBack(event)
    }
    const report = (): void => {
      sendBack({
        type: 'bootstrap.fetchProgress',
        fetched: f.fetched,
        missing: f.missing.size,
        remaining: f.remainingEstimate,
        at: io.now(),
      })
    }
    const request = (id: string, peer: string): void => {
      const sentAt = io.now()
      io.getAncestors(peer, id).then(
        (containers) => {
          if (stopped) return
          const verdict = f.onAncestors(id, peer, containers, (bytes) => io.parse(bytes))
          if (verdict.kind === 'used') {
            const bytes = containers.slice(0, verdict.containers).reduce((s, c) => s + c.length, 0)
            tracker.recordSuccess(peer, bytes, io.now() - sentAt, io.now())
          } else if (verdict.kind === 'refused') {
            tracker.recordFailure(peer, io.now())
          }
          report()
          pump()
        },
        () => {
          if (stopped) return
          if (f.onFailed(id, peer)) tracker.recordFailure(peer, io.now())
          pump()
        },
      )
    }
    const pump = (): void => {
      if (stopped || preparing) return
      if (f.conflict !== null) {
        finish({ type: 'bootstrap.failed', message: f.conflict })
        return
      }
      const all = peers()
      for (const id of f.unrequested()) {
        if (f.outstandingCount() >= maxOutstanding) break
        if (parked.has(id)) continue
        const failed = f.failedFor(id)
        const peer = tracker.select(
          all.filter((p) => !failed.has(p)),
          () => io.random(),
        )
        if (peer === undefined) {
          parked.add(id)
          continue
        }
        f.markRequested(id, peer)
        tracker.markTried(peer)
        request(id, peer)
      }
      if (f.idle) finish({ type: 'bootstrap.fetchDone', at: io.now() })
    }
    receive((event) => {
      if (event.type !== 'bootstrap.tick' || stopped) return
      // ids no peer could take: all peers failed them (try them all again) or there were no peers
      for (const id of parked) {
        const all = peers()
        const failed = f.failedFor(id)
        if (all.every((p) => failed.has(p))) f.clearFailures(id)
      }
      parked.clear()
      pump()
    })
    void (async () => {
      if (input.resume) f.resume()
      for (const id of input.accepted) {
        if (await io.has(id)) f.forget(id)
        else f.want(id)
      }
      preparing = false
      report()
      pump()
    })().catch((e: unknown) => finish({ type: 'bootstrap.failed', message: errorText(e) }))
    return () => {
      stopped = true
    }
  })

  const executeBlocks = fromCallback<BootstrapTick, { round: number }>(({ sendBack }) => {
    let stopped = false
    void (async () => {
      const f = fetcherNow()
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
        executedTotal += 1
        sendBack({ type: 'bootstrap.executeProgress', executed: executedTotal, remaining: f.storedCount, at: io.now() })
      }
      if (!stopped) sendBack({ type: 'bootstrap.executed', more: f.hasDropped, at: io.now() })
    })().catch((e: unknown) => {
      if (!stopped) sendBack({ type: 'bootstrap.failed', message: errorText(e) })
    })
    return () => {
      stopped = true
    }
  })

  return { checkStake, fetchFrontier, fetchAccepted, fetchAncestors, executeBlocks }
}
