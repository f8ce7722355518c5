import assert from 'node:assert/strict'
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it, mock } from 'node:test'
import { decryptKey, keyAddress } from '../../../../../../src/chains/evm/keystore/key-file.js'
import { Keystore, parseRawKey } from '../../../../../../src/chains/evm/keystore/keystore.js'
import { recoverAddress } from '../../../../../../src/chains/evm/keystore/signing.js'

/** geth's LightScryptN / LightScryptP: tests do not need the standard cost. */
const LIGHT = { n: 4096, r: 8, p: 6 }
const RAW = '7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d'
const HASH = new Uint8Array(32).fill(7)

describe('Keystore', () => {
  let dir: string
  let ks: Keystore
  before(async () => {
    dir = join(await mkdtemp(join(tmpdir(), 'firn-ks-')), 'keystore')
    ks = new Keystore(dir, { scrypt: LIGHT, now: () => Date.UTC(2025, 4, 6, 7, 8, 9, 10) })
  })
  after(async () => {
    ks.close()
    await rm(join(dir, '..'), { recursive: true, force: true })
  })

  it('has no accounts while the directory is missing', async () => {
    assert.deepEqual(await ks.accounts(), [])
  })

  it('creates accounts as geth key files (0700 dir, 0600 files, UTC-- names)', async () => {
    const a = await ks.newAccount('pw-a')
    assert.match(a.address, /^0x[0-9a-f]{40}$/)
    const name = `UTC--2025-05-06T07-08-09.010`
    assert.ok(a.path.startsWith(join(dir, name)), a.path)
    assert.ok(a.path.endsWith(`Z--${a.address.slice(2)}`))
    assert.equal(a.url, `keystore://${a.path}`)
    assert.equal((await stat(dir)).mode & 0o777, 0o700)
    assert.equal((await stat(a.path)).mode & 0o777, 0o600)
    const doc = JSON.parse(await readFile(a.path, 'utf8'))
    assert.equal(doc.version, 3)
    assert.equal(doc.address, a.address.slice(2))
    assert.deepEqual(await readdir(dir), [a.path.slice(dir.length + 1)])
    // the file decrypts with the key file code and gives the account's key
    assert.equal(keyAddress(await decryptKey(await readFile(a.path, 'utf8'), 'pw-a')), a.address)
  })

  it('imports raw keys once, and lists accounts sorted by file', async () => {
    const b = await ks.importRawKey(RAW, 'pw-b')
    assert.equal(b.address, '0x008aeeda4d805471df9b2a5b0f38a0c3bcba786b')
    await assert.rejects(ks.importRawKey(RAW, 'other'), { message: 'account already exists' })
    const list = await ks.accounts()
    assert.equal(list.length, 2)
    assert.deepEqual(
      list.map((x) => x.path),
      list.map((x) => x.path).sort(),
    )
    assert.ok(await ks.hasAddress(b.address.toUpperCase().replace('0X', '0x')))
  })

  it('re-scans the directory and skips hidden, backup and non-key files', async () => {
    await writeFile(join(dir, '.hidden'), '{"address":"1111111111111111111111111111111111111111"}')
    await writeFile(join(dir, 'backup~'), '{"address":"2222222222222222222222222222222222222222"}')
    await writeFile(join(dir, 'README'), 'not json')
    await writeFile(join(dir, 'zero'), '{"address":"0000000000000000000000000000000000000000"}')
    await writeFile(join(dir, 'ext'), '{"address":"0x3333333333333333333333333333333333333333"}')
    const list = await ks.accounts()
    assert.equal(list.length, 3)
    assert.ok(list.some((a) => a.address === `0x${'33'.repeat(20)}`))
    await rm(join(dir, 'ext'))
    assert.equal((await ks.accounts()).length, 2)
  })

  it('stops reading after maxFiles key files', async () => {
    const small = new Keystore(dir, { maxFiles: 2 }) // README, then the first UTC-- file
    assert.equal((await small.accounts()).length, 1)
  })

  it('refuses wrong passwords and unknown accounts with geth texts', async () => {
    await assert.rejects(ks.unlock(`0x${'44'.repeat(20)}`, 'pw', 0), { message: 'no key for given address or file' })
    const b = '0x008aeeda4d805471df9b2a5b0f38a0c3bcba786b'
    await assert.rejects(ks.unlock(b, 'nope', 0), { message: 'could not decrypt key with given password' })
    await assert.rejects(ks.signHashWithPassword(b, 'nope', HASH), {
      message: 'could not decrypt key with given password',
    })
    assert.throws(() => ks.signHash(b, HASH), { message: 'authentication needed: password or unlock' })
    await assert.rejects(ks.unlock(b, 'x'.repeat(1025), 0), { message: 'password longer than 1024 bytes' })
  })

  it('signs with an unlocked key until it is locked', async () => {
    const b = '0x008aeeda4d805471df9b2a5b0f38a0c3bcba786b'
    await ks.unlock(b, 'pw-b', 0)
    assert.ok(ks.isUnlocked(b))
    assert.equal(recoverAddress(HASH, ks.signHash(b, HASH)), b)
    ks.lock(b)
    assert.equal(ks.isUnlocked(b), false)
    assert.throws(() => ks.signHash(b, HASH), { message: 'authentication needed: password or unlock' })
    const sig = await ks.signHashWithPassword(b, 'pw-b', HASH)
    assert.equal(recoverAddress(HASH, sig), b)
  })

  it('re-locks after the unlock duration (timers are unref-ed, long ones re-armed)', async (t) => {
    const b = '0x008aeeda4d805471df9b2a5b0f38a0c3bcba786b'
    t.mock.timers.enable({ apis: ['setTimeout'] })
    await ks.unlock(b, 'pw-b', 3)
    t.mock.timers.tick(2_999)
    assert.ok(ks.isUnlocked(b))
    t.mock.timers.tick(1)
    assert.equal(ks.isUnlocked(b), false)
    // 30 days is longer than one setTimeout can wait
    await ks.unlock(b, 'pw-b', 30 * 86_400)
    t.mock.timers.tick(2 ** 31 - 1)
    assert.ok(ks.isUnlocked(b))
    t.mock.timers.tick(30 * 86_400_000 - (2 ** 31 - 1))
    assert.equal(ks.isUnlocked(b), false)
    mock.timers.reset()
  })

  it('keeps an indefinite unlock when a timed unlock follows', async (t) => {
    const b = '0x008aeeda4d805471df9b2a5b0f38a0c3bcba786b'
    t.mock.timers.enable({ apis: ['setTimeout'] })
    await ks.unlock(b, 'pw-b', 0)
    await ks.unlock(b, 'pw-b', 1)
    t.mock.timers.tick(5_000)
    assert.ok(ks.isUnlocked(b))
    ks.close()
    assert.equal(ks.isUnlocked(b), false)
  })

  it('rejects a key file whose content is another account', async () => {
    const other = await new Keystore(join(dir, '..', 'other'), { scrypt: LIGHT }).newAccount('pw')
    const json = JSON.parse(await readFile(other.path, 'utf8'))
    json.address = '5555555555555555555555555555555555555555'
    await writeFile(join(dir, 'swapped'), JSON.stringify(json))
    await assert.rejects(ks.unlock(`0x${'55'.repeat(20)}`, 'pw', 0), {
      message: `key content mismatch: have account ${other.address.slice(2)}, want ${'55'.repeat(20)}`,
    })
    await rm(join(dir, 'swapped'))
  })

  it('reports two files with one address as geth does', async () => {
    const b = await ks.find('0x008aeeda4d805471df9b2a5b0f38a0c3bcba786b')
    const copy = join(dir, 'copy')
    await writeFile(copy, await readFile(b.path))
    const [first, second] = [b.path, copy].sort()
    await assert.rejects(ks.find(b.address), { message: `multiple keys match address (${first}, ${second})` })
    await rm(copy)
    assert.equal(parseRawKey(RAW).length, 32)
  })
})
