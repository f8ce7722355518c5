/**
 * The database's checks on open (issue 14, item 6) on real `firn --dev` processes and their LevelDB: a deleted
 * `CURRENT` file, a second node on a running node's data dir, and a chain store that lost a recent block each stop
 * start-up with the cause and the path, and leave the data as it was.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdtemp, readdir, rm, unlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { Wallet } from 'ethers'
import { Level } from 'level'
import { EWOQ_PRIVATE_KEY } from '../../src/chains/evm/rules/presets.js'
import { ChainStore } from '../../src/chains/evm/store/chain-store.js'
import { Sublevel } from '../../src/db/sublevels.js'
import { type FirnProcess, runFirnToExit, startFirn } from '../helpers/firn-process.js'

const LOCAL_C = '2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC'
const dirs: string[] = []

/** A stopped dev node's data dir with a few blocks in its LevelDB (`<dir>/db/dev`). */
async function usedDataDir(): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'firn-dbcheck-'))
  dirs.push(dataDir)
  const node = await startFirn({ args: ['--dev'], dataDir, keepData: true })
  try {
    // three blocks: a dev node builds one as a transfer arrives
    for (let i = 0; i < 3; i++) {
      const before = Number((await node.rpc('/ext/bc/C/rpc', 'eth_blockNumber', [])).body.result)
      await sendFromEwoq(node)
      while (Number((await node.rpc('/ext/bc/C/rpc', 'eth_blockNumber', [])).body.result) === before)
        await new Promise((r) => setTimeout(r, 20))
    }
  } finally {
    assert.equal(await node.stop(), 0)
  }
  return dataDir
}

async function sendFromEwoq(node: FirnProcess): Promise<void> {
  const wallet = new Wallet(`0x${EWOQ_PRIVATE_KEY}`)
  const nonce = Number(
    (await node.rpc('/ext/bc/C/rpc', 'eth_getTransactionCount', [wallet.address, 'latest'])).body.result,
  )
  const raw = await wallet.signTransaction({
    type: 2,
    chainId: 43112n,
    nonce,
    to: wallet.address,
    value: 1n,
    gasLimit: 21_000n,
    maxFeePerGas: 100_000_000_000n,
    maxPriorityFeePerGas: 1n,
  })
  const reply = await node.rpc('/ext/bc/C/rpc', 'eth_sendRawTransaction', [raw])
  assert.equal(reply.body.error, undefined)
}

const restart = (dataDir: string) =>
  runFirnToExit(['--dev', '--data-dir', dataDir, '--http-port=0', '--staking-port=0'])

after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

describe('database checks on open', () => {
  it('refuses a LevelDB whose CURRENT file was deleted, and leaves its files in place', async () => {
    const dataDir = await usedDataDir()
    const dbPath = join(dataDir, 'db', 'dev')
    await unlink(join(dbPath, 'CURRENT'))
    const files = (await readdir(dbPath)).sort()
    const { code, output } = await restart(dataDir)
    assert.equal(code, 1, output)
    assert.match(output, /couldn't start node: the database at .* is damaged: .*no CURRENT file/)
    assert.ok(output.includes(dbPath), output)
    assert.match(output, /MANIFEST-\d+/)
    // nothing was opened over it: the data files are all still there
    assert.deepEqual(
      (await readdir(dbPath)).filter((f) => f !== 'LOCK' && f !== 'LOG').sort(),
      files.filter((f) => f !== 'LOCK' && f !== 'LOG'),
    )
  })

  it('refuses a second node on a running node’s data dir with LevelDB’s lock error, and the first keeps serving', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'firn-dbcheck-'))
    dirs.push(dataDir)
    const first = await startFirn({ args: ['--dev'], dataDir, keepData: true })
    try {
      const { code, output } = await restart(dataDir)
      assert.equal(code, 1, output)
      assert.match(output, /the database at .* is in use by another process/)
      // LevelDB's own cause is kept
      assert.match(output, /IO error: lock .*LOCK/)
      const reply = await first.rpc('/ext/bc/C/rpc', 'eth_blockNumber', [])
      assert.equal(reply.status, 200)
    } finally {
      await first.stop()
    }
  })

  it('refuses a chain store that lost an ancestor of its last accepted block, naming it and the path', async () => {
    const dataDir = await usedDataDir()
    const dbPath = join(dataDir, 'db', 'dev')
    const db = new Level<Uint8Array, Uint8Array>(dbPath, { keyEncoding: 'view', valueEncoding: 'view' })
    await db.open()
    let lostHeight = 0n
    try {
      const store = new ChainStore(db.sublevel(Sublevel.chain(LOCAL_C), { keyEncoding: 'view', valueEncoding: 'view' }))
      const tip = await store.lastAcceptedHash()
      assert.ok(tip !== undefined)
      // the tip's parent: find it by the canonical index
      let height = 1n
      while ((await store.canonicalHash(height + 1n)) !== undefined) height++
      lostHeight = height - 1n
      const lost = await store.canonicalHash(lostHeight)
      assert.ok(lost !== undefined && lostHeight > 0n)
      await store.sublevel('blocks').del(lost)
    } finally {
      await db.close()
    }
    const { code, output } = await restart(dataDir)
    assert.equal(code, 1, output)
    assert.match(output, new RegExp(`block ${lostHeight}, an ancestor of the last accepted, 0x[0-9a-f]{64} is missing`))
    assert.ok(output.includes(`the database at ${dbPath} is damaged`), output)
  })
})
