/**
 * The node's one database: LevelDB on disk (`level`) or in memory (`memory-level`), keys and values as bytes.
 * Every concern gets a sublevel named in `sublevels.ts`; writes that belong together go in one batch.
 */
import { mkdir } from 'node:fs/promises'
import type { AbstractLevel } from 'abstract-level'
import { Level } from 'level'
import { MemoryLevel } from 'memory-level'
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
    await mkdir(opts.path, { recursive: true, mode: 0o750 })
    db = new Level<Uint8Array, Uint8Array>(opts.path, encodings) as unknown as Database
  }
  await db.open()
  return db
}

const VERSION_KEY = 'version'

/**
 * Record the database layout version on first open and refuse a database written by another layout, so an
 * upgrade never misreads old data. Stored under the `node` sublevel (raw key `!node!version`).
 */
export async function checkDatabaseVersion(db: Database, version: string): Promise<void> {
  const meta = db.sublevel<string, string>(Sublevel.node, { keyEncoding: 'utf8', valueEncoding: 'utf8' })
  const stored = await meta.get(VERSION_KEY)
  if (stored === undefined) await meta.put(VERSION_KEY, version)
  else if (stored !== version) throw new Error(`database version ${stored} is not ${version}; use a new --db-dir`)
}
