/**
 * The profiler machine's IO: fills the four slots of `actors/profiler/profiler.machine.ts` with real writers
 * for one profile directory. The node's profiler writes to `--profile-dir`; a chain's profiler gets its own
 * directory and its own `CpuProfiler` (own inspector session), so nothing here is shared between profilers.
 *
 * ```ts
 * const profiling = profilerImplementation({ dir: config.profileDir, lockSources: { mailbox } })
 * const logic = profilerMachine.provide(profiling.implementation)
 * // on shutdown
 * await profiling.close()   // stops a running CPU profile and keeps its file
 * ```
 */
import { fromPromise } from 'xstate'
import type { ProfilerSlotInput, profilerMachine } from '../../actors/profiler/profiler.machine.js'
import { createCpuProfiler, DEFAULT_CPU_PROFILE_NAME } from './cpu.js'
import { createEventLoopMonitor } from './event-loop.js'
import { DEFAULT_MEMORY_PROFILE_NAME, writeHeapProfile } from './heap.js'
import { DEFAULT_LOCK_PROFILE_NAME, type LockSources, writeLockProfile } from './lock.js'

export type ProfilerImplementation = Parameters<typeof profilerMachine.provide>[0]

export interface ProfileFileNames {
  cpu: string
  memory: string
  lock: string
}

export interface ProfilerImplementationOptions {
  dir: string
  /** file names inside `dir` (defaults `cpu.profile`, `mem.profile`, `lock.profile`) */
  files?: Partial<ProfileFileNames>
  /**
   * What the lock profile reads. Without `eventLoop`, the implementation starts its own monitor now (call this
   * when the node starts) and stops it in `close()`.
   */
  lockSources: Pick<LockSources, 'mailbox'> & Partial<Pick<LockSources, 'eventLoop'>>
  /** deadline of each profile IO step (default 120 s) */
  timeoutMs?: number
}

/** The four profile operations of one profile directory. */
export interface ProfilerOps {
  startCpu(): Promise<void>
  stopCpu(): Promise<void>
  writeMemory(): Promise<void>
  writeLock(): Promise<void>
}

export interface ProfilerIo {
  implementation: ProfilerImplementation
  ops: ProfilerOps
  /** stops a running CPU profile (its file is kept) and an event-loop monitor it started; idempotent */
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
  }
  const cpu = createCpuProfiler({ dir, name: files.cpu, ...(timeoutMs === undefined ? {} : { timeoutMs }) })
  const ops: ProfilerOps = {
    startCpu: async () => {
      await cpu.start()
    },
    stopCpu: async () => {
      await cpu.stop()
    },
    writeMemory: async () => {
      await writeHeapProfile(dir, files.memory, timeoutMs === undefined ? {} : { timeoutMs })
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
    },
  }
}
