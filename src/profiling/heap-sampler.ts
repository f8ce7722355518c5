/**
 * The memory profile (`admin.memoryProfile` -> `<profile-dir>/mem.profile`): V8's sampling heap profiler, the
 * counterpart of the Go heap profile the reference writes. Sampling runs from the time the profiler is created
 * (`start()`), one sample per `intervalBytes` allocated on average (default 512 KiB, Go's `runtime.MemProfileRate`);
 * a profile request reads what is sampled so far (`HeapProfiler.getSamplingProfile`) and writes it: the objects
 * still alive, by the stack that allocated them. Reading it takes milliseconds and never stops the event loop for
 * long, unlike a full heap snapshot (heap.ts, `admin.heapSnapshot`).
 *
 * Format: the `.heapprofile` JSON Chrome DevTools' Memory tab loads ("Load profile"; DevTools picks the loader by
 * the file's extension, so the same bytes are also written as `mem.heapprofile`, see `devtoolsName`): `{ "head": { "callFrame":
 * { "functionName", "scriptId", "url", "lineNumber", "columnNumber" }, "selfSize", "id", "children": [...] },
 * "samples": [{ "size", "nodeId", "ordinal" }] }`.
 *
 * V8 has one sampling heap profiler per process: every inspector session shares it, and the session that started
 * it stops it when it disconnects. So each request starts it again first (a no-op while it runs): if another
 * profiler in the process stopped it, sampling resumes and that profile covers only the time since.
 */
import { writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector/promises'
import { DEFAULT_PROFILE_IO_TIMEOUT_MS, PROFILE_FILE_MODE, prepareProfileFile, withDeadline } from './files.js'

export const DEFAULT_MEMORY_PROFILE_NAME = 'mem.profile'
/** `mem.profile` -> `mem.heapprofile`: the name DevTools loads a sampling heap profile by */
export const devtoolsName = (name: string): string => {
  const dot = name.lastIndexOf('.')
  return `${dot > 0 ? name.slice(0, dot) : name}.heapprofile`
}
/** Go's default `runtime.MemProfileRate`: one sample per 512 KiB allocated */
export const DEFAULT_HEAP_SAMPLING_INTERVAL_BYTES = 512 * 1024

export interface HeapSamplerOptions {
  /** average bytes allocated between two samples (default 512 KiB) */
  intervalBytes?: number
  /** deadline of each inspector call and of the write (default 120 s) */
  timeoutMs?: number
}

export interface HeapSampler {
  readonly isSampling: boolean
  /** starts sampling (idempotent) */
  start(): Promise<void>
  /** writes the profile sampled so far to `<dir>/<name>` and its `.heapprofile` twin; resolves with the first path */
  write(dir: string, name?: string): Promise<string>
  /** stops sampling and disconnects; idempotent */
  close(): Promise<void>
}

export function createHeapSampler(options: HeapSamplerOptions = {}): HeapSampler {
  const samplingInterval = Math.max(1, Math.floor(options.intervalBytes ?? DEFAULT_HEAP_SAMPLING_INTERVAL_BYTES))
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROFILE_IO_TIMEOUT_MS
  let session: Session | undefined
  let closed = false

  const startSampling = async (): Promise<Session> => {
    if (closed) throw new Error('heap sampler is closed')
    if (session === undefined) {
      session = new Session()
      session.connect()
    }
    await withDeadline(
      session.post('HeapProfiler.startSampling', { samplingInterval }),
      timeoutMs,
      'HeapProfiler.startSampling',
    )
    return session
  }

  return {
    get isSampling() {
      return session !== undefined && !closed
    },
    start: async () => {
      await startSampling()
    },
    async write(dir, name = DEFAULT_MEMORY_PROFILE_NAME) {
      const path = await prepareProfileFile(dir, name)
      const s = await startSampling()
      const { profile } = await withDeadline(
        s.post('HeapProfiler.getSamplingProfile'),
        timeoutMs,
        'HeapProfiler.getSamplingProfile',
      )
      const text = JSON.stringify(profile)
      await withDeadline(writeFile(path, text, { mode: PROFILE_FILE_MODE }), timeoutMs, 'writing the memory profile')
      const copyName = devtoolsName(name)
      if (copyName !== name) {
        const copy = await prepareProfileFile(dir, copyName)
        await withDeadline(writeFile(copy, text, { mode: PROFILE_FILE_MODE }), timeoutMs, 'writing the memory profile')
      }
      return path
    },
    async close() {
      if (closed) return
      closed = true
      const s = session
      session = undefined
      if (s === undefined) return
      try {
        await withDeadline(s.post('HeapProfiler.stopSampling'), timeoutMs, 'HeapProfiler.stopSampling')
      } catch {
        // another profiler in the process stopped it already
      } finally {
        s.disconnect()
      }
    },
  }
}
