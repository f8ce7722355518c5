/**
 * The `firn` process from the outside: version flags, refused configurations (nothing written, exit 1),
 * env vars and config files, identity files and restarts, process.json, and graceful shutdown.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { access, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { runFirnToExit, startFirn } from '../helpers/firn-process.js'

/** fetch cannot set Host: a raw node:http request with a chosen Host header */
function postWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { host, 'content-type': 'application/json' } }, (res) => {
      let body = ''
      res.on('data', (d) => {
        body += d
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end('{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID"}')
  })
}

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  )

describe('firn command line', () => {
  it('--version and --version-json', async () => {
    const v = await runFirnToExit(['--version'])
    assert.equal(v.code, 0)
    assert.match(
      v.output,
      /^firn\/\d+\.\d+\.\d+ \[database=v[\d.]+, rpcchainvm=\d+, commit=[0-9a-f]*, node=v[\d.]+\]\n$/,
    )
    const j = await runFirnToExit(['--version-json'])
    assert.equal(j.code, 0)
    assert.deepEqual(Object.keys(JSON.parse(j.output)), ['application', 'database', 'rpcchainvm', 'commit', 'node'])
    const both = await runFirnToExit(['--version', '--version-json'])
    assert.equal(both.code, 1)
    assert.equal(both.output, "can't print both JSON and human readable versions\n")
  })

  it('refuses bad flags and values before writing anything', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'firn-bad-')), 'data')
    const cases: [string[], string][] = [
      [['--nope'], "couldn't configure flags: unknown flag: --nope\n"],
      [
        ['--http-port=x'],
        `couldn't configure flags: invalid argument "x" for "--http-port" flag: strconv.ParseUint: parsing "x": invalid syntax\n`,
      ],
      [['--network-id=mars'], `couldn't load node config: failed to parse network name: "mars"\n`],
      [['--log-level=loud'], `couldn't load node config: unknown log level: "loud"\n`],
      [['--db-type=rocks'], "couldn't load node config: db-type must be one of {leveldb, memdb}\n"],
    ]
    for (const [args, message] of cases) {
      const r = await runFirnToExit([`--data-dir=${dir}`, ...args])
      assert.equal(r.code, 1, args.join(' '))
      assert.equal(r.output, message)
      assert.equal(await exists(dir), false, 'nothing written')
    }
    const env = await runFirnToExit([`--data-dir=${dir}`], { FIRN_UPTIME_REQUIREMENT: '2' })
    assert.equal(env.output, "couldn't load node config: uptime requirement must be in the range [0, 1]\n")
    await rm(join(dir, '..'), { recursive: true, force: true })
  })

  it('an explicit staking key that is missing stops the start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'firn-key-'))
    const r = await runFirnToExit([`--data-dir=${dir}`, '--http-port=0', `--staking-tls-key-file=${dir}/none.key`])
    assert.equal(r.code, 1)
    assert.match(r.output, new RegExp(`^couldn't start node: .*couldn't find staking key at ${dir}/none.key`))
    await rm(dir, { recursive: true, force: true })
  })
})

describe('firn process lifecycle', () => {
  it('env vars and the config file configure the node', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'firn-cfg-'))
    const file = join(dir, 'node.json')
    await writeFile(file, JSON.stringify({ 'network-id': 'fuji', 'api-admin-enabled': true }))
    const node = await startFirn({
      args: [`--config-file=${file}`, '--db-type=memdb'],
      env: { FIRN_STAKING_PORT: '9761' },
    })
    try {
      assert.deepEqual((await node.rpc('/ext/info', 'info.getNetworkID')).body.result, { networkID: '5' })
      assert.deepEqual((await node.rpc('/ext/info', 'info.getNodeIP')).body.result, { ip: '127.0.0.1:9761' })
      const cfg = await node.rpc('/ext/admin', 'admin.getConfig')
      assert.equal((cfg.body.result as { networkName: string }).networkName, 'fuji')
    } finally {
      await node.cleanup()
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('creates its identity once, keeps it across restarts, and shuts down gracefully', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'firn-life-'))
    const started: { stop(): Promise<number | null> }[] = []
    try {
      const first = await startFirn({ dataDir, keepData: true, args: ['--dev', '--staking-port=9651'] })
      started.push(first)
      const id1 = (await first.rpc('/ext/info', 'info.getNodeID')).body.result as { nodeID: string }
      const ctx = JSON.parse(await readFile(join(dataDir, 'process.json'), 'utf8'))
      assert.deepEqual(Object.keys(ctx), ['pid', 'uri', 'stakingAddress'])
      assert.equal(ctx.pid, first.pid)
      assert.equal(ctx.uri, first.url)
      assert.equal(ctx.stakingAddress, '127.0.0.1:9651')
      for (const f of ['staker.key', 'staker.crt', 'signer.key']) {
        assert.equal((await stat(join(dataDir, 'staking', f))).mode & 0o777, 0o400, f)
      }
      assert.equal((await stat(join(dataDir, 'staking', 'signer.key'))).size, 32)
      assert.match(await readFile(join(dataDir, 'staking', 'staker.key'), 'utf8'), /^-----BEGIN PRIVATE KEY-----/)

      // a running CPU profile is stopped and kept on SIGTERM
      assert.deepEqual((await first.rpc('/ext/admin', 'admin.startCPUProfiler')).body.result, {})
      assert.equal(await first.stop('SIGTERM'), 0)
      const profile = JSON.parse(await readFile(join(dataDir, 'profiles', 'cpu.profile'), 'utf8'))
      assert.ok(profile.nodes.length > 0)
      assert.match(first.output(), /shutting down/)
      // the native secp256k1 and keccak bindings are in use, and the node says so
      assert.match(first.output(), /native crypto loaded/)

      const second = await startFirn({ dataDir, keepData: true, args: ['--dev', '--staking-port=9651'] })
      started.push(second)
      const id2 = (await second.rpc('/ext/info', 'info.getNodeID')).body.result as { nodeID: string }
      assert.deepEqual(id2, id1, 'same NodeID and proof of possession after a restart')
      assert.equal(await second.stop('SIGINT'), 0)
    } finally {
      // stop() is idempotent: a failed assertion must not leave a node running
      for (const node of started) await node.stop()
      await rm(dataDir, { recursive: true, force: true })
    }
  })

  it('answers HTTP-level errors like the reference', async () => {
    const node = await startFirn({ args: ['--dev', '--db-type=memdb'] })
    try {
      const get = await fetch(`${node.url}/ext/info`)
      assert.equal(get.status, 405)
      assert.equal(await get.text(), 'rpc: POST method required, received GET')
      assert.match(get.headers.get('node-id') ?? '', /^NodeID-/)
      const noType = await fetch(`${node.url}/ext/info`, { method: 'POST', body: '{}' })
      assert.equal(noType.status, 415)
      const slash = await fetch(`${node.url}/ext/info/`, { method: 'POST' })
      assert.equal(slash.status, 404)
      const host = await postWithHost(`${node.url}/ext/info`, 'evil.example')
      assert.equal(host.status, 403)
      assert.equal(host.body, 'invalid host specified\n')
      assert.equal((await postWithHost(`${node.url}/ext/info`, 'localhost:1234')).status, 200)
      const note = await fetch(`${node.url}/ext/info`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","method":"info.getNetworkID"}',
      })
      assert.equal(note.status, 200)
      assert.equal(await note.text(), '')
    } finally {
      await node.cleanup()
    }
  })
})
