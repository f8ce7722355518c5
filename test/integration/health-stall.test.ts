/**
 * A chain that stalls turns `/ext/health` to 503, and recovers (issue 14, item 1), on five real validators
 * (scripts/network.ts's layout): with two of them stopped the other three hold 60 % of the stake, under the 75 %
 * Snowman needs, so a transfer sent to node 1 waits; past `--snow-max-time-processing` (3 s here) without an
 * accepted block node 1's C check fails, with the network check (stake under 80 %). When the two return, the
 * transfer is accepted and every check passes again.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type FiveNode, FiveNodes, Sender, waitFor, waitReceipts } from '../helpers/five-nodes.js'

const SINK = `0x${'33'.repeat(20)}`

interface Reply {
  checks: Record<string, { error?: string; message?: unknown; contiguousFailures: number }>
  healthy: boolean
}

async function health(node: FiveNode): Promise<{ status: number; body: Reply }> {
  const res = await fetch(`${node.url}/ext/health`, { signal: AbortSignal.timeout(10_000) })
  return { status: res.status, body: (await res.json()) as Reply }
}

describe('health of a chain that stalls', { timeout: 600_000 }, () => {
  let net: FiveNodes
  const ewoq = Sender.ewoq()

  before(async () => {
    net = await FiveNodes.create()
    for (const n of net.nodes) n.layout.args.push('--health-check-frequency=250ms', '--snow-max-time-processing=3s')
    await net.startAll()
    await ewoq.syncNonce(net.node(1))
  })

  after(async () => {
    await net?.shutdown()
  })

  it('is healthy with all five, 503 while node 1 cannot accept a waiting transfer, healthy again when peers return', async () => {
    const node1 = net.node(1)
    const connected = (h: { body: Reply }) =>
      (h.body.checks.network?.message as { percentConnected?: number } | undefined)?.percentConnected
    // healthy needs 80 % of the stake connected: wait for all five, which may come a little after
    await waitFor(
      'node 1 healthy with all five connected',
      60_000,
      async () => {
        const h = await health(node1)
        return h.status === 200 && connected(h) === 1
      },
      node1,
    )
    const before = await health(node1)
    assert.equal(before.body.healthy, true)
    assert.equal(connected(before), 1)

    await Promise.all([net.stop(4), net.stop(5)])
    const hash = await ewoq.send(node1, SINK)
    let stalled: { status: number; body: Reply } | undefined
    await waitFor(
      'node 1 unhealthy for its stalled C chain',
      60_000,
      async () => {
        const h = await health(node1)
        if (h.status === 503 && /no block accepted for/.test(h.body.checks.C?.error ?? '')) stalled = h
        return stalled !== undefined
      },
      node1,
    )
    assert.equal(stalled?.body.healthy, false)
    assert.match(stalled?.body.checks.C?.error ?? '', /^no block accepted for \d+(\.\d+)?s > 3s while work waits: /)
    const c = stalled?.body.checks.C?.message as { state: string; processingBlocks: number; pendingWork: boolean }
    assert.equal(c.state, 'normalOp')
    assert.ok(c.processingBlocks > 0 || c.pendingWork)
    assert.match(stalled?.body.checks.network?.error ?? '', /not connected to enough stake: connected to 60\.000000%/)
    assert.equal(await node1.receipt(hash), null, 'the transfer was not accepted while stalled')

    await Promise.all([net.start(4), net.start(5)])
    await waitReceipts(node1, [hash], 120_000)
    await waitFor('node 1 healthy again', 60_000, async () => (await health(node1)).status === 200, node1)
    const recovered = await health(node1)
    assert.equal(recovered.body.checks.C?.error, undefined)
    assert.equal(recovered.body.checks.C?.contiguousFailures, 0)
    assert.equal(recovered.body.checks.network?.error, undefined)
  })
})
