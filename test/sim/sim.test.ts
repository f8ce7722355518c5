/**
 * The scale simulation's small case (run by `make test`): agreement, reproducibility and the traffic count on 5
 * and 20 engine actors; the default container size is the measured one.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ConsensusSim } from './consensus-sim.js'
import { DEFAULT_CONTAINER_BYTES } from './consensus-sim.js'
import { measureContainer } from './container.js'
import { DEFAULT_SCENARIO, percentile, runScenario, type ScenarioConfig } from './scenario.js'
import { totalOf, WIRE_KINDS } from './wire.js'

const config = (nodes: number, over: Partial<ScenarioConfig> = {}): ScenarioConfig => ({
  ...DEFAULT_SCENARIO,
  nodes,
  blocks: 3,
  ...over,
})

/** Every node accepted the same block at every height; returns the common height. */
function agreedHeight(sim: ConsensusSim): number {
  const chain = sim.nodes[0]?.vm.accepted ?? []
  const height = Math.min(...sim.nodes.map((n) => n.vm.accepted.length - 1))
  for (const n of sim.nodes) assert.deepEqual(n.vm.accepted.slice(0, height + 1), chain.slice(0, height + 1), n.id)
  return height
}

describe('scale simulation (test/sim)', () => {
  it('20 engine actors, 5-50 ms latency: every node accepts the same block at every height', () => {
    const { sim, result } = runScenario(config(20))
    assert.ok(agreedHeight(sim) >= 3)
    assert.equal(result.blocks, 3)
    assert.ok(result.finalityMs.all.p50 >= result.finalityMs.twoThirds.p50)
    // every node took part: it sent queries and answered others'
    for (const n of sim.nodes) {
      assert.ok(n.sent.messages.pullQuery > 0 && n.sent.messages.chits > 0, n.id)
      assert.ok(totalOf(n.sent.bytes) > totalOf(n.sent.messages), n.id)
    }
  })

  it('one seed, one outcome: two runs give equal chains, times and figures; another seed differs', () => {
    const a = runScenario(config(5, { seed: 7, lossRate: 0.05 }))
    const b = runScenario(config(5, { seed: 7, lossRate: 0.05 }))
    assert.equal(a.sim.fingerprint(), b.sim.fingerprint())
    assert.deepEqual(a.result, b.result)
    const c = runScenario(config(5, { seed: 8, lossRate: 0.05 }))
    assert.notDeepEqual(c.result, a.result)
  })

  it('bytes follow the block size: only PushQuery and Put grow, by the container growth each', () => {
    const small = runScenario(config(5, { containerBytes: DEFAULT_CONTAINER_BYTES })).sim
    const big = runScenario(config(5, { containerBytes: 10_000 })).sim
    const grow = 10_000 - DEFAULT_CONTAINER_BYTES // both sizes take a 2-byte length varint, as do their frames
    for (const [i, s] of small.nodes.entries()) {
      const g = big.nodes[i]
      assert.ok(g)
      assert.deepEqual(g.sent.messages, s.sent.messages, 'the block size does not change what is sent')
      for (const k of WIRE_KINDS) {
        const extra = k === 'pushQuery' || k === 'put' ? grow * s.sent.messages[k] : 0
        assert.equal(g.sent.bytes[k], s.sent.bytes[k] + extra, `${s.id} ${k}`)
      }
    }
    assert.ok(small.nodes.some((n) => n.sent.messages.pushQuery > 0))
  })

  it('the engine core stepped directly reaches the same agreement', () => {
    const { sim, result } = runScenario(config(5, { driver: 'core' }))
    assert.ok(agreedHeight(sim) >= 3)
    assert.ok(result.perBlockPerNode.messages.mean > 0)
  })

  it('percentiles are nearest-rank', () => {
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i)
    assert.equal(percentile(xs, 50), 50)
    assert.equal(percentile(xs, 99), 99)
    assert.equal(percentile([3], 99), 3)
    assert.equal(percentile([1, 2], 50), 1)
  })

  it('the default container is a C-chain block with one transfer, signed as the node signs it', async () => {
    const m = await measureContainer(1)
    assert.equal(m.txs, 1)
    assert.equal(m.containerBytes, DEFAULT_CONTAINER_BYTES)
    assert.ok(m.blockBytes < m.containerBytes)
  })
})
