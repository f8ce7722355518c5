/**
 * The database's checks on open (issue 14), and the texts of what they find. LevelDB silently starts an empty
 * database over a directory whose `CURRENT` file is gone (and then deletes the old table files as obsolete), so
 * the directory is looked at before LevelDB opens it; an open that fails keeps LevelDB's own cause (the lock held
 * by another process, a corruption message) and the path.
 */
import { readdir } from 'node:fs/promises'

const FIX = 'restore it from a backup, or start with an empty --db-dir to sync again'

/** LevelDB's own files: the manifest, tables, and the write-ahead logs (numbered; `LOG` is the info log). */
const LEVELDB_DATA = /^(MANIFEST-\d+|\d+\.(ldb|sst|log))$/

/**
 * Refuses a LevelDB directory that holds data files but no `CURRENT` (which names the manifest to read): opening
 * it would start an empty database and delete the data. A missing or empty directory is a new database.
 */
export async function checkLevelDirectory(path: string): Promise<void> {
  let names: string[]
  try {
    names = await readdir(path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return
    throw new Error(`cannot read the database directory ${path}: ${(err as Error).message}`)
  }
  if (names.includes('CURRENT')) return
  const data = names.filter((n) => LEVELDB_DATA.test(n))
  if (data.length === 0) return
  const manifests = data.filter((n) => n.startsWith('MANIFEST-')).sort()
  const hint =
    manifests.length === 0
      ? ''
      : ` (CURRENT holds the name of the newest manifest followed by a newline; here: ${manifests.at(-1)})`
  throw new Error(
    `the database at ${path} is damaged: it holds ${data.length} LevelDB data files but no CURRENT file, and opening it would start an empty database over them; ${FIX}${hint}`,
  )
}

interface LevelError {
  message: string
  code?: string
  cause?: { message?: string; code?: string }
}

/** The start-up error for a LevelDB open that failed: LevelDB's cause, the path, and for the lock who holds it. */
export function openFailureText(err: unknown, path: string): string {
  const e = err as LevelError
  const cause = e.cause?.message ?? e.message
  if (e.cause?.code === 'LEVEL_LOCKED' || e.code === 'LEVEL_LOCKED')
    return `the database at ${path} is in use by another process (is another firn running on the same --data-dir or --db-dir?): ${cause}`
  if (e.cause?.code === 'LEVEL_CORRUPTION') return `the database at ${path} is damaged: ${cause}; ${FIX}`
  return `cannot open the database at ${path}: ${cause}`
}

/** The start-up error for a chain whose store misses what it wrote (src/chains/store-error.ts). */
export function damagedStoreText(problem: string, db: { type: string; path: string }): string {
  const where = db.type === 'memdb' ? 'memdb' : db.path
  return `the database at ${where} is damaged: ${problem}; ${FIX}`
}
