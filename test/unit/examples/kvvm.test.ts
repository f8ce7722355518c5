/**
 * The example plugin VM (examples/plugins/kvvm.mjs) driven through the ChainVm interface in process: two VMs on
 * their own in-memory databases, their app gossip wired to each other, their /kv handlers served by Firn's real
 * gorilla endpoint.
 */
import '../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { before, describe, it } from 'node:test'
import { MemoryLevel } from 'memory-level'
import { firstValueFrom } from 'rxjs'
import { createJsonRpcEndpoint } from '../../../src/api/jsonrpc/service.js'
import {
  type AppSender,
  type ChainDatabase,
  type ChainVm,
  chainVmProblem,
  type VmBlock,
  type VmFactory,
} from '../../../src/chains/vm.js'

const KVVM_URL = new URL('../../../examples/plugins/kvvm.mjs', import.meta.url).href
const GENESIS = { hello: 'world', answer: '42' }
const encode = (v: unknown) => new TextEncoder().encode(JSON.stringify(v))

let kvvm: VmFactory
let LIMITS: { valueBytes: number; putsPerBlock: number; futureMs: number }
before(async () => {
  const mod = (await import(KVVM_URL)) as { default: VmFactory; LIMITS: typeof LIMITS }
  kvvm = mod.default
  LIMITS = mod.LIMITS
})

/** Nodes of one test: each VM's gossip reaches the others' appGossip on a later turn, as over a network. */
class TestNet {
  readonly vms = new Map<string, ChainVm>()
  readonly logs: string[] = []

  app(self: string): AppSender {
    return {
      request: () => Promise.reject(new Error('no app requests in this test')),
      gossip: (nodeIds, bytes) => {
        for (const id of nodeIds) setImmediate(() => this.vms.get(id)?.appGossip?.(self, bytes))
      },
      connected: () => [...this.vms.keys()].filter((id) => id !== self),
      validators: () => [...this.vms.keys()].map((nodeId) => ({ nodeId, weight: 1n })),
    }
  }

  async start(nodeId: string, db: ChainDatabase = newDb(), genesis: unknown = GENESIS): Promise<ChainVm> {
    const vm = await kvvm.createVM()
    const log = (level: string) => (msg: string) => this.logs.push(`${nodeId} ${level} ${msg}`)
    await vm.initialize({
      networkId: 12345,
      chainId: 'kv-chain',
      alias: 'kv',
      nodeId,
      db,
      dataDir: '',
      log: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
      genesis,
      config: '',
      dev: true,
      app: this.app(nodeId),
    })
    this.vms.set(nodeId, vm)
    return vm
  }
}

const newDb = (): ChainDatabase =>
  new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' }) as unknown as ChainDatabase

/** kv.* over Firn's gorilla endpoint, as /ext/bc/<chain>/kv serves it: the result, or the error object. */
async function kv(vm: ChainVm, method: string, params: unknown): Promise<{ result?: unknown; error?: unknown }> {
  const handler = (await vm.createHandlers())['/kv']
  assert.equal(handler?.kind, 'jsonrpc')
  if (handler?.kind !== 'jsonrpc') throw new Error('unreachable')
  const endpoint = createJsonRpcEndpoint(handler.services)
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })
  return JSON.parse((await endpoint.handle(body, { remoteAddress: '127.0.0.1' })) ?? 'null')
}
const get = async (vm: ChainVm, key: string) => ((await kv(vm, 'kv.get', { key })).result as { value: unknown }).value
const put = async (vm: ChainVm, key: string, value: string) => {
  const r = await kv(vm, 'kv.put', { key, value })
  assert.equal(r.error, undefined, JSON.stringify(r.error))
  return (r.result as { id: string }).id
}

/** Verifying these bytes fails with `reason` (or parsing them does). */
async function refused(vm: ChainVm, bytes: Uint8Array, reason: string | RegExp): Promise<void> {
  await assert.rejects(
    async () => (await vm.parseBlock(bytes)).verify(),
    (err: Error) => {
      if (typeof reason === 'string') assert.equal(err.message, reason)
      else assert.match(err.message, reason)
      return true
    },
  )
}

describe('kvvm (examples/plugins/kvvm.mjs) through the ChainVm interface', () => {
  it('imports nothing of Firn: only node built-ins and rxjs', async () => {
    const text = await readFile(new URL(KVVM_URL), 'utf8')
    const specifiers = [...text.matchAll(/^import .* from '([^']+)'$/gm)].map((m) => m[1])
    assert.deepEqual(specifiers, ['node:crypto', 'rxjs'])
  })

  it('implements the interface and starts from its genesis map, the same block on every node', async () => {
    assert.equal(chainVmProblem(await kvvm.createVM()), null)
    assert.equal(kvvm.version, 'v0.1.0')
    assert.deepEqual(kvvm.aliases, ['kvvm'])
    const net = new TestNet()
    const a = await net.start('A')
    const b = await net.start('B')
    const genesis = a.lastAccepted()
    assert.equal(genesis.height, 0)
    assert.match(genesis.id, /^0x[0-9a-f]{64}$/)
    assert.deepEqual(b.lastAccepted(), genesis)
    assert.equal(await a.acceptedIdAt(0), genesis.id)
    assert.equal(await a.acceptedIdAt(1), undefined)
    assert.equal(await get(a, 'hello'), 'world')
    assert.equal(await get(a, 'answer'), '42')
    assert.equal(await get(a, 'nothing'), null)
    assert.equal(a.hasPending(), false)
    assert.equal(await a.buildBlock(), undefined)
    const other = await new TestNet().start('C', newDb(), { hello: 'there' })
    assert.notEqual(other.lastAccepted().id, genesis.id, 'another genesis is another chain')
  })

  it('kv.put gossips to the others; build -> parse -> verify -> accept applies it on every node', async () => {
    const net = new TestNet()
    const a = await net.start('A')
    const b = await net.start('B')
    const aSignal = firstValueFrom(a.pending$)
    const bSignal = firstValueFrom(b.pending$)
    const id = await put(a, 'colour', 'blue')
    assert.match(id, /^0x[0-9a-f]{64}$/)
    await aSignal
    assert.equal(a.hasPending(), true)
    await bSignal // the gossip arrived
    assert.equal(b.hasPending(), true)
    assert.equal(await get(a, 'colour'), null, 'nothing applies before acceptance')

    const built = await a.buildBlock()
    assert.ok(built)
    const genesis = a.lastAccepted()
    assert.equal(built.parentId, genesis.id)
    assert.equal(built.height, 1)
    assert.equal(a.hasPending(), true, 'built on genesis, preferred: genesis, where the put does not sit yet')
    a.setPreference(built.id) // as consensus does with the block it issues
    assert.equal(a.hasPending(), false, 'what waits is in the preferred processing block')
    assert.equal((await a.getBlock(built.id))?.id, built.id)

    const parsed = await b.parseBlock(built.bytes)
    assert.deepEqual(
      [parsed.id, parsed.parentId, parsed.height, parsed.timestampMs],
      [built.id, built.parentId, built.height, built.timestampMs],
    )
    assert.equal(await b.getBlock(parsed.id), undefined, 'parsed, not verified: unknown yet')
    await parsed.verify()
    b.setPreference(parsed.id)
    assert.equal(b.hasPending(), false)

    await built.accept()
    await parsed.accept()
    for (const vm of [a, b]) {
      assert.deepEqual(vm.lastAccepted(), { id: built.id, height: 1 })
      assert.equal(await vm.acceptedIdAt(1), built.id)
      assert.equal(await get(vm, 'colour'), 'blue')
      assert.equal(await get(vm, 'hello'), 'world')
      assert.equal(vm.hasPending(), false)
      assert.equal(await vm.buildBlock(), undefined)
      assert.deepEqual((await vm.getBlock(built.id))?.bytes, built.bytes)
    }
    // the same put heard again after acceptance does not apply twice
    a.appGossip?.('B', encode({ puts: (JSON.parse(new TextDecoder().decode(built.bytes)) as { puts: [] }).puts }))
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(await a.buildBlock(), undefined)
  })

  it('refuses blocks that break the rules, with the reason', async () => {
    const net = new TestNet()
    const a = await net.start('A')
    const g = a.lastAccepted()
    const now = Date.now()
    const p = (key: string, value = 'v', nonce = 'n') => ({ key, value, nonce })
    const block = (fields: Record<string, unknown>) =>
      encode({ parentId: g.id, height: 1, timestampMs: now, puts: [p('k')], ...fields })

    await refused(a, new Uint8Array([1, 2, 3]), 'not a kvvm block: not JSON')
    await refused(a, encode({ parentId: g.id }), 'not a kvvm block: wrong fields')
    await refused(a, encode({ parentId: [g.id], height: 1, timestampMs: now, puts: [p('k')] }), /wrong fields/)
    await refused(a, encode(null), /wrong fields/)
    await refused(
      a,
      encode({ parentId: g.id, height: 1, timestampMs: now, puts: [{ key: 1, value: '', nonce: '' }] }),
      /wrong fields/,
    )
    await refused(
      a,
      new TextEncoder().encode(` ${new TextDecoder().decode(block({}))}`),
      'not a kvvm block: not canonical',
    )
    await refused(
      a,
      block({ parentId: `0x${'ab'.repeat(32)}` }),
      /^parent 0xabab.* is not the last accepted or a processing block$/,
    )
    await refused(a, block({ height: 2 }), 'height 2 is not 1')
    await refused(a, block({ timestampMs: now + LIMITS.futureMs + 60_000 }), /is in the future$/)
    await refused(a, block({ puts: [] }), `a block holds 1 to ${LIMITS.putsPerBlock} puts`)
    await refused(a, block({ puts: [p('')] }), 'bad put: key must be text of 1 to 128 bytes')
    await refused(a, block({ puts: [p('k', 'x'.repeat(LIMITS.valueBytes + 1))] }), /^bad put: value must be text/)
    await refused(a, block({ puts: [p('k'), p('k')] }), /^put 0x[0-9a-f]{64} is already on this branch$/)

    // a put that is on the parent's branch, or accepted, cannot come again
    const b1 = await a.parseBlock(block({ puts: [p('k', 'one')] }))
    await b1.verify()
    const child = (puts: unknown[]) => encode({ parentId: b1.id, height: 2, timestampMs: now, puts })
    await refused(a, child([p('k', 'one')]), /is already on this branch$/)
    await b1.accept()
    await refused(a, block({ parentId: b1.id, height: 2, puts: [p('k', 'one')] }), /is already accepted$/)
    await refused(a, block({ height: 1, timestampMs: now - 1 }), /^parent .* is not the last accepted/)
    const early = block({ parentId: b1.id, height: 2, timestampMs: now - 1, puts: [p('x')] })
    await refused(a, early, `time ${now - 1} is before its parent's`)
    // an accepted block verifies again without effect
    await (await a.parseBlock(b1.bytes)).verify()
  })

  it('a rejected block is forgotten and its puts wait for the next block', async () => {
    const net = new TestNet()
    const a = await net.start('A')
    const genesis = a.lastAccepted().id
    await put(a, 'x', '1')
    const first = (await a.buildBlock())!
    a.setPreference(genesis) // build a competitor on genesis: it takes x again, and y
    await put(a, 'y', '2')
    const rival = (await a.buildBlock())!
    assert.equal(rival.parentId, genesis)
    assert.notEqual(rival.id, first.id)
    await first.accept()
    await rival.reject()
    assert.equal(await a.getBlock(rival.id), undefined)
    assert.equal(await get(a, 'x'), '1')
    assert.equal(await get(a, 'y'), null)
    assert.equal(a.hasPending(), true, 'y waits')
    const next = (await a.buildBlock())!
    assert.equal(next.parentId, first.id)
    assert.equal(
      (JSON.parse(new TextDecoder().decode(next.bytes)) as { puts: { key: string }[] }).puts.map((p) => p.key).join(),
      'y',
    )
    await next.accept()
    assert.equal(await get(a, 'y'), '2')
  })

  it('accept writes `extra` in the block batch, and a restart finds the chain where it was', async () => {
    const net = new TestNet()
    const db = newDb()
    const a = await net.start('A', db)
    await put(a, 'kept', 'yes')
    const block: VmBlock = (await a.buildBlock())!
    const proposer = db.sublevel<Uint8Array, Uint8Array>('proposer', { keyEncoding: 'view', valueEncoding: 'view' })
    await block.accept([{ sublevel: proposer, key: new Uint8Array([1]), value: new Uint8Array([2]) }])
    assert.deepEqual([...((await proposer.get(new Uint8Array([1]))) ?? [])], [2])
    await a.shutdown()

    const again = await new TestNet().start('A', db, { ignored: 'the genesis is written once' })
    assert.deepEqual(again.lastAccepted(), { id: block.id, height: 1 })
    assert.equal(await get(again, 'kept'), 'yes')
    assert.equal(await get(again, 'hello'), 'world')
    assert.equal(await get(again, 'ignored'), null)
  })

  it('answers kv.put and kv.get errors as JSON-RPC errors; health until shut down', async () => {
    const a = await new TestNet().start('A')
    const error = (message: string) => ({ code: -32000, message, data: null })
    assert.deepEqual((await kv(a, 'kv.put', { key: 'k' })).error, error('value must be a string'))
    assert.deepEqual(
      (await kv(a, 'kv.put', { key: '', value: 'v' })).error,
      error('key must be text of 1 to 128 bytes'),
    )
    assert.deepEqual((await kv(a, 'kv.get', {})).error, error('key must be a string'))
    assert.deepEqual((await kv(a, 'kv.nope', {})).error, error('rpc: can\'t find method "kv.Nope"'))
    assert.deepEqual((await kv(a, 'kv.get', [{ key: 'hello' }])).result, { value: 'world' })

    const health = (await a.health()) as { lastAccepted: unknown; pendingPuts: number }
    assert.deepEqual(health.lastAccepted, a.lastAccepted())
    assert.equal(health.pendingPuts, 0)
    let completed = false
    a.pending$.subscribe({
      complete: () => {
        completed = true
      },
    })
    await a.shutdown()
    assert.equal(completed, true)
    await assert.rejects(a.health(), { message: 'kvvm is shut down' })
  })

  it('refuses a genesis that is not a map of strings', async () => {
    await assert.rejects(new TestNet().start('A', newDb(), ['a']), {
      message: 'kvvm genesis must be an object of strings',
    })
    await assert.rejects(new TestNet().start('A', newDb(), { k: 1 }), {
      message: 'kvvm genesis: "k": value must be text of at most 1024 bytes',
    })
  })
})
