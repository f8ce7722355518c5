/**
 * The profiler's vocabulary: input, context, commands, replies and error texts, plus the small pure helpers
 * the machine's actions call. Error texts the reference defines (`cpu profiler already running`,
 * `cpu profiler doesn't exist`) are copied to the letter.
 */
import type { Reply } from '../reply.js'

export const PROFILER_ERROR_ALREADY_RUNNING = 'cpu profiler already running'
export const PROFILER_ERROR_NOT_RUNNING = "cpu profiler doesn't exist"
/** Ours (the reference writes profiles synchronously and never queues). */
export const PROFILER_ERROR_QUEUE_FULL = 'profiler busy: too many profile requests queued'

/** How many memory/lock requests may wait behind the one being written. */
export const DEFAULT_PROFILE_QUEUE_LIMIT = 16

export interface ProfilerInput {
  /** who this profiler serves, for inspection: `node`, `C` ... */
  label?: string
  /** memory/lock requests that may wait behind the one being written (default 16) */
  queueLimit?: number
}

/** A memory, lock or heap-snapshot request waiting for (or being served by) the snapshot region. */
export interface SnapshotRequest {
  kind: 'memory' | 'lock' | 'heapSnapshot'
  requestId: string
}

export interface ProfilerContext {
  label: string
  queueLimit: number
  /** the start being served while `starting` */
  startRequest: string | null
  /** the stop being served while `stopping` */
  stopRequest: string | null
  /** a start that arrived while `stopping`: served once the stop is done */
  deferredStart: string | null
  /** a stop that arrived while `starting`: served once the start is done */
  deferredStop: string | null
  /** the memory/lock request being written */
  writing: SnapshotRequest | null
  /** memory/lock requests waiting, oldest first, at most `queueLimit` */
  queue: SnapshotRequest[]
}

export type ProfilerCommand =
  | { type: 'profiler.start'; requestId: string }
  | { type: 'profiler.stop'; requestId: string }
  | { type: 'profiler.memory'; requestId: string }
  | { type: 'profiler.lock'; requestId: string }
  /** Firn's: a full V8 heap snapshot (stops the event loop while V8 walks the heap) */
  | { type: 'profiler.heapSnapshot'; requestId: string }

export type ProfilerEmitted = Reply

export const profilerContext = (input: ProfilerInput | undefined): ProfilerContext => ({
  label: input?.label ?? 'profiler',
  queueLimit: Math.max(0, Math.floor(input?.queueLimit ?? DEFAULT_PROFILE_QUEUE_LIMIT)),
  startRequest: null,
  stopRequest: null,
  deferredStart: null,
  deferredStop: null,
  writing: null,
  queue: [],
})

/** The snapshot-region request a command asks for (start/stop never reach the snapshot region). */
export const toSnapshotRequest = (command: ProfilerCommand): SnapshotRequest => ({
  kind:
    command.type === 'profiler.lock' ? 'lock' : command.type === 'profiler.heapSnapshot' ? 'heapSnapshot' : 'memory',
  requestId: command.requestId,
})

/** An IO failure's text, for the error reply. */
export const errorMessage = (err: unknown): string => {
  if (err instanceof Error) return err.message
  if (typeof err === 'string') return err
  return String(err)
}
