/** Small-file IO for key material: size-capped reads with a deadline, read-only writes, 0750 directories. */
import { chmod, mkdir, open, stat, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'

/** Deadline of one key-file read or write. */
export const KEY_FILE_TIMEOUT_MS = 10_000
/** rwxr-x---, as the reference's `perms.ReadWriteExecute` */
export const DIR_MODE = 0o750
/** r--------, as the reference's `perms.ReadOnly` */
export const KEY_FILE_MODE = 0o400

/** Does anything exist at `path`? Like the reference, only "does not exist" counts as absent. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await stat(path)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ENOENT'
  }
}

/** Reads a whole file of at most `maxBytes`. */
export async function readCapped(path: string, maxBytes: number): Promise<Uint8Array> {
  const handle = await open(path, 'r')
  try {
    const { size } = await handle.stat()
    if (size > maxBytes) throw new Error(`read ${path}: file is larger than ${maxBytes} bytes`)
    const data = await handle.readFile({ signal: AbortSignal.timeout(KEY_FILE_TIMEOUT_MS) })
    if (data.length > maxBytes) throw new Error(`read ${path}: file is larger than ${maxBytes} bytes`)
    return new Uint8Array(data)
  } finally {
    await handle.close()
  }
}

/** Creates the parent directory of `path` (mode 0750) when it is missing. */
export async function ensureParentDir(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: DIR_MODE })
}

/** Writes (or truncates) `path`, then makes it read-only for its owner (0400). */
export async function writeKeyFile(path: string, data: Uint8Array | string): Promise<void> {
  await writeFile(path, data, { mode: 0o600, signal: AbortSignal.timeout(KEY_FILE_TIMEOUT_MS) })
  await chmod(path, KEY_FILE_MODE)
}

/** An fs error in Go's `*PathError` words: `open <path>: no such file or directory`. */
export function goPathError(op: string, path: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'ENOENT') return `${op} ${path}: no such file or directory`
  if (code === 'EACCES') return `${op} ${path}: permission denied`
  if (code === 'EISDIR') return `read ${path}: is a directory`
  return (err as Error).message
}
