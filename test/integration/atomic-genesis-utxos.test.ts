/**
 * The genesis file's `atomicUtxos` (docs/operations.md, "Seeding shared memory"): a `--dev` node started with a
 * genesis file that seeds 3 UTXOs X -> C for a fresh key shows them in `avax.getUTXOs`, imports them with that
 * key's signature, and does not seed them again when it restarts on the same data dir; a bad entry stops the node.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { hexToBytes } from '@ethereumjs/util'
import { sha256 } from '@noble/hashes/sha2.js'
import { genesisUtxoTxId } from '../../src/chains/evm/atomic/genesis-utxos.js'
import { decodeSignedTx } from '../../src/chains/evm/atomic/ids.js'
import { evmAddressOfKey, shortAddressOfKey } from '../../src/chains/evm/atomic/sign.js'
import { baseFeeNAvax, contextOf, evmBalance, finalStatus, issue, signed, utxosFor } from '../helpers/atomic.js'
import { ajs, type Context } from '../helpers/avalanchejs.js'
import { type FirnProcess, runFirnToExit, startFirn } from '../helpers/firn-process.js'

const KEY = sha256(new TextEncoder().encode('firn test: genesis atomic utxos'))
const SHORT = hexToBytes(shortAddressOfKey(KEY) as `0x${string}`)
const EVM = evmAddressOfKey(KEY)
const AMOUNT = 2_000_000_000n

describe('genesis file atomicUtxos on a --dev node', () => {
  let dir: string
  let dataDir: string
  let genesisFile: string
  let node: FirnProcess
  let ctx: Context

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firn-genesis-utxos-'))
    dataDir = join(dir, 'data')
    await mkdir(dataDir)
    genesisFile = join(dir, 'genesis.json')
    const address = ajs.utils.format('X', 'local', SHORT)
    const genesis = {
      atomicUtxos: [{ sourceChain: 'X', destinationChain: 'C', address, amount: AMOUNT.toString(), count: 3 }],
    }
    await writeFile(genesisFile, JSON.stringify(genesis))
    node = await startFirn({ args: ['--dev', `--genesis-file=${genesisFile}`], dataDir, keepData: true })
    ctx = await contextOf(node)
  })
  after(async () => {
    await node?.cleanup()
    await rm(dir, { recursive: true, force: true })
  })

  it('shows the 3 UTXOs, imports them with the fresh key, and does not seed them again on restart', async () => {
    const utxos = await utxosFor(node, '/ext/bc/C', 'C', 'X', ctx, SHORT)
    assert.equal(utxos.length, 3)
    const txId = ajs.Id.fromHex(genesisUtxoTxId(0)).toString()
    assert.deepEqual(
      utxos.map((u) => `${u.utxoId.txID.toString()}:${u.utxoId.outputIdx.value()}`).sort(),
      [0, 1, 2].map((i) => `${txId}:${i}`),
    )
    for (const u of utxos) {
      const out = u.output as { amt: { value(): bigint }; outputOwners: { threshold: { value(): number } } }
      assert.equal(out.amt.value(), AMOUNT)
      assert.equal(out.outputOwners.threshold.value(), 1)
      assert.equal(u.assetId.toString(), ctx.avaxAssetID)
    }

    const unsigned = ajs.evm.newImportTxFromBaseFee(
      ctx,
      hexToBytes(EVM as `0x${string}`),
      [SHORT],
      utxos,
      ctx.xBlockchainID,
      await baseFeeNAvax(node, '/ext/bc/C'),
    )
    const bytes = await signed(unsigned, [KEY])
    const decoded = decodeSignedTx(bytes)
    assert.equal(decoded.tx.unsigned.type, 'import')
    const credited = decoded.tx.unsigned.type === 'import' ? decoded.tx.unsigned.outputs[0]!.amount : 0n
    assert.ok(credited > 0n && credited < 3n * AMOUNT)
    const id = await issue(node, '/ext/bc/C', bytes)
    assert.equal((await finalStatus(node, '/ext/bc/C', id)).status, 'Accepted')
    assert.equal(await evmBalance(node, '/ext/bc/C', EVM), credited * 1_000_000_000n)
    assert.equal((await utxosFor(node, '/ext/bc/C', 'C', 'X', ctx, SHORT)).length, 0)

    // same data dir, same genesis file: seeded once, so the imported UTXOs stay gone
    await node.stop()
    node = await startFirn({ args: ['--dev', `--genesis-file=${genesisFile}`], dataDir, keepData: true })
    assert.equal((await utxosFor(node, '/ext/bc/C', 'C', 'X', ctx, SHORT)).length, 0)
    assert.equal(await evmBalance(node, '/ext/bc/C', EVM), credited * 1_000_000_000n)
    assert.match(node.output(), /seeded from the genesis file at an earlier start: not again/)
    // the presets' EWOQ UTXOs are there as well (their own marker)
    assert.equal((await utxosFor(node, '/ext/bc/C', 'C', 'X', ctx)).length, 5)
  })

  it('a bad entry stops the node with the field and the reason', async () => {
    const bad = join(dir, 'bad.json')
    const address = ajs.utils.format('X', 'local', SHORT)
    const entry = { sourceChain: 'X', destinationChain: 'C', address, amount: '0' }
    await writeFile(bad, JSON.stringify({ atomicUtxos: [entry] }))
    const run = await runFirnToExit(['--dev', `--genesis-file=${bad}`, '--data-dir', join(dir, 'bad-data')])
    assert.notEqual(run.code, 0)
    assert.match(
      run.output,
      /unable to load genesis file .*bad\.json: atomicUtxos\[0\]\.amount: must be at least 1 nAVAX/,
    )
  })
})
