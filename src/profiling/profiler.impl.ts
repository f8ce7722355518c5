/**
 * The profiler machine's IO: fills the five slots of `actors/profiler/profiler.machine.ts` with real writers
 * for one profile directory. The node's profiler writes to `--profile-dir`; a chain's profiler gets its own
 * directory and its own `CpuProfiler` (own inspector session), so nothing here is shared between profilers.
 *
 * ```ts
 * const profiling = profilerImplementation({ dir: config.profileDir, lockSources: { mailbox } })
 * const logic = profilerMachine.provide(profiling.implementation)
 * // on shutdown
 * await profiling.close()   // stops a running CPU profile (keeping its file) and the heap sampling
 * ```
 */
import { fromPromise } from 'xstate'
import type { ProfilerSlotInput, profilerMachine } from '../../actors/profiler/profiler.machine.js'
import { createCpuProfiler, DEFAULT_CPU_PROFILE_NAME } from './cpu.js'
import { createEventLoopMonitor } from './event-loop.js'
import { DEFAULT_HEAP_SNAPSHOT_NAME, writeHeapSnapshot } from './heap.js'
import { createHeapSampler, DEFAULT_MEMORY_PROFILE_NAME } from './heap-sampler.js'
import { DEFAULT_LOCK_PROFILE_NAME, type LockSources, writeLockProfile } from './lock.js'

export type ProfilerImplementation = Parameters<typeof profilerMachine.provide>[0]

export interface ProfileFileNames {
  cpu: string
  memory: string
  lock: string
  heapSnapshot: string
}

export interface ProfilerImplementationOptions {
  dir: string
  /** file names inside `dir` (defaults `cpu.profile`, `mem.profile`, `lock.profile`, `mem.heapsnapshot`) */
  files?: Partial<ProfileFileNames>
  /**
   * Start sampling the heap now (default true), so that a memory profile shows what was allocated since; the
   * node passes false when no admin API can ask for one. A memory profile request starts it in any case.
   */
  sampleHeap?: boolean
  /**
   * What the lock profile reads. Without `eventLoop`, the implementation starts its own monitor now (call this
   * when the node starts) and stops it in `close()`.
   */
  lockSources: Pick<LockSources, 'mailbox'> & Partial<Pick<LockSources, 'eventLoop'>>
  /** deadline of each profile IO step (default 120 s) */
  timeoutMs?: number
}

/** The five profile operations of one profile directory. */
export interface ProfilerOps {
  startCpu(): Promise<void>
  stopCpu(): Promise<void>
  writeMemory(): Promise<void>
  writeLock(): Promise<void>
  writeHeapSnapshot(): Promise<void>
}

export interface ProfilerIo {
  implementation: ProfilerImplementation
  ops: ProfilerOps
  /** stops a running CPU profile (its file is kept), the heap sampling and an event-loop monitor it started;
   * idempotent */
  close(): Promise<void>
}

export function profilerImplementation(options: ProfilerImplementationOptions): ProfilerIo {
  const { dir, timeoutMs } = options
  const ownsMonitor = options.lockSources.eventLoop === undefined
  const lockSources: LockSources = {
    mailbox: options.lockSources.mailbox,
    eventLoop: options.lockSources.eventLoop ?? createEventLoopMonitor(),
  }
  const files: ProfileFileNames = {
    cpu: options.files?.cpu ?? DEFAULT_CPU_PROFILE_NAME,
    memory: options.files?.memory ?? DEFAULT_MEMORY_PROFILE_NAME,
    lock: options.files?.lock ?? DEFAULT_LOCK_PROFILE_NAME,
    heapSnapshot: options.files?.heapSnapshot ?? DEFAULT_HEAP_SNAPSHOT_NAME,
  }
  const deadline = timeoutMs === undefined ? {} : { timeoutMs }
  const cpu = createCpuProfiler({ dir, name: files.cpu, ...deadline })
  const heap = createHeapSampler(deadline)
  // sampling from now on; a failure here only shows in the first memory profile's answer
  if (options.sampleHeap !== false) heap.start().catch(() => undefined)
  const ops: ProfilerOps = {
    startCpu: async () => {
      await cpu.start()
    },
    stopCpu: async () => {
      await cpu.stop()
    },
    writeMemory: async () => {
      await heap.write(dir, files.memory)
    },
    writeHeapSnapshot: async () => {
      await writeHeapSnapshot(dir, files.heapSnapshot, deadline)
    },
    writeLock: async () => {
      await writeLockProfile(dir, files.lock, lockSources, timeoutMs)
    },
  }
  const implementation = profilerSlots(() => ops)
  const close = async (): Promise<void> => {
    try {
      await cpu.close()
    } finally {
      await heap.close()
      if (ownsMonitor) lockSources.eventLoop.close()
    }
  }
  return { implementation, ops, close }
}

/**
 * The profiler machine's slots over the operations `lookup` finds by the profiler's label: one provided logic
 * serves the profilers of every chain, each writing into its own chain's directory. A label with no operations
 * fails the command with `no profiler for <label>`.
 */
export function profilerSlots(lookup: (label: string) => ProfilerOps | undefined): ProfilerImplementation {
  const run = (op: keyof ProfilerOps) =>
    fromPromise<void, ProfilerSlotInput>(async ({ input }) => {
      const ops = lookup(input.label)
      if (ops === undefined) throw new Error(`no profiler for ${input.label}`)
      await ops[op]()
    })
  return {
    actors: {
      startCpuProfile: run('startCpu'),
      stopCpuProfile: run('stopCpu'),
      writeMemoryProfile: run('writeMemory'),
      writeLockProfile: run('writeLock'),
      writeHeapSnapshot: run('writeHeapSnapshot'),
    },
  }
}
