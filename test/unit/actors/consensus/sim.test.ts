import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { engineSummary } from '../../../../actors/consensus/engine.js'
import { ConsensusSim, nodeIdOf, type SimConfig } from '../../../sim/consensus-sim.js'

/** Every node accepted the same block at every height it reached; returns the common height. */
function assertAgreement(sim: ConsensusSim): number {
  const longest = sim.nodes.reduce((a, n) => (n.vm.accepted.length > a.length ? n.vm.accepted : a), [] as string[])
  for (const n of sim.nodes) {
    assert.deepEqual(n.vm.accepted, longest.slice(0, n.vm.accepted.length), `${n.id} diverged`)
  }
  return Math.min(...sim.nodes.map((n) => n.vm.accepted.length - 1))
}

const allAt = (sim: ConsensusSim, height: number, only?: string[]) => () =>
  sim.nodes.filter((n) => !only || only.includes(n.id)).every((n) => n.vm.accepted.length > height)

describe('consensus simulation', () => {
  it('5 nodes: one proposer, a chain of 8 blocks, all accept the same blocks', () => {
    const sim = new ConsensusSim({ seed: 11, nodes: 5, latencyMs: [1, 10] })
    for (let i = 0; i < 8; i++) sim.pendingTxs(nodeIdOf(2), i * 30)
    assert.ok(sim.runUntil(allAt(sim, 8), 30_000), `stalled at ${sim.now} ms`)
    assert.equal(assertAgreement(sim), 8)
    const chain = sim.nodes[0]?.vm.accepted ?? []
    assert.ok(chain.slice(1).every((id) => id.startsWith(`${nodeIdOf(2)}/`)))
    for (const n of sim.nodes) assert.deepEqual(engineSummary(n.engine).awaitingParents, [])
    // the core's state is plain data: it survives a JSON round trip as it is
    for (const n of sim.nodes) assert.deepEqual(JSON.parse(JSON.stringify(n.engine)), n.engine)
  })

  it('50 nodes, 10 % loss, 1-20 ms latency, several proposers and a conflict: same block at every height', () => {
    const sim = new ConsensusSim({ seed: 5, nodes: 50, latencyMs: [1, 20], lossRate: 0.1, requestTimeoutMs: 200 })
    sim.pendingTxs(nodeIdOf(0), 0)
    // two proposers build at the same time on the same preferred block: conflicting blocks at one height
    sim.pendingTxs(nodeIdOf(3), 300)
    sim.pendingTxs(nodeIdOf(7), 300)
    sim.pendingTxs(nodeIdOf(11), 600)
    // each proposal lands once (a losing proposer builds again), so 4 heights
    assert.ok(sim.runUntil(allAt(sim, 4), 60_000), `stalled at ${sim.now} ms`)
    assert.equal(assertAgreement(sim), 4)
    const b3 = [...(sim.byId.get(nodeIdOf(3))?.vm.blocks.values() ?? [])].find((b) => b.id.startsWith(nodeIdOf(3)))
    const b7 = [...(sim.byId.get(nodeIdOf(7))?.vm.blocks.values() ?? [])].find((b) => b.id.startsWith(nodeIdOf(7)))
    assert.ok(b3 && b7)
    assert.equal(b3.parentId, b7.parentId, 'the two proposals conflict')
    assert.equal(b3.height, b7.height)
    const loser = sim.nodes[0]?.vm.accepted.includes(b3.id) ? b7.id : b3.id
    assert.ok(
      sim.nodes.every((n) => n.vm.rejected.has(loser) || !n.vm.blocks.has(loser)),
      'the loser is rejected wherever it was verified',
    )
    // every height is accepted by all within a bounded simulated time after its block was built
    const chain = sim.nodes[0]?.vm.accepted ?? []
    for (let h = 1; h <= 4; h++) {
      const built = sim.nodes[0]?.vm.blocks.get(chain[h] as string)?.timestampMs ?? 0
      const last = Math.max(...sim.nodes.map((n) => n.acceptedAtMs[h] ?? Number.POSITIVE_INFINITY))
      assert.ok(last - built <= 20_000, `height ${h} took ${last - built} ms`)
    }
  })

  it('5 nodes with one silent node still progress', () => {
    const silent = nodeIdOf(4)
    const sim = new ConsensusSim({ seed: 3, nodes: 5, latencyMs: [1, 10], silent: [silent], requestTimeoutMs: 100 })
    for (let i = 0; i < 4; i++) sim.pendingTxs(nodeIdOf(i % 4), i * 500)
    const live = [0, 1, 2, 3].map(nodeIdOf)
    assert.ok(sim.runUntil(allAt(sim, 4, live), 60_000), `stalled at ${sim.now} ms`)
    assert.ok(sim.stats.queryFailed > 0)
    const chain = sim.byId.get(live[0] as string)?.vm.accepted
    for (const id of live) assert.deepEqual(sim.byId.get(id)?.vm.accepted, chain)
  })

  it('5 nodes with two disconnected send no polls and accept nothing', () => {
    const sim = new ConsensusSim({ seed: 3, nodes: 5, disconnected: [nodeIdOf(3), nodeIdOf(4)] })
    sim.pendingTxs(nodeIdOf(0), 0)
    sim.runUntil(() => false, 2_000)
    assert.ok(sim.nodes.every((n) => n.vm.accepted.length === 1))
    const node0 = sim.byId.get(nodeIdOf(0))
    assert.ok(node0)
    assert.equal(engineSummary(node0.engine).requestId, 0)
  })

  it('is fully deterministic for a given seed', () => {
    const cfg: SimConfig = { seed: 21, nodes: 12, latencyMs: [1, 20], lossRate: 0.1, requestTimeoutMs: 150 }
    const once = () => {
      const sim = new ConsensusSim(cfg)
      sim.pendingTxs(nodeIdOf(1), 0)
      sim.pendingTxs(nodeIdOf(5), 100)
      sim.pendingTxs(nodeIdOf(6), 100)
      assert.ok(sim.runUntil(allAt(sim, 3), 60_000))
      return { fingerprint: sim.fingerprint(), now: sim.now, stats: { ...sim.stats } }
    }
    const a = once()
    const b = once()
    assert.deepEqual(a, b)
    const other = new ConsensusSim({ ...cfg, seed: 22 })
    other.pendingTxs(nodeIdOf(1), 0)
    other.pendingTxs(nodeIdOf(5), 100)
    other.pendingTxs(nodeIdOf(6), 100)
    other.runUntil(allAt(other, 3), 60_000)
    assert.notDeepEqual(
      { fingerprint: other.fingerprint(), now: other.now },
      { fingerprint: a.fingerprint, now: a.now },
    )
  })
})
