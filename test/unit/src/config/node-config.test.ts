import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { loadNodeConfig } from '../../../../src/config/node-config.js'

const env = { HOME: '/home/u' }
const load = (argv: string[], e: NodeJS.ProcessEnv = env) => loadNodeConfig(argv, e)
const fails = (argv: string[], message: string, e: NodeJS.ProcessEnv = env) =>
  assert.throws(() => load(argv, e), { message })

describe('loadNodeConfig defaults', () => {
  it('uses the reference defaults and the local network', () => {
    const c = load([])
    assert.equal(c.dataDir, '/home/u/.firn')
    assert.equal(c.networkId, 12345)
    assert.equal(c.networkName, 'local')
    assert.equal(c.http.host, '127.0.0.1')
    assert.equal(c.http.port, 9650)
    assert.deepEqual(c.http.allowedHosts, ['localhost'])
    assert.deepEqual(c.http.allowedOrigins, ['*'])
    assert.equal(c.api.adminEnabled, false)
    assert.equal(c.api.infoEnabled, true)
    assert.equal(c.staking.port, 9651)
    assert.equal(c.staking.keyPath, '/home/u/.firn/staking/staker.key')
    assert.equal(c.staking.certPath, '/home/u/.firn/staking/staker.crt')
    assert.equal(c.staking.signerKeyPath, '/home/u/.firn/staking/signer.key')
    assert.equal(c.staking.keyExplicit, false)
    assert.equal(c.db.type, 'leveldb')
    assert.equal(c.db.path, '/home/u/.firn/db/local')
    assert.equal(c.log.dir, '/home/u/.firn/logs')
    assert.equal(c.log.level, 'INFO')
    assert.equal(c.log.displayLevel, 'INFO')
    assert.equal(c.profileDir, '/home/u/.firn/profiles')
    assert.equal(c.pluginDir, '/home/u/.firn/plugins')
    assert.equal(c.uptimeRequirement, 0.8)
    assert.equal(c.processContextFile, '/home/u/.firn/process.json')
    assert.equal(c.sybilProtection.enabled, true)
    assert.ok(Object.isFrozen(c) && Object.isFrozen(c.http))
  })

  it('--dev: local network, admin on, sybil protection off, its own data dir', () => {
    const c = load(['--dev'])
    assert.equal(c.dev, true)
    assert.equal(c.networkId, 12345)
    assert.equal(c.api.adminEnabled, true)
    assert.equal(c.sybilProtection.enabled, false)
    assert.equal(c.dataDir, '/home/u/.firn/dev')
    assert.equal(c.db.path, '/home/u/.firn/dev/db/dev')
    assert.equal(load(['--dev', '--api-admin-enabled=false']).api.adminEnabled, false)
  })
})

describe('flag syntax', () => {
  it('accepts --name=value, --name value and bare booleans', () => {
    const c = load(['--http-port=0', '--network-id', 'fuji', '--api-admin-enabled', '--data-dir=/d'])
    assert.equal(c.http.port, 0)
    assert.equal(c.networkId, 5)
    assert.equal(c.api.adminEnabled, true)
    assert.equal(c.dataDir, '/d')
    assert.equal(c.staking.keyPath, '/d/staking/staker.key')
    assert.equal(c.db.path, '/d/db/fuji')
  })

  it('parses lists and levels', () => {
    const c = load(['--http-allowed-hosts=a.example,b.example', '--log-level=DeBuG', '--log-display-level=warn'])
    assert.deepEqual(c.http.allowedHosts, ['a.example', 'b.example'])
    assert.equal(c.log.level, 'DEBUG')
    assert.equal(c.log.displayLevel, 'WARN')
    assert.deepEqual(load(['--acp-support=176,23']).acpSupport, [23, 176])
  })

  it('refuses unknown flags and bad values with pflag texts', () => {
    fails(['--nope'], 'unknown flag: --nope')
    fails(['--http-port'], 'flag needs an argument: --http-port')
    fails(
      ['--http-port=abc'],
      'invalid argument "abc" for "--http-port" flag: strconv.ParseUint: parsing "abc": invalid syntax',
    )
    fails(
      ['--api-admin-enabled=maybe'],
      'invalid argument "maybe" for "--api-admin-enabled" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
    )
    fails(['stray'], 'unexpected argument: stray')
  })
})

describe('network ids', () => {
  for (const [text, id, name] of [
    ['mainnet', 1, 'mainnet'],
    ['Fuji', 5, 'fuji'],
    ['testnet', 5, 'fuji'],
    ['local', 12345, 'local'],
    ['testing', 10, 'testing'],
    ['1337', 1337, 'network-1337'],
    ['network-1337', 1337, 'network-1337'],
    ['12345', 12345, 'local'],
  ] as const) {
    it(`${text} -> ${id}`, () => {
      const c = load([`--network-id=${text}`])
      assert.equal(c.networkId, id)
      assert.equal(c.networkName, name)
    })
  }
  it('refuses unknown names with the reference text', () => {
    fails(['--network-id=Mars'], 'failed to parse network name: "mars"')
    fails(['--network-id=network-x'], 'failed to parse network name: "network-x"')
  })
})

describe('validation with the reference texts', () => {
  it('log levels', () => fails(['--log-level=loud'], 'unknown log level: "loud"'))
  it('db type', () => fails(['--db-type=rocksdb'], 'db-type must be one of {leveldb, memdb}'))
  it('uptime requirement', () => fails(['--uptime-requirement=1.5'], 'uptime requirement must be in the range [0, 1]'))
  it('uptime requirement is fixed on public networks', () =>
    assert.equal(load(['--network-id=fuji', '--uptime-requirement=0.5']).uptimeRequirement, 0.8))
  it('track-subnets', () =>
    fails(['--track-subnets=11111111111111111111111111111111LpoYY'], 'cannot track primary network'))
  it('acps', () => {
    fails(['--acp-support=-1'], 'invalid ACP: -1')
    fails(['--acp-support=5', '--acp-object=5'], 'supporting and objecting to the same ACP')
  })
  it('sybil protection', () =>
    fails(['--network-id=mainnet', '--sybil-protection-enabled=false'], 'sybil protection disabled on public network'))
  it('bootstrap flags come in pairs', () => {
    fails(['--bootstrap-ips=127.0.0.1:9651'], 'set "bootstrap-ips" but didn\'t set "bootstrap-ids"')
    fails(['--bootstrap-ids=NodeID-x'], 'set "bootstrap-ids" but didn\'t set "bootstrap-ips"')
  })
  it('an explicit plugin dir must exist', () =>
    assert.throws(
      () => load(['--plugin-dir=/definitely/not/here']),
      /^ConfigError: plugin dir "\/definitely\/not\/here" not found/,
    ))
  it('--dev is the local network', () =>
    fails(['--dev', '--network-id=fuji'], '--dev runs the local network; remove --network-id or set it to local'))
})

describe('env vars and the config file', () => {
  it('precedence is flags > env > file > defaults', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'firn-cfg-'))
    try {
      const file = join(dir, 'c.json')
      await writeFile(file, JSON.stringify({ 'http-port': 1111, 'log-level': 'debug', 'api-admin-enabled': true }))
      const e = { ...env, FIRN_HTTP_PORT: '2222', FIRN_CONFIG_FILE: file }
      assert.equal(load([], e).http.port, 2222)
      assert.equal(load(['--http-port=3333'], e).http.port, 3333)
      assert.equal(load([], e).log.level, 'DEBUG')
      assert.equal(load([], e).api.adminEnabled, true)
      assert.equal(load([`--config-file=${file}`]).http.port, 1111)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('refuses unknown keys, bad JSON and bad env values', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'firn-cfg-'))
    try {
      const bad = join(dir, 'bad.json')
      await writeFile(bad, JSON.stringify({ 'http-prot': 1 }))
      assert.throws(() => load([`--config-file=${bad}`]), { message: `unknown key in config file ${bad}: "http-prot"` })
      const broken = join(dir, 'broken.json')
      await writeFile(broken, '{"http-port": ')
      assert.throws(() => load([`--config-file=${broken}`]), /^ConfigError: couldn't parse config file/)
      assert.throws(
        () => load([`--config-file=${join(dir, 'missing.json')}`]),
        /^ConfigError: couldn't read config file/,
      )
      assert.throws(() => load([], { ...env, FIRN_HTTP_PORT: 'x' }), {
        message: 'invalid value for FIRN_HTTP_PORT: strconv.ParseUint: parsing "x": invalid syntax',
      })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('reads --config-file-content as base64 JSON', () => {
    const content = Buffer.from(JSON.stringify({ 'network-id': 'fuji' })).toString('base64')
    assert.equal(load([`--config-file-content=${content}`]).networkId, 5)
  })
})

describe('--genesis-file and --genesis-file-content', () => {
  const chains = { chains: [{ name: 'D', vm: 'evm', genesis: { config: { chainId: 99999 }, gasLimit: 1, alloc: {} } }] }

  it('without them the node runs the preset C chain only', () => {
    const c = load([])
    assert.deepEqual(
      c.genesis.chains.map((x) => [x.alias, x.chainId]),
      [['C', '2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC']],
    )
  })

  it('a dev node takes {"chains": [...]} from the file (also from the config file) or the base64 content', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'firn-cfg-'))
    try {
      const file = join(dir, 'chains.json')
      await writeFile(file, JSON.stringify(chains))
      assert.deepEqual(
        load(['--dev', `--genesis-file=${file}`]).genesis.chains.map((x) => x.alias),
        ['C', 'D'],
      )
      const cfg = join(dir, 'config.json')
      await writeFile(cfg, JSON.stringify({ 'genesis-file': file }))
      assert.equal(load(['--dev', `--config-file=${cfg}`]).genesis.origin, file)
      const content = Buffer.from(JSON.stringify(chains)).toString('base64')
      assert.equal(load(['--dev', `--genesis-file-content=${content}`]).genesis.chains[1]?.alias, 'D')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('errors stop the config with the file and the field', () => {
    const content = Buffer.from('{"chains": [{"name": "C"}]}').toString('base64')
    fails(
      ['--dev', `--genesis-file-content=${content}`],
      "unable to load genesis file (--genesis-file-content): chains[0].name: C is an alias of the network's own chains",
    )
    fails(
      ['--network-id=fuji', `--genesis-file-content=${Buffer.from('{}').toString('base64')}`],
      'unable to load genesis file (--genesis-file-content): overrides standard network genesis config: fuji',
    )
  })
})
