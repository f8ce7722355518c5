/**
 * The node's one database: LevelDB on disk (`level`) or in memory (`memory-level`), keys and values as bytes.
 * Every concern gets a sublevel named in `sublevels.ts`; writes that belong together go in one batch.
 */
import { mkdir } from 'node:fs/promises'
import type { AbstractLevel } from 'abstract-level'
import { Level } from 'level'
import { MemoryLevel } from 'memory-level'

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
