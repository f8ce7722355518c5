/**
 * src/db/check.ts on real LevelDB directories: a directory with data files but no CURRENT is refused before
 * LevelDB could open an empty database over it; a new or complete directory passes; an open that fails keeps
 * LevelDB's cause and the path (a damaged manifest, a directory that is a file).
 */
import assert from 'node:assert/strict'
import { mkdtemp, readdir, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { checkLevelDirectory, damagedStoreText } from '../../../../src/db/check.js'
import { openDatabase } from '../../../../src/db/open.js'

const dirs: string[] = []
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'firn-dbcheck-'))
  dirs.push(dir)
  return dir
}

async function usedDb(): Promise<string> {
  const path = join(await freshDir(), 'db')
  const db = await openDatabase({ type: 'leveldb', path })
  await db.put(new Uint8Array([1]), new Uint8Array([2]))
  await db.close()
  return path
}

describe('checkLevelDirectory', () => {
  it('passes a missing directory, an empty one and a complete database', async () => {
    const dir = await freshDir()
    await checkLevelDirectory(join(dir, 'absent'))
    await checkLevelDirectory(dir)
    await checkLevelDirectory(await usedDb())
  })

  it('refuses data files without CURRENT, naming the path and the manifest, and opening fails the same way', async () => {
    const path = await usedDb()
    await unlink(join(path, 'CURRENT'))
    const before = (await readdir(path)).sort()
    const manifest = before.find((f) => f.startsWith('MANIFEST-'))
    assert.ok(manifest !== undefined)
    const expected = (err: Error) =>
      err.message.startsWith(`the database at ${path} is damaged: it holds `) &&
      err.message.includes('no CURRENT file') &&
      err.message.endsWith(`here: ${manifest})`)
    await assert.rejects(checkLevelDirectory(path), expected)
    await assert.rejects(openDatabase({ type: 'leveldb', path }), expected)
    assert.deepEqual((await readdir(path)).sort(), before)
  })
})

describe('openDatabase failures', () => {
  it('keeps LevelDB’s cause for a damaged manifest', async () => {
    const path = await usedDb()
    const manifest = (await readdir(path)).find((f) => f.startsWith('MANIFEST-'))!
    await writeFile(join(path, manifest), 'not a manifest')
    await assert.rejects(openDatabase({ type: 'leveldb', path }), (err: Error) => {
      assert.match(err.message, new RegExp(`^the database at ${path} is damaged: Corruption: `))
      return true
    })
  })

  it('names the path when the directory cannot be made', async () => {
    const file = join(await freshDir(), 'file')
    await writeFile(file, 'x')
    await assert.rejects(openDatabase({ type: 'leveldb', path: join(file, 'db') }), /file\/db/)
  })

  it('words a damaged chain store for memdb and LevelDB', () => {
    assert.equal(
      damagedStoreText('x is missing', { type: 'leveldb', path: '/d' }),
      'the database at /d is damaged: x is missing; restore it from a backup, or start with an empty --db-dir to sync again',
    )
    assert.match(damagedStoreText('x', { type: 'memdb', path: '/d' }), /^the database at memdb is damaged/)
  })
})
