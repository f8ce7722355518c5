/**
 * Where profiles go: `<dir>/<name>`, the directory made with `mkdir -p` and mode 0750 and files with mode 0640,
 * as the reference does (`perms.ReadWriteExecute`, `perms.ReadWrite`). Every profile write has a deadline.
 */
import { mkdir } from 'node:fs/promises'
import { basename, join } from 'node:path'

export const PROFILE_DIR_MODE = 0o750
export const PROFILE_FILE_MODE = 0o640
/** Deadline of one profile write or inspector call (a heap snapshot of a large heap takes a while). */
export const DEFAULT_PROFILE_IO_TIMEOUT_MS = 120_000

/** `mkdir -p <dir>` (mode 0750) and the file's path; `name` must be a bare file name. */
export async function prepareProfileFile(dir: string, name: string): Promise<string> {
  if (name === '' || name === '.' || name === '..' || basename(name) !== name) {
    throw new Error(`invalid profile file name: ${JSON.stringify(name)}`)
  }
  await mkdir(dir, { recursive: true, mode: PROFILE_DIR_MODE })
  return join(dir, name)
}

/** Rejects with `<what> timed out after <n> ms` unless `promise` settles first. */
export async function withDeadline<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${timeoutMs} ms`)), timeoutMs)
  })
  try {
    return await Promise.race([promise, deadline])
  } finally {
    clearTimeout(timer)
  }
}
