/**
 * The node's one database: LevelDB on disk (`level`) or in memory (`memory-level`), keys and values as bytes.
 * Every concern gets a sublevel named in `sublevels.ts`; writes that belong together go in one batch. The
 * directory is checked before LevelDB opens it, and a failed open names its cause and the path (check.ts).
 */
import { mkdir } from 'node:fs/promises'
import type { AbstractLevel } from 'abstract-level'
import { Level } from 'level'
import { MemoryLevel } from 'memory-level'
import { checkLevelDirectory, openFailureText } from './check.js'
import { Sublevel } from './sublevels.js'

export type Database = AbstractLevel<string | Uint8Array, Uint8Array, Uint8Array>

export interface DatabaseOptions {
  type: 'leveldb' | 'memdb'
  /** directory of the LevelDB files (ignored for memdb) */
  path: string
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const encodings = { keyEncoding: 'view', valueEncoding: 'view' } as const
  let db: Database
  if (opts.type === 'memdb') {
    db = new MemoryLevel<Uint8Array, Uint8Array>(encodings) as unknown as Database
  } else {
    await checkLevelDirectory(opts.path)
    await mkdir(opts.path, { recursive: true, mode: 0o750 })
    db = new Level<Uint8Array, Uint8Array>(opts.path, encodings) as unknown as Database
  }
  try {
    await db.open()
  } catch (err) {
    // abstract-level says only "Database failed to open"; the cause (lock, corruption) is what users need
    throw new Error(openFailureText(err, opts.type === 'memdb' ? 'memdb' : opts.path), { cause: err })
  }
  return db
}

const VERSION_KEY = 'version'

/**
 * Record the database layout version (`databaseVersion` in `info.getNodeVersion`) on first open, and refuse a
 * database this Firn would misread: one written with another layout version, or one holding data but no version
 * at all (not written by Firn, or damaged). Stored under the `node` sublevel (raw key `!node!version`). `where`
 * names the database in the error (its directory, or `memdb`).
 */
export async function checkDatabaseVersion(db: Database, version: string, where: string): Promise<void> {
  const meta = db.sublevel<string, string>(Sublevel.node, { keyEncoding: 'utf8', valueEncoding: 'utf8' })
  const stored = await meta.get(VERSION_KEY)
  if (stored === version) return
  const fix = 'start with an empty --db-dir, or run the Firn release that wrote it'
  if (stored === undefined) {
    for await (const _ of db.keys({ limit: 1 })) {
      throw new Error(
        `the database at ${where} holds data but no databaseVersion, so it was not written by Firn; this Firn needs databaseVersion ${version}: ${fix}`,
      )
    }
    await meta.put(VERSION_KEY, version)
    return
  }
  throw new Error(
    `the database at ${where} has databaseVersion ${stored}; this Firn reads databaseVersion ${version} and cannot upgrade it: ${fix}`,
  )
}
