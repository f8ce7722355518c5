/**
 * `/ext/dashboard` on a real HTTP server (src/api/http/server.ts, port 0): the page's files with their
 * Content-Security-Policy, the event stream (hello, then frames with the samples since the previous one), the
 * cap on pages, and a page that stops reading being dropped once its unsent bytes pass the bound.
 */
import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { Subject } from 'rxjs'
import { createDashboardRoute, type DashboardRoute } from '../../../../../src/api/dashboard/route.js'
import { Sampler } from '../../../../../src/api/dashboard/samples.js'
import { createHttpServer, type HttpApiServer } from '../../../../../src/api/http/server.js'

interface Served {
  http: HttpApiServer
  route: DashboardRoute
  sampler: Sampler
  url: string
  warned: Promise<string>
}

async function serve(
  view: () => object,
  limits: { maxClients?: number; maxBufferedBytes?: number; frameIntervalMs?: number },
): Promise<Served> {
  const http = createHttpServer({
    host: '127.0.0.1',
    port: 0,
    allowedHosts: ['localhost'],
    allowedOrigins: ['*'],
    nodeId: 'NodeID-test',
  })
  const sampler = new Sampler({ heights: () => [{ alias: 'C', height: 1 }], intervalMs: 3_600_000 })
  let warn: (msg: string) => void = () => undefined
  const warned = new Promise<string>((resolve) => {
    warn = resolve
  })
  const route = createDashboardRoute({
    allowedHosts: ['localhost'],
    view,
    sampler,
    changes$: new Subject<void>(),
    log: { debug: () => undefined, warn: (msg) => warn(msg) },
    ...limits,
  })
  for (const endpoint of route.endpoints) http.router.addRoute('dashboard', endpoint, route)
  const bound = await http.listen()
  return { http, route, sampler, url: `http://127.0.0.1:${bound.port}`, warned }
}

/** reads SSE events from a fetch body until `count` events arrived */
async function readEvents(res: Response, count: number): Promise<{ event: string; data: unknown }[]> {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  const out: { event: string; data: unknown }[] = []
  while (out.length < count) {
    const { value, done } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
    let end = text.indexOf('\n\n')
    while (end >= 0) {
      const block = text.slice(0, end)
      text = text.slice(end + 2)
      const event = /^event: (.*)$/m.exec(block)?.[1]
      const data = /^data: (.*)$/m.exec(block)?.[1]
      if (event !== undefined && data !== undefined) out.push({ event, data: JSON.parse(data) })
      end = text.indexOf('\n\n')
    }
  }
  await reader.cancel()
  return out
}

describe('dashboard route', () => {
  let s: Served
  before(async () => {
    s = await serve(() => ({ actors: [], chains: [], peers: [] }), { maxClients: 2, frameIntervalMs: 20 })
  })
  after(async () => {
    s.route.close()
    s.sampler.close()
    await s.http.close()
  })

  it('serves the page and its files with a CSP that keeps the page on this node', async () => {
    const page = await fetch(`${s.url}/ext/dashboard`)
    assert.equal(page.status, 200)
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'; script-src 'self'/)
    const html = await page.text()
    assert.match(html, /\/ext\/dashboard\/dashboard\.js/)
    assert.doesNotMatch(html, /https?:\/\//)
    for (const [file, type] of [
      ['dashboard.js', 'text/javascript'],
      ['dashboard.css', 'text/css'],
    ] as const) {
      const res = await fetch(`${s.url}/ext/dashboard/${file}`)
      assert.equal(res.status, 200)
      assert.match(res.headers.get('content-type') ?? '', new RegExp(type))
      assert.doesNotMatch(await res.text(), /https?:\/\/(?!www\.w3\.org\/2000\/svg)/)
    }
  })

  it('streams hello with the samples kept, then frames with only the new samples', async () => {
    s.sampler.sample()
    const res = await fetch(`${s.url}/ext/dashboard/events`)
    assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8')
    const first = s.route.clients
    assert.equal(first, 1)
    s.sampler.sample()
    const events = await readEvents(res, 4)
    assert.deepEqual(
      events.map((e) => e.event),
      ['hello', 'frame', 'frame', 'frame'],
    )
    const hello = events[0]!.data as { samples: unknown[] }
    assert.ok(hello.samples.length >= 1)
    const frames = events.slice(1).map((e) => e.data as { actors: unknown[]; samples: unknown[] })
    assert.deepEqual(frames[0]!.actors, [])
    // every sample appears in at most one shared frame
    const counted = frames.reduce((n, f) => n + f.samples.length, 0)
    assert.ok(counted <= 2, String(counted))
  })

  it('refuses pages beyond the cap with 503', async () => {
    const controllers = [new AbortController(), new AbortController()]
    const open = await Promise.all(controllers.map((c) => fetch(`${s.url}/ext/dashboard/events`, { signal: c.signal })))
    assert.ok(open.every((r) => r.status === 200))
    const third = await fetch(`${s.url}/ext/dashboard/events`)
    assert.equal(third.status, 503)
    assert.match(await third.text(), /too many dashboard pages open \(at most 2\)/)
    for (const c of controllers) c.abort()
  })
})

describe('dashboard route, a page that does not read', () => {
  it('is dropped once its unsent bytes pass the bound', { timeout: 30_000 }, async () => {
    const big = { actors: [{ context: 'x'.repeat(256 * 1024) }], chains: [], peers: [] }
    const s = await serve(() => big, { maxBufferedBytes: 512 * 1024, frameIntervalMs: 5 })
    const socket = connect(Number(new URL(s.url).port), '127.0.0.1')
    try {
      socket.pause()
      socket.write('GET /ext/dashboard/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
      assert.equal(await s.warned, 'dashboard: dropping a page that does not keep up')
      assert.equal(s.route.clients, 0)
    } finally {
      socket.destroy()
      s.route.close()
      s.sampler.close()
      await s.http.close()
    }
  })
})
