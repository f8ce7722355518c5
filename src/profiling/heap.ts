/**
 * The memory profile (`admin.memoryProfile` -> `<profile-dir>/mem.profile`): a garbage collection if the process
 * runs with `--expose-gc` (the reference always runs one; without the flag Node cannot be asked to), then a V8
 * heap snapshot streamed straight to the file (it is never held in memory as a whole).
 *
 * Format: V8's `.heapsnapshot` JSON, the file Chrome DevTools' Memory tab loads (rename it or load it as is):
 * `{ "snapshot": { "meta": { "node_fields", "node_types", "edge_fields", "edge_types", ... }, "node_count",
 * "edge_count", ... }, "nodes": [flat integers, `meta.node_fields.length` per node], "edges": [flat integers,
 * `meta.edge_fields.length` per edge], "trace_function_infos", "trace_tree", "samples", "locations",
 * "strings": [every string the nodes and edges refer to by index] }`.
 *
 * The write has a deadline and a size cap; on failure the partial file is removed.
 */
import { createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { Transform, type TransformCallback } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { getHeapSnapshot } from 'node:v8'
import { DEFAULT_PROFILE_IO_TIMEOUT_MS, PROFILE_FILE_MODE, prepareProfileFile } from './files.js'

export const DEFAULT_MEMORY_PROFILE_NAME = 'mem.profile'
/** A snapshot larger than this is abandoned (4 GiB). */
export const DEFAULT_HEAP_PROFILE_MAX_BYTES = 4 * 1024 ** 3

export interface HeapProfileOptions {
  timeoutMs?: number
  maxBytes?: number
}

/** Runs a full GC when the process was started with `--expose-gc`; says whether it did. */
export function collectGarbageIfExposed(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc
  if (typeof gc !== 'function') return false
  gc()
  return true
}

/** Passes bytes through and fails once more than `maxBytes` went by. */
const byteCap = (maxBytes: number): Transform => {
  let seen = 0
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      seen += chunk.length
      if (seen > maxBytes) callback(new Error(`heap snapshot larger than ${maxBytes} bytes`))
      else callback(null, chunk)
    },
  })
}

/** Writes `<dir>/<name>` (default `mem.profile`) and returns its path. */
export async function writeHeapProfile(
  dir: string,
  name: string = DEFAULT_MEMORY_PROFILE_NAME,
  options: HeapProfileOptions = {},
): Promise<string> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROFILE_IO_TIMEOUT_MS
  const path = await prepareProfileFile(dir, name)
  collectGarbageIfExposed()
  try {
    await pipeline(
      getHeapSnapshot(),
      byteCap(options.maxBytes ?? DEFAULT_HEAP_PROFILE_MAX_BYTES),
      createWriteStream(path, { mode: PROFILE_FILE_MODE }),
      { signal: AbortSignal.timeout(timeoutMs) },
    )
  } catch (err) {
    await rm(path, { force: true })
    if (err instanceof Error && err.name === 'AbortError')
      throw new Error(`memory profile timed out after ${timeoutMs} ms`)
    throw err
  }
  return path
}
