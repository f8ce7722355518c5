/**
 * The engine's effect runner over any VM (src/chains/snowman/effects.ts, SignedBlocks around a tiny in-test VM):
 * inbound queries reach the engine in arrival order although containers parse asynchronously (a pull query does
 * not overtake the push query before it), an unparsable container is asked without its block, and a built block
 * goes to the engine with its container kept for the push query.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { MemoryLevel } from 'memory-level'
import type { EngineMachineEvent } from '../../../../../actors/consensus/engine.machine.js'
import { BlockBytes } from '../../../../../src/chains/snowman/block-bytes.js'
import { EffectRunner } from '../../../../../src/chains/snowman/effects.js'
import { SignedBlocks } from '../../../../../src/chains/snowman/signed-blocks.js'
import type { ChainDatabase } from '../../../../../src/chains/vm.js'
import { stakingIdentityFromPem } from '../../../../../src/identity/staking.js'
import { recordingAppSender } from '../../../../helpers/evm-chain-vm.js'
import { TinyVm } from '../../../../helpers/tiny-vm.js'

const FIXTURES = join(import.meta.dirname, '../../../../fixtures/staking')
const identity = stakingIdentityFromPem(
  readFileSync(join(FIXTURES, 'staker1.key'), 'utf8'),
  readFileSync(join(FIXTURES, 'staker1.crt'), 'utf8'),
)
const quiet = { debug() {}, info() {}, warn() {}, error() {} }

describe('EffectRunner over any VM', () => {
  const dbs: MemoryLevel<Uint8Array, Uint8Array>[] = []
  after(async () => {
    for (const db of dbs) await db.close()
  })

  const setup = async () => {
    const level = new MemoryLevel<Uint8Array, Uint8Array>({ keyEncoding: 'view', valueEncoding: 'view' })
    await level.open()
    dbs.push(level)
    const db = level as unknown as ChainDatabase
    const vm = new TinyVm()
    await vm.initialize({
      networkId: 12345,
      chainId: 'tiny',
      alias: 'T',
      nodeId: identity.nodeId,
      db,
      dataDir: '',
      log: quiet,
      genesis: { timestampMs: Date.now() - 1_000 },
      config: '',
      dev: false,
      app: recordingAppSender(),
    })
    const blocks = new SignedBlocks({ vm, db, chainId: new Uint8Array(32).fill(3), identity, proposers: () => [] })
    const sent: EngineMachineEvent[] = []
    let onSent: () => void = () => undefined
    /** resolves once `n` events went to the engine */
    const sentCount = (n: number) =>
      new Promise<void>((resolve) => {
        onSent = () => {
          if (sent.length >= n) resolve()
        }
        onSent()
      })
    const bytes = new BlockBytes()
    const runner = new EffectRunner({
      chainId: 'tiny',
      self: identity.nodeId,
      blocks,
      router: {
        pushQuery: () => Promise.reject(new Error('no network')),
        pullQuery: () => Promise.reject(new Error('no network')),
        get: () => Promise.reject(new Error('no network')),
      },
      log: quiet,
      bytes,
      send: (e) => {
        sent.push(e)
        onSent()
      },
      onTipChanged: () => undefined,
      onBuildEmpty: () => undefined,
    })
    return { vm, blocks, runner, sent, sentCount, bytes }
  }

  it('hands inbound queries to the engine in arrival order, each container parsed', async () => {
    const { vm, blocks, runner, sent, sentCount, bytes } = await setup()
    vm.add('x')
    const built = await blocks.build()
    assert.ok(built.kind === 'built')
    await blocks.reject(built.block.id)

    void runner.pushQuery('NodeID-a', built.block.bytes, 1)
    void runner.pullQuery('NodeID-b', built.block.id, 1)
    void runner.pushQuery('NodeID-c', Uint8Array.of(9, 9), 1)
    await sentCount(3)
    const queries = sent.filter((e) => e.type === 'query')
    assert.deepEqual(
      queries.map((q) => q.type === 'query' && [q.from, q.block?.id, q.blockId]),
      [
        ['NodeID-a', built.block.id, undefined],
        ['NodeID-b', undefined, built.block.id],
        ['NodeID-c', undefined, undefined],
      ],
    )
    assert.deepEqual(bytes.get(built.block.id), built.block.bytes, 'the pushed container is kept for its verify')
    runner.stop()
  })

  it('builds through the VM and tells the engine', async () => {
    const { vm, runner, sent, bytes } = await setup()
    vm.add('y')
    runner.run([{ type: 'build' }])
    await runner.idle()
    const built = sent.find((e) => e.type === 'built')
    assert.ok(built?.type === 'built')
    assert.equal(built.block.height, 1)
    assert.ok(bytes.get(built.block.id) !== undefined)
    // on the built block, its item is taken: nothing left to build
    runner.run([{ type: 'setPreference', blockId: built.block.id }, { type: 'build' }])
    await runner.idle()
    assert.ok(
      sent.some((e) => e.type === 'buildFailed'),
      'nothing left to build',
    )
    runner.stop()
  })
})
