/**
 * One chain's health check (the reference registers one per chain, named by its primary alias, tagged with its
 * subnet). It reads the chain actor's snapshot (state, last accepted block and when), the engine's processing
 * blocks and the VM (`health()`, `hasPending()`). Firn's rule for a stalled chain: in normal operation, while work
 * waits (blocks processing, or transactions the VM could build) and no block was accepted for longer than
 * `--snow-max-time-processing` (since the node started, if none was yet), the chain is unhealthy; so are more
 * than `--snow-max-processing` processing blocks, a VM whose `health()` throws, a chain that failed or that waits
 * for its VM. A bootstrapping chain passes here: the `bootstrapped` check reports it.
 */
import type { CheckOutcome } from './checker.js'

export interface ChainHealthSource {
  /** the chain actor's state and the context fields read here; undefined before the actor exists */
  snapshot():
    | { state: string; error: string | null; lastAccepted: { height: number; id: string; at: number } | null }
    | undefined
  /** blocks the engine is deciding (0 for a lone validator's producer) */
  processing(): number
  /** the opened VM, once the chain is initialized */
  vm(): { health(): Promise<unknown>; hasPending(): boolean } | undefined
  /** `--snow-max-time-processing`, `--snow-max-processing` */
  maxTimeProcessingMs: number
  maxProcessing: number
  /** when the node started (ms): the reference time before the first accepted block */
  startedAt: number
  now(): number
}

/** ms as Go prints a duration's seconds: `12.5s` */
const seconds = (ms: number) => `${Math.round(ms) / 1000}s`

export async function chainCheck(src: ChainHealthSource): Promise<CheckOutcome> {
  const snap = src.snapshot()
  if (snap === undefined) return { details: undefined, error: 'the chain has no actor' }
  const { state } = snap
  if (state === 'waitingForVm') return { details: { state }, error: 'the chain is waiting for its VM' }
  if (state === 'failed') return { details: { state }, error: `the chain failed: ${snap.error ?? 'unknown error'}` }
  if (state === 'stopped') return { details: { state }, error: 'the chain is stopped' }
  const vm = src.vm()
  if (state !== 'normalOp' || vm === undefined) return { details: { state } }

  const now = src.now()
  const lastAt = snap.lastAccepted?.at ?? src.startedAt
  const sinceMs = Math.max(0, now - lastAt)
  const processing = src.processing()
  const pending = vm.hasPending()
  const details: Record<string, unknown> = {
    state,
    lastAccepted:
      snap.lastAccepted === null
        ? null
        : { height: snap.lastAccepted.height, id: snap.lastAccepted.id, secondsAgo: Math.floor(sinceMs / 1000) },
    processingBlocks: processing,
    pendingWork: pending,
  }
  const errors: string[] = []
  try {
    details.vm = await vm.health()
  } catch (err) {
    errors.push(`vm: ${err instanceof Error ? err.message : String(err)}`)
  }
  if (processing > src.maxProcessing) errors.push(`too many processing blocks: ${processing} > ${src.maxProcessing}`)
  if ((processing > 0 || pending) && sinceMs > src.maxTimeProcessingMs) {
    const waiting = processing > 0 ? `${processing} blocks processing` : 'transactions wait to be built'
    errors.push(
      `no block accepted for ${seconds(sinceMs)} > ${seconds(src.maxTimeProcessingMs)} while work waits: ${waiting}`,
    )
  }
  return errors.length === 0 ? { details } : { details, error: errors.join('; ') }
}
