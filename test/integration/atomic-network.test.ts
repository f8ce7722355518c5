/**
 * Atomic txs across five real validators running C and D (test/helpers/five-nodes.ts, every node started with the
 * same `--genesis-file`): an import X -> C of a preset UTXO issued to node2 is accepted at the same height on all
 * five, with the same block there and the same remaining X -> C UTXOs everywhere; an export C -> D issued to node2
 * is accepted on all five and its UTXO waits on D on every node; its import on D, issued to node4, is accepted on
 * all five and leaves no C -> D UTXO anywhere. Txs reach the proposer by push gossip (src/chains/evm/gossip/atomic.ts).
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { decodeSignedTx } from '../../src/chains/evm/atomic/ids.js'
import {
  buildExport,
  buildImport,
  contextOf,
  EWOQ_SHORT,
  evmBalance,
  finalStatus,
  issue,
  type RpcNode,
  result,
  utxosFor,
} from '../helpers/atomic.js'
import type { Context, Utxo } from '../helpers/avalanchejs.js'
import { devChainsGenesis, writeGenesisFile } from '../helpers/chains-genesis.js'
import { rpc } from '../helpers/firn-process.js'
import { type FiveNode, FiveNodes, post } from '../helpers/five-nodes.js'

const GWEI = 1_000_000_000n

/** What an import credits (its EVM outputs) or an export debits (its EVM inputs), in wei. */
function evmAmount(bytes: Uint8Array): bigint {
  const u = decodeSignedTx(bytes).tx.unsigned
  const amounts = u.type === 'import' ? u.outputs.map((o) => o.amount) : u.inputs.map((i) => i.amount)
  return amounts.reduce((a, b) => a + b, 0n) * GWEI
}

const rpcNode = (n: FiveNode): RpcNode => ({
  url: n.url,
  rpc: (path, method, params) => rpc(`${n.url}${path}`, method, params),
})

/** The sorted UTXO IDs `source` exported to the chain at `base`, for the test key, on one node. */
async function utxoIds(n: FiveNode, base: string, alias: string, source: string, ctx: Context): Promise<string[]> {
  return (await utxosFor(rpcNode(n), base, alias, source, ctx, EWOQ_SHORT)).map((u) => u.ID()).sort()
}

/** Waits until the tx is Accepted on every node; returns the (single) height they all report. */
async function acceptedEverywhere(nodes: FiveNode[], base: string, txID: string): Promise<number> {
  const statuses = await Promise.all(nodes.map((n) => finalStatus(rpcNode(n), base, txID, 90_000)))
  for (const [i, s] of statuses.entries()) assert.equal(s.status, 'Accepted', `${nodes[i]!.name}: ${txID} ${s.status}`)
  const heights = new Set(statuses.map((s) => s.blockHeight))
  assert.equal(heights.size, 1, `${txID} at heights ${[...heights].join(', ')}`)
  const txs = await Promise.all(
    nodes.map(async (n) =>
      result<{ tx: string; blockHeight: string }>(
        await rpcNode(n).rpc(`${base}/avax`, 'avax.getAtomicTx', { txID, encoding: 'hex' }),
      ),
    ),
  )
  for (const [i, t] of txs.entries()) assert.deepEqual(t, txs[0], `getAtomicTx on ${nodes[i]!.name}`)
  assert.equal(txs[0]!.blockHeight, statuses[0]!.blockHeight)
  return Number(statuses[0]!.blockHeight)
}

/** The block at `height` of `chain` has the same hash, extDataHash and state root on every node. */
async function sameBlock(nodes: FiveNode[], height: number, chain: string): Promise<void> {
  const blocks = await Promise.all(
    nodes.map((n) =>
      n.eth<{ hash: string; stateRoot: string; extDataHash: string; extDataGasUsed: string } | null>(
        'eth_getBlockByNumber',
        [`0x${height.toString(16)}`, false],
        chain,
      ),
    ),
  )
  const [first, ...rest] = blocks
  assert.ok(first, `${nodes[0]!.name} has no block ${height} of ${chain}`)
  assert.notEqual(first.extDataHash, `0x${'00'.repeat(32)}`)
  assert.notEqual(Number(first.extDataGasUsed), 0)
  for (const [i, b] of rest.entries()) {
    assert.deepEqual(
      [b?.hash, b?.stateRoot, b?.extDataHash, b?.extDataGasUsed],
      [first.hash, first.stateRoot, first.extDataHash, first.extDataGasUsed],
      `${nodes[i + 1]!.name} block ${height} of ${chain}`,
    )
  }
}

/** The same value on every node (returned). */
async function same<T>(nodes: FiveNode[], what: string, read: (n: FiveNode) => Promise<T>): Promise<T> {
  const got = await Promise.all(nodes.map(read))
  for (const [i, g] of got.entries()) assert.deepEqual(g, got[0], `${what}: ${nodes[i]!.name} vs ${nodes[0]!.name}`)
  return got[0]!
}

describe('atomic txs on five validators running C and D', { timeout: 600_000 }, () => {
  let net: FiveNodes
  let ctx: Context
  let dId = ''

  before(async () => {
    net = await FiveNodes.create()
    const genesis = await writeGenesisFile(net.dir, devChainsGenesis())
    for (const n of net.nodes) n.layout.args.push(`--genesis-file=${genesis}`)
    const t0 = Date.now()
    await net.startAll()
    for (const i of [1, 2, 3, 4, 5]) await net.waitBootstrapped(i, 180_000, 'D')
    console.log(`five nodes bootstrapped C and D in ${Date.now() - t0} ms (${net.dir})`)
    ctx = await contextOf(rpcNode(net.node(1)))
    const r = await post(`${net.node(1).url}/ext/info`, 'info.getBlockchainID', { alias: 'D' })
    dId = (r.result as { blockchainID: string }).blockchainID
  })

  after(async () => {
    await net?.shutdown(process.env.FIRN_KEEP_NETWORK === '1')
  })

  it('an import X -> C issued to node2 is accepted in the same block on all five', async () => {
    const t0 = Date.now()
    const two = rpcNode(net.node(2))
    const before = await same(net.nodes, 'X -> C UTXOs', (n) => utxoIds(n, '/ext/bc/C', 'C', 'X', ctx))
    assert.equal(before.length, 5, 'the preset UTXOs')
    const balance = await same(net.nodes, 'C balance', (n) => evmBalance(rpcNode(n), '/ext/bc/C'))
    const utxos = await utxosFor(two, '/ext/bc/C', 'C', 'X', ctx)
    const spent = utxos.find((u) => u.ID() === before[0])!
    const bytes = await buildImport(two, ctx, '/ext/bc/C', ctx.cBlockchainID, ctx.xBlockchainID, [spent])
    const txID = await issue(two, '/ext/bc/C', bytes)
    const height = await acceptedEverywhere(net.nodes, '/ext/bc/C', txID)
    await sameBlock(net.nodes, height, 'C')
    const afterIds = await same(net.nodes, 'X -> C UTXOs', (n) => utxoIds(n, '/ext/bc/C', 'C', 'X', ctx))
    assert.deepEqual(afterIds, before.slice(1))
    const now = await same(net.nodes, 'C balance', (n) => evmBalance(rpcNode(n), '/ext/bc/C'))
    assert.equal(now - balance, evmAmount(bytes), "the import's EVM output, on every node")
    console.log(`import X -> C accepted at height ${height} on all five in ${Date.now() - t0} ms`)
  })

  it('an export C -> D issued to node2, then its import on D issued to node4, are accepted on all five', async () => {
    const t0 = Date.now()
    const two = rpcNode(net.node(2))
    const four = rpcNode(net.node(4))
    const amount = 12_345_000_000n
    assert.deepEqual(await same(net.nodes, 'C -> D UTXOs', (n) => utxoIds(n, '/ext/bc/D', 'D', 'C', ctx)), [])
    const cBalance = await same(net.nodes, 'C balance', (n) => evmBalance(rpcNode(n), '/ext/bc/C'))
    const exportBytes = await buildExport(two, ctx, '/ext/bc/C', ctx.cBlockchainID, dId, amount)
    const exportId = await issue(two, '/ext/bc/C', exportBytes)
    const exportHeight = await acceptedEverywhere(net.nodes, '/ext/bc/C', exportId)
    const cNow = await same(net.nodes, 'C balance', (n) => evmBalance(rpcNode(n), '/ext/bc/C'))
    assert.equal(cBalance - cNow, evmAmount(exportBytes), "the export's EVM input (amount and fee), on every node")
    await sameBlock(net.nodes, exportHeight, 'C')
    const waiting = await same(net.nodes, 'C -> D UTXOs', (n) => utxoIds(n, '/ext/bc/D', 'D', 'C', ctx))
    assert.equal(waiting.length, 1)
    const exported = (await utxosFor(four, '/ext/bc/D', 'D', 'C', ctx)) as Utxo[]
    assert.equal(exported[0]!.utxoId.txID.toString(), exportId)
    assert.equal(exported[0]!.ID(), waiting[0])

    const dBalance = await same(net.nodes, 'D balance', (n) => evmBalance(rpcNode(n), '/ext/bc/D'))
    const importBytes = await buildImport(four, ctx, '/ext/bc/D', dId, ctx.cBlockchainID, exported)
    const importId = await issue(four, '/ext/bc/D', importBytes)
    const importHeight = await acceptedEverywhere(net.nodes, '/ext/bc/D', importId)
    await sameBlock(net.nodes, importHeight, 'D')
    assert.deepEqual(await same(net.nodes, 'C -> D UTXOs', (n) => utxoIds(n, '/ext/bc/D', 'D', 'C', ctx)), [])
    const dNow = await same(net.nodes, 'D balance', (n) => evmBalance(rpcNode(n), '/ext/bc/D'))
    assert.equal(dNow - dBalance, evmAmount(importBytes), "the import's EVM output, on every node")
    assert.ok(evmAmount(importBytes) < amount * GWEI, 'less its fee')
    console.log(
      `export C -> D at C height ${exportHeight}, import on D at D height ${importHeight}, on all five in ${Date.now() - t0} ms`,
    )
  })
})
