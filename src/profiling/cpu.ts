/**
 * CPU profiling with V8's sampling profiler through `node:inspector/promises`. As the reference does,
 * `start()` creates the output file `<dir>/<name>` (default `cpu.profile`; `mkdir -p`, mode 0750) at once;
 * `stop()` writes the profile into it and closes it.
 *
 * The file is V8's `.cpuprofile` JSON, the format Chrome DevTools (Performance tab, "Load profile") and
 * speedscope load: the `profile` object `Profiler.stop` returns, `{ "nodes": [{ "id", "callFrame": { "functionName",
 * "scriptId", "url", "lineNumber", "columnNumber" }, "hitCount", "children" }], "startTime", "endTime" (µs),
 * "samples": [node ids], "timeDeltas": [µs between samples] }`.
 *
 * Each `CpuProfiler` owns its own inspector `Session` (V8 allows one running profile per session), so the node's
 * profiler and a chain's profiler can run side by side. Calls are serialized: a `stop()` issued while `start()`
 * is still under way runs after it. Every inspector call and the write have a deadline. V8's own string limit
 * (~512 MiB) caps the profile's size: a larger profile fails to serialize and `stop()` rejects.
 */
import { type FileHandle, open } from 'node:fs/promises'
import { Session } from 'node:inspector/promises'
import { PROFILER_ERROR_ALREADY_RUNNING, PROFILER_ERROR_NOT_RUNNING } from '../../actors/profiler/profiler.types.js'
import { DEFAULT_PROFILE_IO_TIMEOUT_MS, PROFILE_FILE_MODE, prepareProfileFile, withDeadline } from './files.js'

export const DEFAULT_CPU_PROFILE_NAME = 'cpu.profile'

export interface CpuProfilerOptions {
  dir: string
  /** file name inside `dir` (default `cpu.profile`) */
  name?: string
  /** deadline of each inspector call and of the write (default 120 s) */
  timeoutMs?: number
  /** sampling interval in µs (V8's default, 1000, when omitted) */
  samplingIntervalUs?: number
}

export interface CpuProfiler {
  readonly isRunning: boolean
  /** starts profiling and creates the (empty) output file; resolves with its path */
  start(): Promise<string>
  /** stops profiling, writes the profile, closes the file; resolves with its path */
  stop(): Promise<string>
  /** on shutdown: stops and writes the profile if one is running; idempotent */
  close(): Promise<void>
}

interface Running {
  session: Session
  file: FileHandle
  path: string
}

export function createCpuProfiler(options: CpuProfilerOptions): CpuProfiler {
  const name = options.name ?? DEFAULT_CPU_PROFILE_NAME
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROFILE_IO_TIMEOUT_MS
  let running: Running | null = null
  let tail: Promise<unknown> = Promise.resolve()

  /** one operation at a time, in call order */
  const serialized = <T>(op: () => Promise<T>): Promise<T> => {
    const result = tail.then(op, op)
    tail = result.catch(() => undefined)
    return result
  }

  const begin = async (): Promise<string> => {
    if (running) throw new Error(PROFILER_ERROR_ALREADY_RUNNING)
    const path = await prepareProfileFile(options.dir, name)
    const file = await open(path, 'w', PROFILE_FILE_MODE)
    const session = new Session()
    try {
      session.connect()
      await withDeadline(session.post('Profiler.enable'), timeoutMs, 'Profiler.enable')
      if (options.samplingIntervalUs !== undefined) {
        const interval = Math.max(1, Math.floor(options.samplingIntervalUs))
        await withDeadline(
          session.post('Profiler.setSamplingInterval', { interval }),
          timeoutMs,
          'Profiler.setSamplingInterval',
        )
      }
      await withDeadline(session.post('Profiler.start'), timeoutMs, 'Profiler.start')
    } catch (err) {
      session.disconnect()
      await file.close()
      throw err
    }
    running = { session, file, path }
    return path
  }

  const end = async (): Promise<string> => {
    if (!running) throw new Error(PROFILER_ERROR_NOT_RUNNING)
    const { session, file, path } = running
    running = null
    try {
      const { profile } = await withDeadline(session.post('Profiler.stop'), timeoutMs, 'Profiler.stop')
      await withDeadline(file.writeFile(JSON.stringify(profile)), timeoutMs, 'writing the cpu profile')
    } finally {
      session.disconnect()
      await file.close()
    }
    return path
  }

  return {
    get isRunning() {
      return running !== null
    },
    start: () => serialized(begin),
    stop: () => serialized(end),
    close: () =>
      serialized(async () => {
        if (running) await end()
      }),
  }
}
