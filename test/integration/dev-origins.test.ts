/**
 * `--dev` is safe on a developer's laptop (issue 14 item 8): against real `firn --dev` processes, a web page of
 * another origin (`Origin: https://evil.example`) is refused on /ext/admin, the chain's /admin, the account and
 * debug methods, WebSocket upgrades and the actor inspector, while loopback pages and tools without an Origin are
 * served; `--http-trusted-origins` widens it.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import WebSocket from 'ws'
import { type FirnProcess, startFirn } from '../helpers/firn-process.js'

const EVIL = 'https://evil.example'
const LOOPBACK_PAGES = ['http://localhost:3000', 'http://127.0.0.1:5173', 'http://[::1]:8080', 'http://localhost']

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

/** One HTTP request with exactly these headers (fetch would add or refuse some). */
function send(url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const text = body === undefined ? undefined : JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method,
      headers: { ...headers, ...(text ? { 'content-type': 'application/json' } : {}) },
    })
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')))
    req.on('error', reject)
    req.on('response', (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      )
    })
    req.end(text)
  })
}

const call = (url: string, method: string, params: unknown, origin?: string) =>
  send(url, 'POST', origin === undefined ? {} : { origin }, { jsonrpc: '2.0', id: 1, method, params })

/** Opens a WebSocket with this Origin: 'open', or the HTTP status the upgrade was refused with. */
function upgrade(url: string, origin: string, headers: Record<string, string> = {}): Promise<number | 'open'> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { origin, headers, handshakeTimeout: 10_000 })
    ws.once('open', () => {
      ws.close()
      resolve('open')
    })
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0)
      res.resume()
      ws.terminate()
    })
    ws.once('error', (err) => reject(err))
  })
}

async function devNodeWithChainAdmin(args: string[] = []): Promise<FirnProcess> {
  const dataDir = await mkdtemp(join(tmpdir(), 'firn-origins-'))
  const chainDir = join(dataDir, 'configs', 'chains', 'C')
  await mkdir(chainDir, { recursive: true })
  await writeFile(join(chainDir, 'config.json'), JSON.stringify({ 'admin-api-enabled': true }))
  return startFirn({ args: ['--dev', '--db-type=memdb', ...args], dataDir })
}

describe('--dev: loopback origins only for the sensitive APIs', () => {
  let node: FirnProcess
  let inspector = ''
  before(async () => {
    node = await devNodeWithChainAdmin(['--inspect-actors', '--inspect-port=0'])
    const m = /actor inspector: open this page.*url="(http:\/\/127\.0\.0\.1:\d+)"/.exec(node.output())
    assert.ok(m, node.output())
    inspector = m[1]!
  })
  after(() => node?.cleanup())

  it('/ext/admin refuses a page of another origin: 403, no CORS allow header, nothing done', async () => {
    const r = await call(`${node.url}/ext/admin`, 'admin.alias', { endpoint: 'info', alias: 'evil' }, EVIL)
    assert.equal(r.status, 403)
    assert.equal(r.headers['access-control-allow-origin'], undefined)
    assert.match(r.text, /origin https:\/\/evil\.example is not allowed.*--http-trusted-origins/)
    // the call never ran: the alias does not exist
    assert.equal((await call(`${node.url}/ext/evil`, 'info.getNodeID', {})).status, 404)
    // the browser's preflight gets no allow headers either
    const pre = await send(`${node.url}/ext/admin`, 'OPTIONS', {
      origin: EVIL,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    })
    assert.equal(pre.status, 200)
    assert.equal(pre.headers['access-control-allow-origin'], undefined)
    // the chain's admin API too
    const chainAdmin = await call(`${node.url}/ext/bc/C/admin`, 'admin.getVMConfig', {}, EVIL)
    assert.equal(chainAdmin.status, 403)
    assert.equal(chainAdmin.headers['access-control-allow-origin'], undefined)
  })

  it('/ext/admin serves loopback pages (with their CORS allow header) and tools without an Origin', async () => {
    for (const origin of LOOPBACK_PAGES) {
      const r = await call(`${node.url}/ext/admin`, 'admin.getLoggerLevel', { loggerName: 'main' }, origin)
      assert.equal(r.status, 200, `${origin}: ${r.text}`)
      assert.equal(r.headers['access-control-allow-origin'], origin)
      assert.ok(JSON.parse(r.text).result.loggerLevels.main)
    }
    const pre = await send(`${node.url}/ext/admin`, 'OPTIONS', {
      origin: 'http://localhost:3000',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    })
    assert.equal(pre.headers['access-control-allow-origin'], 'http://localhost:3000')
    const tool = await call(`${node.url}/ext/admin`, 'admin.getLoggerLevel', { loggerName: 'main' })
    assert.equal(tool.status, 200)
    assert.equal(
      (await call(`${node.url}/ext/bc/C/admin`, 'admin.getVMConfig', {}, 'http://127.0.0.1:3000')).status,
      200,
    )
  })

  it('the account and debug methods refuse other origins; the rest of eth is served to any page', async () => {
    const rpcUrl = `${node.url}/ext/bc/C/rpc`
    const block = await call(rpcUrl, 'eth_blockNumber', [], EVIL)
    assert.equal(block.status, 200)
    assert.equal(block.headers['access-control-allow-origin'], '*')
    assert.match(JSON.parse(block.text).result, /^0x[0-9a-f]+$/)
    for (const [method, params] of [
      ['personal_listAccounts', []],
      ['personal_unlockAccount', ['0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC', 'pw', 60]],
      ['eth_accounts', []],
      ['eth_sendTransaction', [{ from: '0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC', to: null }]],
      ['eth_sign', ['0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC', '0x00']],
      ['debug_traceBlockByNumber', ['latest', {}]],
    ] as const) {
      const r = JSON.parse((await call(rpcUrl, method, params, EVIL)).text)
      assert.equal(r.error?.code, -32000, `${method}: ${JSON.stringify(r)}`)
      assert.match(r.error.message, new RegExp(`^${method} is not available to web pages of other origins`))
    }
    // the same methods answer a loopback page and a tool
    for (const origin of ['http://localhost:3000', undefined]) {
      const r = JSON.parse((await call(rpcUrl, 'personal_listAccounts', [], origin)).text)
      assert.ok(Array.isArray(r.result), JSON.stringify(r))
      // the method ran (genesis is the only block: the tracer's own answer)
      const t = JSON.parse((await call(rpcUrl, 'debug_traceBlockByNumber', ['0x0', {}], origin)).text)
      assert.deepEqual(t.error, { code: -32000, message: 'genesis is not traceable' })
    }
  })

  it('a WebSocket upgrade from another origin is refused; loopback pages and tools get one', async () => {
    const ws = `${node.url.replace('http', 'ws')}/ext/bc/C/ws`
    assert.equal(await upgrade(ws, EVIL), 403)
    assert.equal(await upgrade(ws, 'null'), 403)
    assert.equal(await upgrade(ws, 'http://localhost:3000'), 'open')
    const tool = new WebSocket(ws)
    await new Promise((resolve, reject) => tool.once('open', resolve).once('error', reject))
    tool.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }))
    const data = await new Promise<WebSocket.RawData>((resolve) => tool.once('message', (d) => resolve(d)))
    assert.deepEqual(JSON.parse(data.toString()).result, '0xa868')
    tool.close()
  })

  it('the actor inspector checks Host and the WebSocket Origin', async () => {
    const events = `${inspector.replace('http', 'ws')}/events`
    assert.equal(await upgrade(events, EVIL), 403)
    assert.equal(await upgrade(events, inspector), 'open')
    // a DNS-rebound name pointing at 127.0.0.1
    assert.equal(await upgrade(events, inspector, { host: 'evil.example' }), 403)
    assert.equal((await send(inspector, 'GET', { host: 'evil.example' })).status, 403)
    assert.equal((await send(inspector, 'GET', {})).status, 200)
  })
})

describe('--http-trusted-origins widens what --dev allows', () => {
  let node: FirnProcess
  before(async () => {
    node = await devNodeWithChainAdmin(['--http-trusted-origins=https://app.example http://localhost:*'])
  })
  after(() => node?.cleanup())

  it('serves the listed origins and still refuses the others', async () => {
    const app = await call(
      `${node.url}/ext/admin`,
      'admin.getLoggerLevel',
      { loggerName: 'main' },
      'https://app.example',
    )
    assert.equal(app.status, 200)
    assert.equal(app.headers['access-control-allow-origin'], 'https://app.example')
    assert.equal((await call(`${node.url}/ext/admin`, 'admin.getLoggerLevel', {}, EVIL)).status, 403)
    // the list replaces the loopback default: 127.0.0.1 is not in it
    assert.equal((await call(`${node.url}/ext/admin`, 'admin.getLoggerLevel', {}, 'http://127.0.0.1:3000')).status, 403)
    const ws = `${node.url.replace('http', 'ws')}/ext/bc/C/ws`
    assert.equal(await upgrade(ws, 'https://app.example'), 'open')
    assert.equal(await upgrade(ws, EVIL), 403)
  })
})

describe('--http-trusted-origins=* serves every page, as the reference does', () => {
  let node: FirnProcess
  before(async () => {
    node = await devNodeWithChainAdmin(['--http-trusted-origins=*'])
  })
  after(() => node?.cleanup())

  it('admin, the account methods and WebSockets answer any origin', async () => {
    const r = await call(`${node.url}/ext/admin`, 'admin.getLoggerLevel', { loggerName: 'main' }, EVIL)
    assert.equal(r.status, 200)
    assert.equal(r.headers['access-control-allow-origin'], '*')
    const accounts = JSON.parse((await call(`${node.url}/ext/bc/C/rpc`, 'personal_listAccounts', [], EVIL)).text)
    assert.ok(Array.isArray(accounts.result))
    assert.equal(await upgrade(`${node.url.replace('http', 'ws')}/ext/bc/C/ws`, EVIL), 'open')
  })
})
