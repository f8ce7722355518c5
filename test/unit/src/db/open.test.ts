/**
 * The database's layout version on a real LevelDB in a temp dir: recorded on first open, accepted when it
 * matches, and a database this Firn would misread (another version, or data without a version) is refused with
 * a message naming the databaseVersion it needs, and left as it was.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { checkDatabaseVersion, openDatabase } from '../../../../src/db/open.js'

const dirs: string[] = []
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'firn-dbversion-'))
  dirs.push(dir)
  return dir
}

const utf8 = (s: string) => new TextEncoder().encode(s)

describe('checkDatabaseVersion', () => {
  it('records the version on first open and accepts it on the next', async () => {
    const path = await freshDir()
    const db = await openDatabase({ type: 'leveldb', path })
    await checkDatabaseVersion(db, 'v1.0.0', path)
    await db.close()
    const again = await openDatabase({ type: 'leveldb', path })
    await checkDatabaseVersion(again, 'v1.0.0', path)
    assert.equal(Buffer.from((await again.get(utf8('!node!version')))!).toString(), 'v1.0.0')
    await again.close()
  })

  it('refuses a database of another version, naming both versions, and changes nothing', async () => {
    const path = await freshDir()
    const db = await openDatabase({ type: 'leveldb', path })
    await checkDatabaseVersion(db, 'v0.9.0', path)
    await db.put(utf8('!chains/x!k'), utf8('v'))
    await assert.rejects(
      checkDatabaseVersion(db, 'v1.0.0', path),
      (err: Error) =>
        err.message ===
        `the database at ${path} has databaseVersion v0.9.0; this Firn reads databaseVersion v1.0.0 and cannot upgrade it: start with an empty --db-dir, or run the Firn release that wrote it`,
    )
    assert.equal(Buffer.from((await db.get(utf8('!node!version')))!).toString(), 'v0.9.0')
    await db.close()
  })

  it('refuses data without a version instead of adopting it', async () => {
    const path = await freshDir()
    const db = await openDatabase({ type: 'leveldb', path })
    await db.put(utf8('!chains/x!k'), utf8('v'))
    await assert.rejects(
      checkDatabaseVersion(db, 'v1.0.0', path),
      /holds data but no databaseVersion.*needs databaseVersion v1\.0\.0/,
    )
    assert.equal(await db.get(utf8('!node!version')), undefined)
    await db.close()
  })
})
