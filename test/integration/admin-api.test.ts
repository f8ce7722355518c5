/**
 * /ext/admin over HTTP against a real `firn --dev` process: every method and its error paths.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readFile, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { SEMVER } from '../../src/config/version.js'
import { idFromAscii, idToString } from '../../src/identity/ids.js'
import { type FirnProcess, rpc, startFirn } from '../helpers/firn-process.js'

const LOCAL_C = '2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC'
const EVM_ID = 'mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6'
const KVVM_URL = new URL('../../examples/plugins/kvvm.mjs', import.meta.url).href
const KVVM_ID = 'pKzWfwFJiwYE8pfXv6iF7r9E8nG68tv8uQuTKUA9Wmv5yUEmM'
const ARG_ERROR =
  "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls"

describe('/ext/admin on a dev node', () => {
  let node: FirnProcess
  let goodId = ''
  let badId = ''
  let notVmId = ''
  before(async () => {
    node = await startFirn({ args: ['--dev'] })
    // plugin files are named by VM ID: the CB58 of the ASCII name zero-padded to 32 bytes, like the built-ins
    goodId = idToString(idFromAscii('firnplugin'))
    badId = idToString(idFromAscii('brokenplugin'))
    notVmId = idToString(idFromAscii('notavm'))
  })
  after(() => node?.cleanup())

  const admin = (method: string, params?: unknown) => node.rpc('/ext/admin', method, params)
  const ok = async (method: string, params?: unknown) => {
    const r = await admin(method, params)
    assert.equal(r.body.error, undefined, `${method}: ${JSON.stringify(r.body.error)}`)
    return r.body.result as Record<string, unknown>
  }
  const err = async (method: string, params: unknown, message: string) => {
    const r = await admin(method, params)
    assert.deepEqual(r.body.error, { code: -32000, message, data: null })
  }

  it('alias: the API answers at both paths', async () => {
    assert.deepEqual(await ok('admin.alias', { endpoint: 'info', alias: 'information' }), {})
    const viaAlias = await rpc(`${node.url}/ext/information`, 'info.getNetworkID')
    assert.deepEqual(viaAlias.body.result, { networkID: '12345' })
    const original = await rpc(`${node.url}/ext/info`, 'info.getNetworkID')
    assert.deepEqual(original.body.result, { networkID: '12345' })
    await err(
      'admin.alias',
      { endpoint: 'info', alias: 'information' },
      'route is either already aliased or already maps to a handle: /ext/information',
    )
    await err('admin.alias', { endpoint: 'info', alias: 'x'.repeat(513) }, 'alias length is too long')
    await err(
      'admin.alias',
      { endpoint: 'admin', alias: 'info' },
      'failed to create endpoint as /ext/info already exists',
    )
  })

  it('aliasChain and getChainAliases', async () => {
    assert.deepEqual(await ok('admin.getChainAliases', { chain: LOCAL_C }), { aliases: ['C', 'evm', LOCAL_C] })
    assert.deepEqual(await ok('admin.aliasChain', { chain: 'C', alias: 'contracts' }), {})
    assert.deepEqual(await ok('admin.getChainAliases', { chain: LOCAL_C }), {
      aliases: ['C', 'evm', LOCAL_C, 'contracts'],
    })
    const id = await rpc(`${node.url}/ext/info`, 'info.getBlockchainID', { alias: 'contracts' })
    assert.deepEqual(id.body.result, { blockchainID: LOCAL_C })
    await err('admin.aliasChain', { chain: 'nope', alias: 'z' }, 'there is no ID with alias: nope')
    await err('admin.aliasChain', { chain: 'C', alias: 'evm' }, 'alias already mapped to an ID: evm')
    await err('admin.getChainAliases', { chain: 'X' }, 'input string is smaller than the checksum size')
    assert.deepEqual(await ok('admin.getChainAliases', { chain: '11111111111111111111111111111111LpoYY' }), {
      aliases: ['P', 'platform'],
    })
  })

  it('getLoggerLevel and setLoggerLevel', async () => {
    const all = (await ok('admin.getLoggerLevel')) as { loggerLevels: Record<string, unknown> }
    for (const name of ['main', 'http', 'network', 'C']) {
      assert.deepEqual(all.loggerLevels[name], { logLevel: 'INFO', displayLevel: 'INFO' }, name)
    }
    assert.deepEqual(await ok('admin.setLoggerLevel', { loggerName: 'C', logLevel: 'debug' }), {
      loggerLevels: { C: { logLevel: 'DEBUG', displayLevel: 'INFO' } },
    })
    assert.deepEqual(await ok('admin.getLoggerLevel', { loggerName: 'C' }), {
      loggerLevels: { C: { logLevel: 'DEBUG', displayLevel: 'INFO' } },
    })
    await err('admin.setLoggerLevel', { loggerName: 'C' }, 'need to specify either displayLevel or logLevel')
    await err('admin.setLoggerLevel', { loggerName: 'C', logLevel: 'loud' }, ARG_ERROR)
    await err('admin.getLoggerLevel', { loggerName: 'nope' }, 'logger with name "nope" not found')
    const everyone = (await ok('admin.setLoggerLevel', { displayLevel: 'warn' })) as {
      loggerLevels: Record<string, { displayLevel: string }>
    }
    assert.ok(Object.values(everyone.loggerLevels).every((l) => l.displayLevel === 'WARN'))
    await ok('admin.setLoggerLevel', { displayLevel: 'info' })
  })

  it('loadVMs registers good plugins and reports failed ones', async () => {
    const dir = join(node.dataDir, 'plugins')
    // no plugin directory: nothing to load, and no error (before, an ENOENT text with the host path)
    assert.deepEqual(await ok('admin.loadVMs'), { newVMs: {} })
    await mkdir(dir, { recursive: true })
    assert.deepEqual(await ok('admin.loadVMs'), { newVMs: {} })
    // a real VM: the example kvvm under another version and alias
    await writeFile(
      join(dir, `${goodId}.mjs`),
      `import kv from ${JSON.stringify(KVVM_URL)}\nexport default { ...kv, version: 'v9.9.9', aliases: ['firnplugin'] }\n`,
    )
    await writeFile(join(dir, `${badId}.mjs`), 'export default { version: 42 }\n')
    await writeFile(join(dir, `${notVmId}.mjs`), "export default { version: 'v1.0.0', createVM() { return {} } }\n")
    await writeFile(join(dir, '.hidden'), 'ignored\n')
    assert.deepEqual(await ok('admin.loadVMs'), {
      newVMs: { [goodId]: ['firnplugin'] },
      failedVMs: {
        [badId]: 'plugin default export has no createVM function',
        [notVmId]:
          'the VM has no initialize, buildBlock, parseBlock, getBlock, setPreference, lastAccepted, acceptedIdAt, hasPending, health, createHandlers, shutdown methods',
      },
    })
    const vms = await rpc(`${node.url}/ext/info`, 'info.getVMs')
    assert.deepEqual((vms.body.result as { vms: Record<string, string[]> }).vms, {
      [EVM_ID]: ['evm'],
      [goodId]: ['firnplugin'],
    })
    const version = await rpc(`${node.url}/ext/info`, 'info.getNodeVersion')
    assert.deepEqual((version.body.result as { vmVersions: Record<string, string> }).vmVersions, {
      evm: `v${SEMVER}`,
      firnplugin: 'v9.9.9',
    })
    // loaded VMs are skipped; the failed ones fail again
    assert.deepEqual((await ok('admin.loadVMs')).newVMs, {})
    await writeFile(join(dir, 'not-an-id.mjs'), 'export default {}\n')
    await err('admin.loadVMs', {}, 'invalid vmID: "not-an-id"')
  })

  it('the CPU profiler lifecycle writes a DevTools profile', async () => {
    const file = join(node.dataDir, 'profiles', 'cpu.profile')
    await err('admin.stopCPUProfiler', {}, "cpu profiler doesn't exist")
    assert.deepEqual(await ok('admin.startCPUProfiler'), {})
    await stat(file) // created as soon as profiling starts
    await err('admin.startCPUProfiler', {}, 'cpu profiler already running')
    for (let i = 0; i < 50; i++) await rpc(`${node.url}/ext/info`, 'info.getNodeVersion')
    assert.deepEqual(await ok('admin.stopCPUProfiler'), {})
    const profile = JSON.parse(await readFile(file, 'utf8'))
    assert.ok(Array.isArray(profile.nodes) && profile.nodes.length > 0)
    assert.ok(Array.isArray(profile.samples) && Array.isArray(profile.timeDeltas))
    assert.equal(typeof profile.startTime, 'number')
    assert.ok(profile.endTime >= profile.startTime)
    assert.equal(profile.nodes[0].callFrame.functionName, '(root)')
    await err('admin.stopCPUProfiler', {}, "cpu profiler doesn't exist")
  })

  it('memoryProfile and lockProfile write their files', async () => {
    assert.deepEqual(await ok('admin.memoryProfile'), {})
    const heap = JSON.parse(await readFile(join(node.dataDir, 'profiles', 'mem.profile'), 'utf8'))
    assert.equal(heap.head?.callFrame?.functionName, '(root)', 'a V8 sampling heap profile')
    assert.deepEqual(await ok('admin.lockProfile'), {})
    const lock = JSON.parse(await readFile(join(node.dataDir, 'profiles', 'lock.profile'), 'utf8'))
    assert.equal(lock.format, 'firn-lock-profile/1')
    assert.equal(typeof lock.eventLoopDelayMs.p99, 'number')
    assert.ok(lock.actors && typeof lock.actors === 'object')
  })

  it('dbGet reads raw keys', async () => {
    const key = `0x${Buffer.from('!node!version').toString('hex')}`
    const r = await ok('admin.dbGet', { key })
    assert.equal(r.errorCode, 0)
    assert.match(Buffer.from((r.value as string).slice(2), 'hex').toString(), /^v\d+\.\d+\.\d+$/)
    assert.deepEqual(await ok('admin.dbGet', { key: '0x00ff' }), { value: '', errorCode: 2 })
    await err('admin.dbGet', { key: '00ff' }, 'missing 0x prefix to hex encoding')
    await err('admin.dbGet', { key: '0xzz' }, "encoding/hex: invalid byte: U+007A 'z'")
    await err('admin.dbGet', { key: '0xabc' }, 'encoding/hex: odd length hex string')
  })

  it('getConfig and stacktrace', async () => {
    const cfg = await ok('admin.getConfig')
    assert.equal(cfg.networkId, 12345)
    assert.equal(cfg.dataDir, node.dataDir)
    assert.deepEqual(await ok('admin.stacktrace'), {})
    const text = await readFile(join(node.dataDir, 'profiles', 'stacktrace.txt'), 'utf8')
    assert.match(text, /== actors ==/)
    assert.match(text, /chain:C: "normalOp"/)
  })

  it('unknown methods and bad params use the reference texts', async () => {
    await err('admin.foo', {}, 'rpc: can\'t find method "admin.Foo"')
    await err('admin.GetConfig', {}, 'method must start with a non-uppercase letter')
    await err('admin.dbGet', 5, ARG_ERROR)
  })
})

describe('VM plugins at start-up', () => {
  let node: FirnProcess | undefined
  after(() => node?.cleanup())

  it('the plugin directory is loaded before the node serves; a plugin that fails is logged', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'firn-test-'))
    await mkdir(join(dataDir, 'plugins'))
    await symlink(fileURLToPath(KVVM_URL), join(dataDir, 'plugins', `${KVVM_ID}.mjs`))
    const broken = idToString(idFromAscii('broken'))
    await writeFile(join(dataDir, 'plugins', `${broken}.mjs`), 'throw new Error("broken on purpose")\n')
    node = await startFirn({ args: ['--dev'], dataDir })
    const vms = await node.rpc('/ext/info', 'info.getVMs')
    assert.deepEqual((vms.body.result as { vms: Record<string, string[]> }).vms, {
      [EVM_ID]: ['evm'],
      [KVVM_ID]: ['kvvm'],
    })
    const version = await node.rpc('/ext/info', 'info.getNodeVersion')
    assert.deepEqual((version.body.result as { vmVersions: Record<string, string> }).vmVersions, {
      evm: `v${SEMVER}`,
      kvvm: 'v0.1.0',
    })
    assert.match(node.output(), /failed to register VM.*plugin failed to load: broken on purpose/)
    // loaded at start-up: nothing new; the broken one fails again
    const again = await node.rpc('/ext/admin', 'admin.loadVMs')
    assert.deepEqual(again.body.result, {
      newVMs: {},
      failedVMs: { [broken]: 'plugin failed to load: broken on purpose' },
    })
  })
})
