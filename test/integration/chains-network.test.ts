/**
 * Many chains across five real validators (scripts/network.ts's layout on free ports in a temp dir), every node
 * started with the same `--genesis-file` (D, a second EVM chain, and K, a chain of the example plugin VM
 * examples/plugins/kvvm.mjs, in every node's `--plugin-dir`): each chain runs its own Snowman consensus among the
 * five; both EVM chains finalise the same blocks everywhere; K's puts reach every node; a node that comes back
 * with an empty data dir bootstraps all three chains.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdir, readFile, rm, symlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { idFromAscii, idToString } from '../../src/identity/ids.js'
import { D_CHAIN_ID, devChainsGenesis, writeGenesisFile } from '../helpers/chains-genesis.js'
import {
  assertSameChain,
  type EvmChainRef,
  type FiveNode,
  FiveNodes,
  minHeight,
  post,
  Sender,
  waitFor,
  waitReceipts,
} from '../helpers/five-nodes.js'

/** a plugin file is named by its VM ID (or an alias of --vm-aliases-file); kvvm's ID is `kvvm` zero-padded */
const KVVM_ID = idToString(idFromAscii('kvvm'))
const KVVM = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'plugins', 'kvvm.mjs')
const D: EvmChainRef = { alias: 'D', chainId: BigInt(D_CHAIN_ID) }
const SINK = `0x${'33'.repeat(20)}`

async function kv(node: FiveNode, method: string, params: unknown): Promise<unknown> {
  const reply = await post(`${node.url}/ext/bc/K/kv`, method, params)
  if (reply.status !== 200 || reply.error !== undefined) {
    throw new Error(`${node.name} ${method}: ${reply.status} ${reply.text}`)
  }
  return reply.result
}

async function waitChains(net: FiveNodes, index: number): Promise<void> {
  for (const chain of ['C', 'D', 'K']) await net.waitBootstrapped(index, 180_000, chain)
}

describe('five validators running C, a second EVM chain and a plugin VM chain', { timeout: 900_000 }, () => {
  let net: FiveNodes

  before(async () => {
    net = await FiveNodes.create()
    const genesis = await writeGenesisFile(net.dir, devChainsGenesis([{ name: 'K', vm: 'kvvm', genesis: { a: '1' } }]))
    const plugins = join(net.dir, 'plugins')
    await mkdir(plugins, { recursive: true })
    await symlink(KVVM, join(plugins, `${KVVM_ID}.mjs`))
    process.env.FIRN_CHECK_ACTOR_SNAPSHOTS = '1'
    for (const n of net.nodes) n.layout.args.push(`--genesis-file=${genesis}`, `--plugin-dir=${plugins}`)
    const t0 = Date.now()
    await net.startAll()
    for (const i of [1, 2, 3, 4, 5]) await waitChains(net, i)
    console.log(`five nodes bootstrapped C, D and K in ${Date.now() - t0} ms (${net.dir})`)
  })

  after(async () => {
    await net?.shutdown(process.env.FIRN_KEEP_NETWORK === '1')
  })

  it('every node names D and K with the same chain IDs', async () => {
    for (const alias of ['D', 'K']) {
      const ids = await Promise.all(
        net.nodes.map(async (n) => {
          const r = await post(`${n.url}/ext/info`, 'info.getBlockchainID', { alias })
          return (r.result as { blockchainID: string }).blockchainID
        }),
      )
      assert.equal(new Set(ids).size, 1, `${alias}: ${ids.join(', ')}`)
    }
  })

  it('transfers on C and D at once are final on both, with the same hash at every height on every node', async () => {
    const t0 = Date.now()
    const onC = Sender.ewoq()
    const onD = Sender.ewoq(D)
    await onC.syncNonce(net.node(1))
    await onD.syncNonce(net.node(1))
    const sent = { C: [] as string[], D: [] as string[] }
    await Promise.all(
      [onC, onD].map(async (s) => {
        for (let i = 0; i < 40; i++) sent[s.chain.alias as 'C' | 'D'].push(await s.send(net.nodes[i % 5]!, SINK))
      }),
    )
    for (const chain of ['C', 'D'] as const) {
      await Promise.all(net.nodes.map((n) => waitReceipts(n, sent[chain], 120_000, chain)))
      const tip = await minHeight(net.nodes, chain)
      assert.ok(tip >= 1)
      await assertSameChain(net.nodes, tip, chain)
    }
    const [cGenesis, dGenesis] = await Promise.all([net.node(1).block(0, 'C'), net.node(1).block(0, 'D')])
    assert.notEqual(cGenesis?.hash, dGenesis?.hash)
    console.log(`40 transfers on each of C and D final on all five in ${Date.now() - t0} ms`)
  })

  it("K's puts, sent to different nodes, are accepted everywhere", async () => {
    const t0 = Date.now()
    for (const [i, n] of net.nodes.entries()) await kv(n, 'kv.put', { key: `k${i}`, value: `from ${n.name}` })
    for (const n of net.nodes) {
      assert.deepEqual(await kv(n, 'kv.get', { key: 'a' }), { value: '1' }, 'the genesis value')
      await waitFor(`${n.name} has every put`, 60_000, async () => {
        const got = await Promise.all(net.nodes.map((_, i) => kv(n, 'kv.get', { key: `k${i}` })))
        return got.every((g, i) => (g as { value: string | null }).value === `from ${net.nodes[i]!.name}`)
      })
    }
    console.log(`5 puts accepted on all five in ${Date.now() - t0} ms`)
  })

  it('a node that comes back with an empty data dir bootstraps C, D and K', async () => {
    const four = net.nodes.slice(0, 4)
    const dTip = await minHeight(four, 'D')
    await net.stop(5)
    await rm(net.node(5).layout.dataDir, { recursive: true, force: true })
    const t0 = Date.now()
    await net.start(5)
    await waitChains(net, 5)
    console.log(`node5 bootstrapped C, D and K from an empty data dir in ${Date.now() - t0} ms`)
    const late = net.node(5)
    assert.ok((await late.height('D')) >= dTip)
    await assertSameChain(net.nodes, Math.min(dTip, await minHeight(net.nodes, 'D')), 'D')
    for (let i = 0; i < 5; i++) {
      assert.deepEqual(await kv(late, 'kv.get', { key: `k${i}` }), { value: `from ${net.nodes[i]!.name}` })
    }
  })

  it("no actor context of any chain's actors was ever anything but JSON-safe (FIRN_CHECK_ACTOR_SNAPSHOTS)", async () => {
    for (const n of net.nodes) {
      const out = await readFile(n.layout.logFile, 'utf8')
      const bad = out.split('\n').filter((l) => l.includes('actor context is not JSON-safe'))
      assert.deepEqual(bad, [], `${n.name}: ${bad.slice(0, 3).join('\n')}`)
    }
  })
})
