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
import type { profilerMachine } from '../../actors/profiler/profiler.machine.js'
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

export interface ProfilerIo {
  implementation: ProfilerImplementation
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
  const implementation = {
    actors: {
      startCpuProfile: fromPromise<void, void>(async () => {
        await cpu.start()
      }),
      stopCpuProfile: fromPromise<void, void>(async () => {
        await cpu.stop()
      }),
      writeMemoryProfile: fromPromise<void, void>(async () => {
        await writeHeapProfile(dir, files.memory, timeoutMs === undefined ? {} : { timeoutMs })
      }),
      writeLockProfile: fromPromise<void, void>(async () => {
        await writeLockProfile(dir, files.lock, lockSources, timeoutMs)
      }),
    },
  } satisfies ProfilerImplementation
  const close = async (): Promise<void> => {
    try {
      await cpu.close()
    } finally {
      if (ownsMonitor) lockSources.eventLoop.close()
    }
  }
  return { implementation, close }
}
