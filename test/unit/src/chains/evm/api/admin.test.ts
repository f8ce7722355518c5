/**
 * The chain admin API through the JSON-RPC endpoint, with a real profiler actor writing real files: both method
 * spellings, params as an array of one object, the reference's texts.
 */
import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createActor } from 'xstate'
import { profilerMachine } from '../../../../../../actors/profiler/profiler.machine.js'
import { createJsonRpcEndpoint } from '../../../../../../src/api/jsonrpc/service.js'
import { chainAdminService, parseEvmLogLevel } from '../../../../../../src/chains/evm/api/admin.js'
import type { LogLevel } from '../../../../../../src/log/levels.js'
import { createMailboxStats } from '../../../../../../src/profiling/mailbox-stats.js'
import { profilerImplementation } from '../../../../../../src/profiling/profiler.impl.js'

describe('chain admin API', () => {
  let dir: string
  let io: ReturnType<typeof profilerImplementation>
  let actor: ReturnType<typeof createActor<typeof profilerMachine>>
  const levels: LogLevel[] = []
  let endpoint: ReturnType<typeof createJsonRpcEndpoint>

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firn-chain-admin-'))
    io = profilerImplementation({ dir, lockSources: { mailbox: createMailboxStats() } })
    actor = createActor(profilerMachine.provide(io.implementation), { input: { label: 'C' } }).start()
    const service = chainAdminService({
      profiler: () => actor,
      setLogLevel: (l) => levels.push(l),
      vmConfig: () => ({ 'pruning-enabled': true, 'state-history': 32 }),
    })
    endpoint = createJsonRpcEndpoint([service], { underscoreNames: true })
  })
  after(async () => {
    actor.stop()
    await io.close()
    await rm(dir, { recursive: true, force: true })
  })

  const call = async (method: string, params?: unknown) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) })
    const reply = await endpoint.respond(body, { remoteAddress: '127.0.0.1' })
    return JSON.parse(reply.body ?? 'null') as { result?: unknown; error?: { code: number; message: string } }
  }

  it('runs the CPU profiler under both spellings and keeps the reference errors', async () => {
    assert.deepEqual(await call('admin.startCPUProfiler', []), { jsonrpc: '2.0', result: {}, id: 1 })
    const again = await call('admin_startCPUProfiler', [{}])
    assert.equal(again.error?.message, 'cpu profiler already running')
    assert.deepEqual((await call('admin_stopCPUProfiler')).result, {})
    const profile = JSON.parse(await readFile(join(dir, 'cpu.profile'), 'utf8')) as { nodes: unknown[] }
    assert.ok(profile.nodes.length > 0)
    assert.equal((await call('admin.stopCPUProfiler')).error?.message, "cpu profiler doesn't exist")
  })

  it('writes memory and lock profiles', async () => {
    assert.deepEqual((await call('admin_memoryProfile', [])).result, {})
    assert.deepEqual((await call('admin.lockProfile')).result, {})
    assert.ok((await stat(join(dir, 'mem.profile'))).size > 0)
    assert.ok((await stat(join(dir, 'lock.profile'))).size > 0)
  })

  it('sets the EVM log level by geth names', async () => {
    assert.deepEqual((await call('admin_setLogLevel', [{ level: 'debug' }])).result, {})
    assert.deepEqual((await call('admin.setLogLevel', { level: 'crit' })).result, {})
    assert.deepEqual(levels, ['DEBUG', 'FATAL'])
    const bad = await call('admin_setLogLevel', [{ level: 'loud' }])
    assert.deepEqual(bad.error, {
      code: -32000,
      message: 'failed to parse log level: unknown level: loud ',
      data: null,
    })
    // case-insensitive, as the reference (reference/cchain.md 4)
    assert.equal(parseEvmLogLevel('INFO'), 'INFO')
    assert.equal(parseEvmLogLevel('Dbug'), 'DEBUG')
  })

  it('returns the VM config', async () => {
    assert.deepEqual((await call('admin_getVMConfig', [])).result, {
      config: { 'pruning-enabled': true, 'state-history': 32 },
    })
  })

  it('leaves names without a service part alone', async () => {
    const r = await call('startCPUProfiler')
    assert.equal(r.error?.code, -32000)
    assert.match(r.error?.message ?? '', /rpc: service\/method request ill-formed/)
  })
})
