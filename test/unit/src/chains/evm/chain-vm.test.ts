/**
 * Firn's EVM through the chain VM interface (src/chains/evm/chain-vm.ts): two VMs with the same genesis, one builds
 * and the other parses, verifies and accepts (with an extra put in the accept batch); reject; the handlers each
 * chain config serves; the genesis as a preset or as JSON through the plugged parser; gossip only in normal
 * operation, its app messages answered through the VM; a JSON-safe health.
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { firstValueFrom } from 'rxjs'
import { withHandlerPrefix } from '../../../../../src/chains/evm/gossip/wire.js'
import { evmPreset } from '../../../../../src/chains/evm/rules/presets.js'
import { AppError, chainVmProblem, type VmBlock } from '../../../../../src/chains/vm.js'
import {
  openTestChainVm,
  recordingAppSender,
  TEST_NODE_ID,
  type TestChainVm,
} from '../../../../helpers/evm-chain-vm.js'

describe('EvmChainVm', () => {
  const open: TestChainVm[] = []
  after(async () => {
    for (const c of open) await c.close()
  })
  const chain = async (opts: Parameters<typeof openTestChainVm>[0] = {}) => {
    const c = await openTestChainVm(opts)
    open.push(c)
    return c
  }

  it('builds, parses, verifies, accepts and rejects blocks through the interface', async () => {
    const a = await chain()
    const b = await chain()
    assert.equal(chainVmProblem(a.vm), null)
    const genesis = a.vm.lastAccepted()
    assert.equal(genesis.height, 0)
    assert.deepEqual(b.vm.lastAccepted(), genesis, 'the same genesis, the same block')
    assert.equal(await a.vm.acceptedIdAt(0), genesis.id)
    assert.equal(await a.vm.buildBlock(), undefined, 'nothing to build with an empty pool')
    assert.equal(a.vm.hasPending(), false)

    const announced = firstValueFrom(a.vm.pending$)
    await a.vm.admitTransaction(await a.signTransfer())
    await announced
    assert.equal(a.vm.hasPending(), true)
    const block = (await a.vm.buildBlock()) as VmBlock
    assert.ok(block !== undefined)
    assert.match(block.id, /^0x[0-9a-f]{64}$/)
    assert.equal(block.parentId, genesis.id)
    assert.equal(block.height, 1)
    assert.equal((await a.vm.parseBlock(block.bytes)).id, block.id)
    assert.equal((await a.vm.getBlock(block.id))?.id, block.id, 'a built block is processing')
    assert.equal(await a.vm.acceptedIdAt(1), undefined)
    assert.ok(a.vm.nextBuildTimeMs(block.id) >= block.timestampMs)

    // the other node: parse, verify (re-execution), accept with an extra put in the same batch
    const received = await b.vm.parseBlock(block.bytes)
    assert.deepEqual(
      [received.id, received.parentId, received.height, received.timestampMs],
      [block.id, block.parentId, block.height, block.timestampMs],
    )
    await received.verify()
    const extras = b.db.sublevel<Uint8Array, Uint8Array>('extra', { keyEncoding: 'view', valueEncoding: 'view' })
    await received.accept([{ sublevel: extras, key: Uint8Array.of(1), value: Uint8Array.of(2, 3) }])
    assert.deepEqual(b.vm.lastAccepted(), { id: block.id, height: 1 })
    assert.equal(await b.vm.acceptedIdAt(1), block.id)
    assert.deepEqual([...((await extras.get(Uint8Array.of(1))) ?? [])], [2, 3])

    // the builder accepts its own; a second block is rejected and its tx waits for the next one
    await block.accept()
    await a.vm.admitTransaction(await a.signTransfer())
    const dropped = (await a.vm.buildBlock()) as VmBlock
    await dropped.reject()
    assert.equal(await a.vm.getBlock(dropped.id), undefined)
    assert.equal(a.vm.hasPending(), true)
    const second = (await a.vm.buildBlock()) as VmBlock
    await second.accept()
    a.vm.setPreference(second.id)
    await a.vm.admitTransaction(await a.signTransfer())
    const third = (await a.vm.buildBlock()) as VmBlock
    assert.equal(third.parentId, second.id)

    // b knows neither parent of `third`, and garbage is no block
    await assert.rejects((await b.vm.parseBlock(third.bytes)).verify(), /unknown parent/)
    await assert.rejects(a.vm.parseBlock(Uint8Array.of(1, 2, 3)))
    assert.equal(await a.vm.getBlock('0x1234'), undefined)
  })

  it('serves /rpc and /ws, and /admin only when the chain config enables it', async () => {
    const plain = await chain()
    const handlers = await plain.vm.createHandlers()
    assert.deepEqual(Object.keys(handlers).sort(), ['/rpc', '/ws'])
    const rpc = handlers['/rpc']
    assert.ok(rpc?.kind === 'eth')
    assert.ok(rpc.handlers.methods.has('eth_chainId'))
    assert.equal(rpc.limits?.batchRequestLimit, 1000)
    assert.equal(handlers['/ws']?.kind, 'eth')

    const admin = await chain({ config: '{"admin-api-enabled": true, "batch-request-limit": 7}' })
    const withAdmin = await admin.vm.createHandlers()
    assert.deepEqual(Object.keys(withAdmin).sort(), ['/admin', '/rpc', '/ws'])
    const a = withAdmin['/admin']
    assert.ok(a?.kind === 'jsonrpc')
    assert.equal(a.underscoreNames, true)
    assert.equal(a.services.length, 1)
    const r = withAdmin['/rpc']
    assert.equal(r?.kind === 'eth' ? r.limits?.batchRequestLimit : undefined, 7)
  })

  it('refuses a bad chain config with the reference texts', async () => {
    await assert.rejects(openTestChainVm({ config: '{"admin-api-enabled": 1}' }), /failed to unmarshal config/)
    await assert.rejects(openTestChainVm({ config: '{"no-such-key": 1}' }), /unknown C-chain config key "no-such-key"/)
  })

  it('opens a JSON genesis through the plugged parser, and refuses one without it', async () => {
    const json = { config: { chainId: 99999 }, gasLimit: '0x7A1200', alloc: {} }
    await assert.rejects(openTestChainVm({ genesis: json }), /no genesis parser/)
    const seen: unknown[] = []
    const c = await chain({
      genesis: json,
      options: {
        presetFromGenesis: (genesis, opts) => {
          seen.push(genesis, opts)
          return { ...evmPreset(12345, { dev: opts.dev }), chainId: 99999n }
        },
      },
    })
    assert.deepEqual(seen, [json, { networkId: 12345, dev: true }])
    assert.equal(c.vm.evm.chainId, 99999n)
  })

  it('gossips only in normal operation and answers app requests through the VM', async () => {
    const peer = 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu'
    const app = recordingAppSender(
      [
        { nodeId: TEST_NODE_ID, weight: 1n },
        { nodeId: peer, weight: 1n },
      ],
      [peer],
    )
    let pushed: () => void = () => undefined
    const gossip = app.gossip
    app.gossip = (ids, bytes) => {
      gossip(ids, bytes)
      pushed()
    }
    const c = await chain({ app })
    const pull = withHandlerPrefix(0n, new Uint8Array(0))
    await assert.rejects(c.vm.appRequest(peer, pull), (err: unknown) => err instanceof AppError && err.code === -2)
    await c.vm.admitTransaction(await c.signTransfer())
    assert.equal(app.gossiped.length, 0, 'no gossip before normal operation')

    const first = new Promise<void>((resolve) => {
      pushed = resolve
    })
    c.vm.setState('normalOp')
    await first
    assert.deepEqual(app.gossiped[0]?.nodeIds, [peer])
    await assert.rejects(
      c.vm.appRequest('NodeID-111111111111111111116DBWJs', pull),
      (err: unknown) => err instanceof AppError && err.code === -3 && err.message === 'not a validator',
    )
    c.vm.setState('bootstrapping')
    await assert.rejects(c.vm.appRequest(peer, pull), (err: unknown) => err instanceof AppError && err.code === -2)
  })

  it('reports a JSON-safe health', async () => {
    const c = await chain()
    const health = (await c.vm.health()) as { lastAccepted: { height: number }; pool: { pending: number } }
    assert.deepEqual(JSON.parse(JSON.stringify(health)), health)
    assert.equal(health.lastAccepted.height, 0)
    assert.equal(health.pool.pending, 0)
  })
})
