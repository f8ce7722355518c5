/**
 * HTTPS with the reference's flags (issue 14 item 8), against real `firn --dev` processes and a self-signed
 * certificate made here with `openssl`: ethers over https (trusting the test certificate), a JSON-RPC call to
 * /ext/info, wss for /ext/bc/C/ws, the `-content` (base64) forms, and the start-up errors for bad TLS input.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { Agent, request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { FetchRequest, JsonRpcProvider, parseEther, Wallet } from 'ethers'
import WebSocket from 'ws'
import { EWOQ_PRIVATE_KEY } from '../../src/chains/evm/rules/presets.js'
import { type FirnProcess, runFirnToExit, startFirn } from '../helpers/firn-process.js'

const run = promisify(execFile)

/** A self-signed P-256 certificate for 127.0.0.1 and localhost, valid for a day. */
async function selfSigned(dir: string): Promise<{ certFile: string; keyFile: string; cert: string; key: string }> {
  const certFile = join(dir, 'cert.pem')
  const keyFile = join(dir, 'key.pem')
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    certFile,
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
  ])
  return { certFile, keyFile, cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') }
}

/** JSON-RPC over https, trusting `ca`. */
function httpsCall(url: string, ca: string, method: string, params: unknown): Promise<Record<string, unknown>> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', ca, headers: { 'content-type': 'application/json' } })
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')))
    req.on('error', reject)
    req.on('response', (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))))
    })
    req.end(body)
  })
}

describe('HTTPS (--http-tls-enabled)', () => {
  let dir = ''
  let tls: Awaited<ReturnType<typeof selfSigned>>
  let node: FirnProcess
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firn-tls-'))
    tls = await selfSigned(dir)
    node = await startFirn({
      args: [
        '--dev',
        '--db-type=memdb',
        '--http-tls-enabled',
        `--http-tls-cert-file=${tls.certFile}`,
        `--http-tls-key-file=${tls.keyFile}`,
      ],
    })
  })
  after(async () => {
    await node?.cleanup()
    await rm(dir, { recursive: true, force: true })
  })

  it('announces an https URI', () => {
    assert.match(node.url, /^https:\/\/127\.0\.0\.1:\d+$/)
  })

  it('ethers drives the C chain over https, trusting the test certificate', async () => {
    const req = new FetchRequest(`${node.url}/ext/bc/C/rpc`)
    req.getUrlFunc = FetchRequest.createGetUrlFunc({ agent: new Agent({ ca: tls.cert }) })
    const provider = new JsonRpcProvider(req, 43112, { staticNetwork: true })
    try {
      assert.equal((await provider.getNetwork()).chainId, 43112n)
      const wallet = new Wallet(EWOQ_PRIVATE_KEY, provider)
      const to = Wallet.createRandom().address
      const receipt = await (await wallet.sendTransaction({ to, value: parseEther('1') })).wait()
      assert.equal(receipt?.status, 1)
      assert.equal(await provider.getBalance(to), parseEther('1'))
    } finally {
      provider.destroy()
    }
  })

  it('the node APIs answer over https: info.getNodeID', async () => {
    const r = await httpsCall(`${node.url}/ext/info`, tls.cert, 'info.getNodeID', {})
    assert.match((r.result as { nodeID: string }).nodeID, /^NodeID-/)
  })

  it('refuses a client that does not trust the certificate', async () => {
    await assert.rejects(fetch(`${node.url}/ext/info`, { method: 'POST', body: '{}' }), TypeError)
  })

  it('serves /ext/bc/C/ws as wss', async () => {
    const ws = new WebSocket(`${node.url.replace('https', 'wss')}/ext/bc/C/ws`, { ca: tls.cert })
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] }))
    const data = await new Promise<WebSocket.RawData>((resolve) => ws.once('message', (d) => resolve(d)))
    assert.deepEqual(JSON.parse(data.toString()), { jsonrpc: '2.0', id: 7, result: '0xa868' })
    ws.close()
  })

  it('takes the certificate and key as base64 content too', async (t) => {
    const b64 = (text: string) => Buffer.from(text).toString('base64')
    const other = await startFirn({
      args: [
        '--dev',
        '--db-type=memdb',
        '--http-tls-enabled',
        `--http-tls-cert-file-content=${b64(tls.cert)}`,
        `--http-tls-key-file-content=${b64(tls.key)}`,
      ],
    })
    t.after(() => other.cleanup())
    assert.match(other.url, /^https:/)
    const r = await httpsCall(`${other.url}/ext/info`, tls.cert, 'info.getNetworkID', {})
    assert.deepEqual(r.result, { networkID: '12345' })
  })

  it('a bad certificate or key refuses to start with a clear error', async () => {
    const garbage = join(dir, 'garbage.pem')
    await writeFile(garbage, 'not a certificate\n')
    const bad = await runFirnToExit([
      '--dev',
      '--db-type=memdb',
      `--data-dir=${join(dir, 'bad')}`,
      '--http-tls-enabled',
      `--http-tls-cert-file=${garbage}`,
      `--http-tls-key-file=${tls.keyFile}`,
    ])
    assert.notEqual(bad.code, 0)
    assert.ok(
      bad.output.includes(`invalid HTTPS certificate or key (--http-tls-cert-file ${garbage}, --http-tls-key-file`),
      bad.output,
    )
    assert.match(bad.output, /PEM|no start line/)

    const missing = await runFirnToExit([
      '--dev',
      `--data-dir=${join(dir, 'bad')}`,
      '--http-tls-enabled',
      `--http-tls-cert-file=${join(dir, 'nope.pem')}`,
      `--http-tls-key-file=${tls.keyFile}`,
    ])
    assert.notEqual(missing.code, 0)
    assert.ok(missing.output.includes(`couldn't read the HTTPS cert file ${join(dir, 'nope.pem')}: ENOENT`))

    const badBase64 = await runFirnToExit([
      '--dev',
      `--data-dir=${join(dir, 'bad')}`,
      '--http-tls-enabled',
      '--http-tls-cert-file-content=not*base64',
      `--http-tls-key-file=${tls.keyFile}`,
    ])
    assert.notEqual(badBase64.code, 0)
    assert.ok(badBase64.output.includes('unable to decode base64 content: illegal base64 data at input byte 3'))

    const noCert = await runFirnToExit(['--dev', `--data-dir=${join(dir, 'bad')}`, '--http-tls-enabled'])
    assert.notEqual(noCert.code, 0)
    assert.ok(noCert.output.includes('--http-tls-enabled needs a certificate'))
  })
})
