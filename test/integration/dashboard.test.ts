/**
 * The dashboard in a real headless Chromium (playwright-core, Debian's chromium or $CHROMIUM) against a real
 * `firn --dev` process: the page loads with every request it makes going to the node on 127.0.0.1, shows the
 * actor tree (node, network, chain:C, profiler ... with their states) and changes when the CPU profiler starts
 * over JSON-RPC. The node runs with `--http-allowed-hosts=*` so the dashboard's own Host check (not the server's
 * filter) is what refuses a foreign Host.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { type Browser, chromium, type Page } from 'playwright-core'
import { type FirnProcess, startFirn } from '../helpers/firn-process.js'

/** the text of the state shown for the actor listed as `name` */
const stateOf = (page: Page, name: string): Promise<string | null> =>
  page
    .locator(`li[data-actor="${name}"] > details > summary > .state`)
    .first()
    .getAttribute('data-state', { timeout: 10_000 })

/** the state shown for `name` once it starts with `prefix` (the page's CSP forbids evaluated strings) */
const stateStarting = (page: Page, name: string, prefix: string) =>
  page.locator(`li[data-actor="${name}"] > details > summary > .state[data-state^=${JSON.stringify(prefix)}]`).first()

/** a GET with the headers given (fetch forbids setting Host) */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      let body = ''
      res.on('data', (d: Buffer) => {
        body += d.toString()
        // an event stream that was accepted: enough to know
        if (res.statusCode === 200) res.destroy()
      })
      res.on('close', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('dashboard', () => {
  let node: FirnProcess
  let browser: Browser
  before(async () => {
    node = await startFirn({ args: ['--dev', '--db-type=memdb', '--http-allowed-hosts=*'] })
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox'],
    })
  })
  after(async () => {
    await browser?.close()
    await node?.cleanup()
  })

  it('loads from the node alone, shows the actor tree, and follows the CPU profiler', async () => {
    const page = await browser.newPage()
    const requests: string[] = []
    const problems: string[] = []
    page.on('request', (r) => requests.push(r.url()))
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text())
    })
    page.on('pageerror', (e) => problems.push(e.message))
    try {
      const res = await page.goto(`${node.url}/ext/dashboard`)
      assert.equal(res?.status(), 200)
      assert.equal(await page.title(), 'Firn dashboard')

      // the tree: the root, its children under it, and the chain's own actors under the chain
      await page.locator('#conn.live').waitFor({ timeout: 10_000 })
      assert.equal(await stateOf(page, 'node'), 'running.vms: idle')
      for (const name of ['network', 'chain:C', 'profiler']) {
        assert.equal(await page.locator(`li[data-actor="node"] li[data-actor="${name}"]`).count(), 1, name)
      }
      assert.equal(await stateOf(page, 'chain:C'), 'normalOp')
      assert.equal(await page.locator('li[data-actor="chain:C"] li[data-actor="benchlist:C"]').count(), 1)
      assert.equal(await page.locator('li[data-actor="chain:C"] li[data-actor="producer:C"]').count(), 1)
      assert.equal(await stateOf(page, 'profiler'), 'cpu: idle · snapshot: ready')
      // the chain's card and the charts are drawn
      assert.match((await page.locator('[data-chain="C"]').textContent()) ?? '', /normalOp/)
      await page.locator('#chart-loop polyline').first().waitFor({ timeout: 10_000 })

      // an actor opened shows its context and its recent events
      await page.locator('li[data-actor="profiler"] > details > summary').first().click()
      const detail = page.locator('li[data-actor="profiler"] > details > .detail').first()
      await detail.locator('pre').waitFor()
      assert.match((await detail.textContent()) ?? '', /recent events/)

      // a command over JSON-RPC moves the profiler; the page follows
      const started = await node.rpc('/ext/admin', 'admin.startCPUProfiler')
      assert.deepEqual(started.body.result, {})
      await stateStarting(page, 'profiler', 'cpu: running').waitFor({ timeout: 10_000 })
      // still open after the re-renders
      assert.equal(await page.locator('li[data-actor="profiler"] > details[open]').count(), 1)
      const stopped = await node.rpc('/ext/admin', 'admin.stopCPUProfiler')
      assert.deepEqual(stopped.body.result, {})
      await stateStarting(page, 'profiler', 'cpu: idle').waitFor({ timeout: 10_000 })
      assert.equal(await stateOf(page, 'profiler'), 'cpu: idle · snapshot: ready')

      // nothing left 127.0.0.1 (a data: URL never leaves the page)
      assert.ok(requests.length >= 4, requests.join('\n'))
      const host = new URL(node.url).host
      for (const url of requests) {
        if (url.startsWith('data:')) continue
        assert.equal(new URL(url).host, host, url)
      }
      assert.deepEqual(problems, [])
    } finally {
      await page.close()
    }
  })

  it("refuses another site's page and a foreign Host, and serves only GET", async () => {
    const events = `${node.url}/ext/dashboard/events`
    const host = new URL(node.url).host
    const cross = await get(events, { Origin: 'http://evil.example' })
    assert.equal(cross.status, 403)
    assert.match(cross.body, /origin "http:\/\/evil.example" may not read the dashboard/)
    const rebound = await get(events, { Host: `evil.example:${new URL(node.url).port}` })
    assert.equal(rebound.status, 403)
    assert.match(rebound.body, /host "evil.example:\d+" may not read the dashboard/)
    assert.equal((await get(events, { Origin: `http://${host}` })).status, 200)
    assert.equal((await get(events, { Host: `localhost:${new URL(node.url).port}` })).status, 200)
    const post = await fetch(`${node.url}/ext/dashboard`, { method: 'POST', body: '{}' })
    assert.equal(post.status, 405)
    assert.equal((await fetch(`${node.url}/ext/dashboard/other`)).status, 404)
  })
})
