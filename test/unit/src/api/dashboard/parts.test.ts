/** The dashboard's parts: bounded JSON, the actor registry over a real actor system, the access check, samples. */
import assert from 'node:assert/strict'
import type { IncomingMessage } from 'node:http'
import { describe, it } from 'node:test'
import { assign, createActor, createMachine, fromPromise, setup } from 'xstate'
import { dashboardAccess } from '../../../../../src/api/dashboard/access.js'
import { ActorRegistry } from '../../../../../src/api/dashboard/actors.js'
import { boundedJson } from '../../../../../src/api/dashboard/bounded-json.js'
import { Sampler } from '../../../../../src/api/dashboard/samples.js'
import { dashboardEnabled, isLoopbackHost } from '../../../../../src/config/dashboard.js'
import { loadNodeConfig } from '../../../../../src/config/node-config.js'

describe('boundedJson', () => {
  it('is JSON when it fits, with bigints, bytes, _ fields and cycles handled', () => {
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    const text = boundedJson({ n: 10n, b: new Uint8Array([1, 255]), _hidden: 1, f: () => 1, c: cyclic }, 1000)
    assert.deepEqual(JSON.parse(text), { n: '10', b: '0x01ff', c: { a: 1, self: '(cycle)' } })
    // a value seen twice (not a cycle) is written twice
    const shared = { x: 1 }
    assert.deepEqual(JSON.parse(boundedJson([shared, shared], 100)), [{ x: 1 }, { x: 1 }])
  })

  it('stops at the budget and cuts long arrays, strings and deep nesting', () => {
    const big = { list: Array.from({ length: 100_000 }, (_, i) => ({ i, s: 'x'.repeat(50) })) }
    const text = boundedJson(big, 500)
    assert.ok(text.length <= 501, String(text.length))
    assert.ok(text.endsWith('…'))
    const cut = JSON.parse(boundedJson({ a: Array.from({ length: 40 }, (_, i) => i) }, 10_000)) as { a: unknown[] }
    assert.equal(cut.a.length, 33)
    assert.equal(cut.a[32], '… 8 more')
    assert.match(JSON.parse(boundedJson('y'.repeat(500), 10_000)) as string, /… \(500 chars\)$/)
    let deep: unknown = 'bottom'
    for (let i = 0; i < 20; i++) deep = { d: deep }
    assert.match(boundedJson(deep, 10_000), /"…"/)
  })
})

describe('ActorRegistry', () => {
  it('lists every live actor with parent, systemId, state, context and its recent events', async () => {
    let changes = 0
    const registry = new ActorRegistry({ eventsPerActor: 2, onChange: () => changes++, now: () => 42 })
    const child = createMachine({
      id: 'child',
      initial: 'a',
      context: { n: 0 },
      states: { a: { on: { go: 'b' } }, b: {} },
    })
    const root = setup({
      actors: { child, slot: fromPromise(() => new Promise<void>(() => undefined)) },
    }).createMachine({
      id: 'root',
      context: { count: 0 },
      invoke: [
        { src: 'child', id: 'kid', systemId: 'kid' },
        { src: 'slot', id: 'io' },
      ],
      on: { bump: { actions: assign({ count: ({ context }) => context.count + 1 }) } },
    })
    const actor = createActor(root, { inspect: (ev) => registry.inspect(ev) })
    actor.start()
    for (let i = 0; i < 3; i++) actor.send({ type: 'bump' })
    actor.system.get('kid')!.send({ type: 'go' })
    const rows = registry.rows()
    assert.equal(rows.length, 3)
    const [r, kid, io] = [
      rows.find((x) => x.id === actor.id)!,
      rows.find((x) => x.id === 'kid')!,
      rows.find((x) => x.id === 'io')!,
    ]
    assert.equal(r.parent, undefined)
    assert.equal(r.kind, 'machine')
    assert.deepEqual(JSON.parse(r.context!), { count: 3 })
    // two events kept: the last two bumps
    assert.deepEqual(r.events, [
      { type: 'bump', at: 42 },
      { type: 'bump', at: 42 },
    ])
    assert.equal(kid.parent, r.sessionId)
    assert.equal(kid.systemId, 'kid')
    assert.equal(kid.state, 'b')
    assert.equal(io.kind, 'slot')
    assert.equal(io.state, 'active')
    assert.ok(changes > 0)
    // shared frames carry a context only when it changed since the last shared frame; a first frame has them all
    const context = (rows: ReturnType<typeof registry.rows>) => rows.find((x) => x.id === actor.id)?.context
    assert.equal(context(registry.rows(true)), '{"count":3}')
    assert.equal(context(registry.rows(true)), undefined)
    assert.equal(context(registry.rows()), '{"count":3}')
    actor.send({ type: 'bump' })
    assert.equal(context(registry.rows(true)), '{"count":4}')
    // the ring keeps the last two, oldest first
    assert.equal(registry.rows().find((x) => x.id === actor.id)?.events.length, 2)
    actor.stop()
    assert.deepEqual(registry.rows(), [])
    assert.equal(registry.size, 0)
  })
})

describe('dashboardAccess', () => {
  const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage
  const access = dashboardAccess(['*', 'node.lan'])
  it('takes loopback names, IP literals and listed names, with no Origin or its own', () => {
    for (const host of ['127.0.0.1:9650', '[::1]:9650', 'localhost:9650', 'a.localhost', 'node.lan:9650', '10.0.0.2'])
      assert.equal(access(req({ host })), undefined, host)
    assert.equal(access(req({ host: '127.0.0.1:9650', origin: 'http://127.0.0.1:9650' })), undefined)
  })
  it("refuses other names (the list's * does not count), other origins and a missing Host", () => {
    assert.match(access(req({ host: 'evil.example:9650' })) ?? '', /may not read the dashboard/)
    assert.match(access(req({ host: '127.0.0.1:9650', origin: 'http://evil.example' })) ?? '', /origin/)
    assert.match(access(req({ host: '127.0.0.1:9650', origin: 'http://127.0.0.1:9651' })) ?? '', /origin/)
    assert.match(access(req({})) ?? '', /Host header is required/)
  })
})

describe('Sampler', () => {
  it('counts blocks and txs per interval, keeps a bounded history and a windowed finality', () => {
    let now = 1_000
    let height: number | null = null
    const sampler = new Sampler({
      heights: () => [{ alias: 'C', height }],
      capacity: 3,
      intervalMs: 3_600_000,
      now: () => now,
    })
    try {
      now = 2_000
      assert.deepEqual(sampler.sample().chains.C, { height: null, blocks: 0, txs: 0 })
      assert.equal(sampler.finality('C'), null)
      sampler.accepted('C', { timestampMs: 2_400, txCount: 5 }, 2_500)
      sampler.accepted('C', { timestampMs: 2_600 }, 2_900)
      height = 2
      now = 3_000
      const s = sampler.sample()
      assert.deepEqual(s.chains.C, { height: 2, blocks: 2, txs: 5 })
      assert.equal(s.seconds, 1)
      assert.ok(s.loopDelay.p99 >= 0 && s.rssMb > 0)
      assert.deepEqual(sampler.finality('C'), { lastMs: 300, meanMs: 200, blocks: 2 })
      for (const t of [4_000, 5_000, 6_000]) {
        now = t
        sampler.sample()
      }
      assert.deepEqual(
        sampler.history().map((x) => x.at),
        [4_000, 5_000, 6_000],
      )
      assert.deepEqual(
        sampler.since(4_500).map((x) => x.at),
        [5_000, 6_000],
      )
      // the blocks left the window: the last one is still known
      assert.deepEqual(sampler.finality('C'), { lastMs: 300, meanMs: 0, blocks: 0 })
    } finally {
      sampler.close()
    }
  })
})

describe('--api-dashboard-enabled', () => {
  it('defaults to on with --dev or a loopback --http-host; an explicit value wins', () => {
    assert.equal(dashboardEnabled(undefined, false, '127.0.0.1'), true)
    assert.equal(dashboardEnabled(undefined, false, '::1'), true)
    assert.equal(dashboardEnabled(undefined, false, ''), false)
    assert.equal(dashboardEnabled(undefined, false, '0.0.0.0'), false)
    assert.equal(dashboardEnabled(undefined, true, '0.0.0.0'), true)
    assert.equal(dashboardEnabled(false, true, '127.0.0.1'), false)
    assert.equal(dashboardEnabled(true, false, '0.0.0.0'), true)
    assert.equal(isLoopbackHost('LOCALHOST'), true)
    assert.equal(isLoopbackHost('192.168.1.2'), false)
  })
  it('reaches NodeConfig from the flags and FIRN_API_DASHBOARD_ENABLED', () => {
    const env = { HOME: '/tmp/firn-dashboard-config' }
    assert.equal(loadNodeConfig([], env).dashboard.enabled, true)
    assert.equal(loadNodeConfig(['--http-host='], env).dashboard.enabled, false)
    assert.equal(loadNodeConfig(['--http-host=', '--api-dashboard-enabled'], env).dashboard.enabled, true)
    assert.equal(loadNodeConfig([], { ...env, FIRN_API_DASHBOARD_ENABLED: 'false' }).dashboard.enabled, false)
  })
})
