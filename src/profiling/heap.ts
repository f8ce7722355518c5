/**
 * The full heap snapshot (Firn's `admin.heapSnapshot` -> `<profile-dir>/mem.heapsnapshot`): a garbage collection
 * if the process runs with `--expose-gc`, then a V8 heap snapshot streamed straight to the file (it is never held
 * in memory as a whole). Taking it stops the event loop for as long as V8 walks the heap (seconds on a large
 * heap): `admin.memoryProfile` writes the sampling profile instead (heap-sampler.ts), and this runs only when
 * asked for by name.
 *
 * Format: V8's `.heapsnapshot` JSON, the file Chrome DevTools' Memory tab loads:
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

export const DEFAULT_HEAP_SNAPSHOT_NAME = 'mem.heapsnapshot'
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

/** Writes `<dir>/<name>` (default `mem.heapsnapshot`) and returns its path. */
export async function writeHeapSnapshot(
  dir: string,
  name: string = DEFAULT_HEAP_SNAPSHOT_NAME,
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
      throw new Error(`heap snapshot timed out after ${timeoutMs} ms`)
    throw err
  }
  return path
}
