/**
 * A SIGKILL while atomic txs are being accepted, twice: a dev node with D (test/helpers/chains-genesis.ts) on a
 * data dir that survives restarts runs four lanes at once (imports into C of the preset X -> C UTXOs, then of D's
 * exports; small exports C -> D; imports on D of what C exported; a few exports D -> C), each with one tx in flight.
 * After the k-th acceptance the node is killed with SIGKILL and restarted on the same data. Then, over every tx
 * ever issued (their IDs computed from their bytes, so a tx whose issueTx answer was lost counts too):
 * - each is Accepted or Unknown (nothing pending survives a restart), and each seen Accepted before a kill still is;
 * - the UTXOs waiting on C (from X and from D) and on D (from C) are exactly the preset ones plus the outputs of
 *   accepted exports, less the inputs of accepted imports (each tx's effects once; a tx not accepted, none);
 * - EWOQ's balance on each chain is its genesis balance plus accepted imports' EVM outputs less accepted exports'
 *   EVM inputs (amount and fee, from the txs themselves), and its nonce counts the accepted exports.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fromHex } from '../../src/chains/evm/atomic/hex.js'
import { decodeSignedTx, idCb58, inputIdsOf, utxoIdOf } from '../../src/chains/evm/atomic/ids.js'
import { DEV_X_UTXO_TX_ID } from '../../src/chains/evm/atomic/preset-utxos.js'
import { idToString } from '../../src/identity/ids.js'
import {
  buildExport,
  buildImport,
  contextOf,
  evmBalance,
  evmNonce,
  finalStatus,
  hexWithChecksum,
  issue,
  result,
  utxosFor,
} from '../helpers/atomic.js'
import type { Context } from '../helpers/avalanchejs.js'
import { D_FUNDS, devChainsGenesis, writeGenesisFile } from '../helpers/chains-genesis.js'
import { type FirnProcess, startFirn } from '../helpers/firn-process.js'

const GWEI = 1_000_000_000n
const C = '/ext/bc/C'
const D = '/ext/bc/D'
/** each C -> D and D -> C export, in nAVAX (well above an import's fee) */
const EXPORT_AMOUNT = 10_000_000n
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const cb58 = (hex: string) => idToString(fromHex(hex, 32, 'ID'))

/** A tx the test issued: where, what it spends and creates, what it moves on its chain's EVM (wei). */
interface Issued {
  id: string
  base: string
  kind: string
  /** UTXO IDs (CB58) an import spends */
  spends: string[]
  /** UTXO IDs (CB58) an export creates, with the chain they wait on */
  creates: string[]
  /** + an import's EVM outputs, - an export's EVM inputs */
  evmDelta: bigint
  bytes: Uint8Array
}

function describeTx(base: string, bytes: Uint8Array): Issued {
  const d = decodeSignedTx(bytes)
  const u = d.tx.unsigned
  const id = idCb58(d.id)
  if (u.type === 'import') {
    const kind = `import ${cb58(u.sourceChain).slice(0, 6)} -> ${base}`
    const evmDelta = u.outputs.reduce((a, o) => a + o.amount, 0n) * GWEI
    return { id, base, kind, spends: inputIdsOf(u).map(cb58), creates: [], evmDelta, bytes }
  }
  const creates = u.exportedOutputs.map((_, i) => cb58(utxoIdOf(d.id, i)))
  const evmDelta = -u.inputs.reduce((a, i) => a + i.amount, 0n) * GWEI
  return {
    id,
    base,
    kind: `export ${base} -> ${cb58(u.destinationChain).slice(0, 6)}`,
    spends: [],
    creates,
    evmDelta,
    bytes,
  }
}

describe('a SIGKILL while atomic txs are accepted on C and D, twice', { timeout: 600_000 }, () => {
  let dataDir = ''
  let node: FirnProcess | undefined
  let ctx: Context
  let dId = ''
  const genesis = { C: 0n, D: 0n }
  /** every tx ever issued (or about to be), by ID */
  const issued = new Map<string, Issued>()
  /** the IDs the node answered Accepted before a kill */
  const seenAccepted = new Set<string>()
  let genesisFile = ''

  const start = async () => {
    node = await startFirn({ dataDir, keepData: true, args: ['--dev', `--genesis-file=${genesisFile}`] })
    for (const chain of ['C', 'D']) {
      for (let i = 0; ; i++) {
        const r = await node.rpc('/ext/info', 'info.isBootstrapped', { chain })
        if ((r.body.result as { isBootstrapped: boolean } | undefined)?.isBootstrapped === true) break
        assert.ok(i < 600, `${chain} never bootstrapped`)
        await sleep(50)
      }
    }
    return node
  }

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'firn-atomic-crash-'))
    genesisFile = await writeGenesisFile(dataDir, devChainsGenesis())
    const n = await start()
    ctx = await contextOf(n)
    dId = result<{ blockchainID: string }>(
      await n.rpc('/ext/info', 'info.getBlockchainID', { alias: 'D' }),
    ).blockchainID
    assert.equal(result<string>(await n.rpc(`${C}/rpc`, 'eth_blockNumber', [])), '0x0')
    genesis.C = await evmBalance(n, C)
    genesis.D = await evmBalance(n, D)
    assert.equal(genesis.D, D_FUNDS)
  })

  after(async () => {
    await node?.cleanup()
    if (dataDir !== '') await rm(dataDir, { recursive: true, force: true })
  })

  /**
   * Runs the four lanes until the k-th acceptance, then SIGKILLs the node at once (the other lanes' txs still in
   * flight) and waits for the lanes to notice; returns how many txs each lane issued.
   */
  async function runAndKill(k: number): Promise<Record<string, number>> {
    const n = node!
    let accepted = 0
    let dead = false
    const counts: Record<string, number> = {}
    let killed: Promise<unknown> | undefined
    /** issue `bytes` at `base`, then poll its status until final; counts the acceptance (and kills at the k-th) */
    const issueAndWait = async (base: string, bytes: Uint8Array) => {
      const tx = describeTx(base, bytes)
      issued.set(tx.id, tx)
      counts[tx.kind] = (counts[tx.kind] ?? 0) + 1
      assert.equal(await issue(n, base, bytes), tx.id)
      for (;;) {
        const s = result<{ status: string }>(await n.rpc(`${base}/avax`, 'avax.getAtomicTxStatus', { txID: tx.id }))
        if (s.status === 'Accepted') {
          if (dead) return
          seenAccepted.add(tx.id)
          if (++accepted === k) {
            dead = true
            killed = n.stop('SIGKILL')
          }
          return
        }
        assert.ok(s.status === 'Processing', `${tx.kind} ${tx.id}: ${s.status}`)
        await sleep(20)
      }
    }
    const lane = async (step: () => Promise<boolean>) => {
      try {
        while (!dead) if (!(await step())) await sleep(50)
      } catch (err) {
        if (!dead) {
          dead = true
          killed = n.stop('SIGKILL')
          throw err
        }
      }
    }
    let dExports = 0
    await Promise.all([
      // imports into C: the preset X UTXOs one at a time, then whatever D exported, together
      lane(async () => {
        const fromX = await utxosFor(n, C, 'C', 'X', ctx)
        if (fromX.length > 0) {
          await issueAndWait(C, await buildImport(n, ctx, C, ctx.cBlockchainID, ctx.xBlockchainID, fromX.slice(0, 1)))
          return true
        }
        const fromD = await utxosFor(n, C, 'C', 'D', ctx)
        if (fromD.length === 0) return false
        await issueAndWait(C, await buildImport(n, ctx, C, ctx.cBlockchainID, dId, fromD))
        return true
      }),
      // small exports C -> D, one nonce at a time
      lane(async () => {
        await issueAndWait(C, await buildExport(n, ctx, C, ctx.cBlockchainID, dId, EXPORT_AMOUNT))
        return true
      }),
      // imports on D of what C exported
      lane(async () => {
        const fromC = await utxosFor(n, D, 'D', 'C', ctx)
        if (fromC.length === 0) return false
        await issueAndWait(D, await buildImport(n, ctx, D, dId, ctx.cBlockchainID, fromC.slice(0, 8)))
        return true
      }),
      // a few exports D -> C
      lane(async () => {
        if (dExports >= 3) return false
        dExports++
        await issueAndWait(D, await buildExport(n, ctx, D, dId, ctx.cBlockchainID, EXPORT_AMOUNT + BigInt(dExports)))
        await sleep(300)
        return true
      }),
    ])
    await killed
    node = undefined
    return counts
  }

  /** Restarts on the same data and checks every tx ever issued against what the node now holds. */
  async function restartAndCheck(): Promise<void> {
    const n = await start()
    const accepted: Issued[] = []
    const statuses: Record<string, number> = {}
    for (const tx of issued.values()) {
      const s = result<{ status: string; blockHeight?: string }>(
        await n.rpc(`${tx.base}/avax`, 'avax.getAtomicTxStatus', { txID: tx.id }),
      )
      statuses[s.status] = (statuses[s.status] ?? 0) + 1
      assert.ok(s.status === 'Accepted' || s.status === 'Unknown', `${tx.kind} ${tx.id} after the restart: ${s.status}`)
      if (seenAccepted.has(tx.id))
        assert.equal(s.status, 'Accepted', `${tx.kind} ${tx.id} was Accepted before the kill`)
      if (s.status !== 'Accepted') continue
      accepted.push(tx)
      const got = result<{ tx: string; blockHeight: string }>(
        await n.rpc(`${tx.base}/avax`, 'avax.getAtomicTx', { txID: tx.id, encoding: 'hex' }),
      )
      assert.equal(got.blockHeight, s.blockHeight)
      assert.equal(got.tx, hexWithChecksum(tx.bytes), `${tx.kind} ${tx.id}: the bytes issued`)
    }
    console.log(`after the restart: ${JSON.stringify(statuses)} of ${issued.size} txs issued`)

    // the UTXOs waiting: presets and accepted exports' outputs, less accepted imports' inputs
    const spent = new Set(accepted.flatMap((t) => t.spends))
    const expected = { 'C<-X': [] as string[], 'C<-D': [] as string[], 'D<-C': [] as string[] }
    for (let i = 0; i < 5; i++) expected['C<-X'].push(cb58(utxoIdOf(DEV_X_UTXO_TX_ID, i)))
    for (const t of accepted) for (const u of t.creates) expected[t.base === C ? 'D<-C' : 'C<-D'].push(u)
    const ids = async (base: string, alias: string, source: string) =>
      (await utxosFor(n, base, alias, source, ctx)).map((u) => u.ID()).sort()
    const actual = { 'C<-X': await ids(C, 'C', 'X'), 'C<-D': await ids(C, 'C', 'D'), 'D<-C': await ids(D, 'D', 'C') }
    for (const key of Object.keys(expected) as (keyof typeof expected)[]) {
      assert.deepEqual(actual[key], expected[key].filter((u) => !spent.has(u)).sort(), `UTXOs ${key}`)
    }
    // no UTXO of a tx that was not accepted exists
    const waiting = new Set(Object.values(actual).flat())
    for (const t of issued.values()) {
      if (accepted.includes(t)) continue
      for (const u of t.creates) assert.ok(!waiting.has(u), `${t.kind} ${t.id} was not accepted, its UTXO ${u} is`)
    }

    // balances and nonces: genesis, plus accepted imports, less accepted exports
    for (const [base, chain] of [
      [C, 'C'],
      [D, 'D'],
    ] as const) {
      const mine = accepted.filter((t) => t.base === base)
      const delta = mine.reduce((a, t) => a + t.evmDelta, 0n)
      assert.equal(await evmBalance(n, base), genesis[chain] + delta, `EWOQ's balance on ${chain}`)
      const exports = mine.filter((t) => t.creates.length > 0).length
      assert.equal(await evmNonce(n, base), BigInt(exports), `EWOQ's nonce on ${chain}`)
    }
    const kinds: Record<string, number> = {}
    for (const t of accepted) kinds[t.kind] = (kinds[t.kind] ?? 0) + 1
    console.log(`accepted, checked: ${JSON.stringify(kinds)}`)
  }

  for (const round of [1, 2]) {
    it(`kill ${round}: every accepted tx has its effects exactly once, the others none`, async () => {
      // random-ish, logged: the kill comes after the k-th acceptance of this round
      const k = 8 + (Math.floor(Date.now() / 16) % 13)
      const t0 = Date.now()
      const counts = await runAndKill(k)
      console.log(
        `round ${round}: SIGKILL after acceptance ${k} (${Date.now() - t0} ms); issued ${JSON.stringify(counts)}`,
      )
      await restartAndCheck()
    })
  }

  it('the chains go on after the kills: an export C -> D and its import on D are accepted', async () => {
    const n = node!
    const accept = async (base: string, bytes: Uint8Array) => {
      const tx = describeTx(base, bytes)
      issued.set(tx.id, tx)
      assert.equal(await issue(n, base, bytes), tx.id)
      const s = await finalStatus(n, base, tx.id)
      assert.equal(s.status, 'Accepted', `${tx.kind} ${tx.id}`)
      seenAccepted.add(tx.id)
      return tx
    }
    const exported = await accept(C, await buildExport(n, ctx, C, ctx.cBlockchainID, dId, EXPORT_AMOUNT))
    const utxo = (await utxosFor(n, D, 'D', 'C', ctx)).find((u) => u.ID() === exported.creates[0])
    assert.ok(utxo, 'the export waits on D')
    const imported = await accept(D, await buildImport(n, ctx, D, dId, ctx.cBlockchainID, [utxo]))
    assert.deepEqual(imported.spends, exported.creates)
    await n.stop()
    node = undefined
    await restartAndCheck()
  })
})
