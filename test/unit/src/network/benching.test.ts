/**
 * Request tracking and benching in-process: real libp2p hosts on 127.0.0.1, real keys, the actor tree with
 * `chain:C` and its `benchlist:C` (found by the request tracker through the actor system), memory-level, and the
 * test-only echo protocol. A silent small validator is benched on C after
 * its echoes time out (PeerTable `benched: ['C']`, the session's benchedChains, a log line), a request to it then
 * fails at once, and it is unbenched once the bench duration passes; a silent validator of equal weight never is.
 */
import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { SystemId } from '../../../../actors/system-ids.js'
import { chainIds } from '../../../../src/config/chain-ids.js'
import { newStakingIdentity, type StakingIdentity } from '../../../../src/identity/staking.js'
import type { Validator } from '../../../../src/network/validators.js'
import { startNetworkNode } from '../../../helpers/network-node.js'
import { requestFailure, until } from '../../../helpers/until.js'

const C = chainIds(12345).C
const TIMEOUT = { initialMs: 300, minMs: 100, maxMs: 300, halflifeMs: 60_000, coefficient: 2 }

interface NodeOptions {
  identity: StakingIdentity
  /** genesis validators with sybil protection on; sybil protection off (weight 100 each) when absent */
  genesis?: Validator[]
  bootstrap?: { ip: string; id: string }
  silent?: () => boolean
  benchDurationMs?: number
  testProtocols?: boolean
}

async function node(o: NodeOptions) {
  return startNetworkNode({
    identity: o.identity,
    ...(o.genesis === undefined ? {} : { genesis: o.genesis }),
    config: { dev: false, ...(o.bootstrap === undefined ? {} : { bootstrap: [o.bootstrap] }) },
    chains: [{ chainId: C, alias: 'C' }],
    requestTimeout: TIMEOUT,
    benchlist: { benchDurationMs: o.benchDurationMs ?? 60_000 },
    testProtocols: o.testProtocols ?? true,
    ...(o.silent === undefined ? {} : { echoSilent: o.silent }),
  })
}

describe('benching through the request tracker', { timeout: 60_000 }, () => {
  it('benches a silent small validator on C, fails requests to it at once, unbenches it after the duration', async () => {
    const [o, x, s] = [newStakingIdentity(), newStakingIdentity(), newStakingIdentity()]
    const genesis: Validator[] = [
      { nodeId: o.nodeId, weight: 100n },
      { nodeId: x.nodeId, weight: 100n },
      { nodeId: newStakingIdentity().nodeId, weight: 100n },
      { nodeId: s.nodeId, weight: 1n },
    ]
    let xSilent = false
    const observer = await node({ identity: o, genesis, benchDurationMs: 2_000 })
    const boot = { ip: `127.0.0.1:${observer.network.port}`, id: o.nodeId }
    const big = await node({ identity: x, genesis, bootstrap: boot, silent: () => xSilent })
    const small = await node({ identity: s, genesis, bootstrap: boot, silent: () => true })
    try {
      await until('both connected', () => (observer.peers.size === 2 ? true : undefined))
      const benchlist = observer.root.system.get(SystemId.benchlist('C'))
      assert.ok(benchlist, 'benchlist:C runs')
      const chain = observer.root.system.get(SystemId.chain('C'))
      assert.equal(chain?.getSnapshot().children[SystemId.benchlist('C')], benchlist, 'under chain:C')
      assert.equal(observer.network.requests.currentTimeoutMs, 300)

      // an answering peer: a round trip, no bench
      const rtt = await observer.network.echo(x.nodeId, C)
      assert.ok(rtt >= 0 && rtt < 300, String(rtt))

      // the silent small validator: two timeouts take p to 2/3 > 0.5
      for (let i = 0; i < 2; i++) {
        const e = await requestFailure(observer.network.echo(s.nodeId, C))
        assert.equal(e.reason, 'timeout')
      }
      const entry = await until('benched in the PeerTable', () => {
        const p = observer.peers.get(s.nodeId)
        return p && p.benched.length > 0 ? p : undefined
      })
      assert.deepEqual(entry.benched, ['C'])
      const session = observer.actor.system.get(SystemId.peer(s.nodeId))
      assert.deepEqual(session?.getSnapshot().context.benchedChains, [C])
      assert.ok(
        observer.lines.some((l) => l.startsWith(`INFO benched peer ${s.nodeId} on C`)),
        observer.lines.join('\n'),
      )
      assert.equal(observer.network.requests.isBenched(s.nodeId, C), true)

      const started = Date.now()
      const e = await requestFailure(observer.network.echo(s.nodeId, C))
      assert.equal(e.reason, 'benched')
      assert.ok(Date.now() - started < 50, 'a request to a benched peer fails at once')

      // the big validator stays unbenched however often it times out: 100 of 301 is over the 1/12 cap
      xSilent = true
      for (let i = 0; i < 3; i++)
        assert.equal((await requestFailure(observer.network.echo(x.nodeId, C))).reason, 'timeout')
      assert.deepEqual(observer.peers.get(x.nodeId)?.benched, [])
      assert.equal(observer.network.requests.isBenched(x.nodeId, C), false)

      // the bench runs out
      await until('unbenched', () => (observer.peers.get(s.nodeId)?.benched.length === 0 ? true : undefined), 5_000)
      assert.ok(observer.lines.some((l) => l.startsWith(`INFO unbenched peer ${s.nodeId} on C`)))
      assert.deepEqual(session?.getSnapshot().context.benchedChains, [])
      assert.equal(observer.network.requests.isBenched(s.nodeId, C), false)
    } finally {
      await small.close()
      await big.close()
      await observer.close()
    }
  })

  it('never benches a validator of equal weight (sybil protection off)', async () => {
    const [a, b] = [newStakingIdentity(), newStakingIdentity()]
    const na = await node({ identity: a })
    const nb = await node({
      identity: b,
      bootstrap: { ip: `127.0.0.1:${na.network.port}`, id: a.nodeId },
      silent: () => true,
    })
    try {
      await until('connected', () => na.peers.get(b.nodeId))
      for (let i = 0; i < 4; i++) assert.equal((await requestFailure(na.network.echo(b.nodeId, C))).reason, 'timeout')
      assert.deepEqual(na.peers.get(b.nodeId)?.benched, [])
      assert.equal(na.network.requests.isBenched(b.nodeId, C), false)
      assert.ok(!na.lines.some((l) => l.includes('benched peer')))
    } finally {
      await nb.close()
      await na.close()
    }
  })

  it('without test protocols the echo protocol is not registered', async () => {
    const [a, b] = [newStakingIdentity(), newStakingIdentity()]
    const na = await node({ identity: a, testProtocols: false })
    const nb = await node({ identity: b, bootstrap: { ip: `127.0.0.1:${na.network.port}`, id: a.nodeId } })
    try {
      await until('connected', () => nb.peers.get(a.nodeId))
      await assert.rejects(na.network.echo(b.nodeId, C), /the echo protocol is not registered/)
      // b speaks echo but a does not answer it: the stream is refused, a failure that never counts as a timeout
      assert.equal((await requestFailure(nb.network.echo(a.nodeId, C))).reason, 'failed')
    } finally {
      await nb.close()
      await na.close()
    }
  })
})
