/**
 * The bootstrapper's fetch phase (reference consensus.md 3.4) over `BootstrapIo`: GetAncestors for every missing
 * id, at most `maxOutstanding` in flight, each to a peer the tracker picks among those that have not failed it;
 * answers go through the run's `Fetcher`, progress and the end go back as bootstrapper events. An id no peer could
 * take is parked until the next `tick` (every progress interval), when it is tried again.
 */

import type { Fetcher, PeerTracker } from './bootstrap-fetcher.js'
import type { BootstrapIo, BootstrapperEvent } from './bootstrapper.types.js'

/** What one fetch phase works with: the run's IO, fetch store and peer tracker. */
export interface AncestorsRun {
  io: BootstrapIo
  fetcher: Fetcher
  tracker: PeerTracker
  maxOutstanding: number
}

/** A fetch phase in progress. */
export interface AncestorsFetch {
  /** retry the ids no peer could take */
  tick(): void
  stop(): void
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e))

export function fetchAncestors(
  run: AncestorsRun,
  accepted: readonly string[],
  resume: boolean,
  sendBack: (e: BootstrapperEvent) => void,
): AncestorsFetch {
  const { io, tracker, maxOutstanding } = run
  const f = run.fetcher
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
  const tick = (): void => {
    if (stopped) return
    // ids no peer could take: all peers failed them (try them all again) or there were no peers
    for (const id of parked) {
      const all = peers()
      const failed = f.failedFor(id)
      if (all.every((p) => failed.has(p))) f.clearFailures(id)
    }
    parked.clear()
    pump()
  }
  void (async () => {
    if (resume) f.resume()
    for (const id of accepted) {
      if (await io.has(id)) f.forget(id)
      else f.want(id)
    }
    preparing = false
    report()
    pump()
  })().catch((e: unknown) => finish({ type: 'bootstrap.failed', message: errorText(e) }))
  return {
    tick,
    stop: () => {
      stopped = true
    },
  }
}
