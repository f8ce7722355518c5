/**
 * `/ext/health` on real `firn` processes (issue 14, item 1): a `--dev` node is healthy (GET 200 on every path,
 * JSON-RPC health.*, the reference's result fields, tags, checks re-run on the interval); a local-network node that
 * is no validator and has no peers is unhealthy and not ready (503, the failing checks' errors and counters);
 * `--api-health-enabled=false` serves nothing.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type FirnProcess, startFirn } from '../helpers/firn-process.js'

const PRIMARY = '11111111111111111111111111111111LpoYY'
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/

interface Result {
  message?: unknown
  error?: string
  timestamp: string
  duration: number
  contiguousFailures: number
  timeOfFirstFailure: string | null
}
interface Reply {
  checks: Record<string, Result>
  healthy: boolean
}

async function get(url: string): Promise<{ status: number; type: string | null; body: Reply }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) })
  return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Reply }
}

const waitFor = async (what: string, check: () => Promise<boolean>, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('/ext/health on a dev node', () => {
  let node: FirnProcess
  before(async () => {
    node = await startFirn({ args: ['--dev', '--health-check-frequency=200ms'] })
  })
  after(async () => {
    await node?.cleanup()
  })

  it('answers GET with 200 and every check passing, with the reference’s fields', async () => {
    const r = await get(`${node.url}/ext/health`)
    assert.equal(r.status, 200)
    assert.equal(r.type, 'application/json')
    assert.equal(r.body.healthy, true)
    assert.deepEqual(Object.keys(r.body.checks).sort(), ['C', 'bootstrapped', 'database', 'network'])
    for (const [name, c] of Object.entries(r.body.checks)) {
      assert.equal(c.error, undefined, name)
      assert.match(c.timestamp, RFC3339)
      assert.ok(Number.isInteger(c.duration) && c.duration > 0, `${name} duration ${c.duration}`)
      assert.equal(c.contiguousFailures, 0)
      assert.equal(c.timeOfFirstFailure, null)
    }
    assert.deepEqual(r.body.checks.network?.message, {
      connectedPeers: 0,
      percentConnected: 1,
      disconnectedValidators: [],
    })
    const c = r.body.checks.C?.message as { state: string; vm: { pool: unknown } }
    assert.equal(c.state, 'normalOp')
    assert.ok(c.vm.pool !== undefined)
    assert.deepEqual((await get(`${node.url}/ext/health/health`)).body.healthy, true)
  })

  it('serves readiness and liveness, by GET and by JSON-RPC, with tags', async () => {
    const ready = await get(`${node.url}/ext/health/readiness`)
    assert.equal(ready.status, 200)
    assert.deepEqual(Object.keys(ready.body.checks), ['bootstrapped'])
    assert.deepEqual(await get(`${node.url}/ext/health/liveness`).then((r) => [r.status, r.body]), [
      200,
      { checks: {}, healthy: true },
    ])
    const rpc = await node.rpc('/ext/health', 'health.health', { tags: [PRIMARY] })
    assert.equal(rpc.status, 200)
    const byTag = rpc.body.result as Reply
    assert.deepEqual(Object.keys(byTag.checks).sort(), ['C', 'bootstrapped', 'database', 'network'])
    const other = (await node.rpc('/ext/health', 'health.health', [{ tags: ['no-such-subnet'] }])).body.result as Reply
    assert.deepEqual(Object.keys(other.checks).sort(), ['bootstrapped', 'database', 'network'])
    const viaGet = await get(`${node.url}/ext/health?tag=no-such-subnet`)
    assert.deepEqual(Object.keys(viaGet.body.checks).sort(), ['bootstrapped', 'database', 'network'])
    assert.equal(((await node.rpc('/ext/health', 'health.readiness')).body.result as Reply).healthy, true)
    assert.deepEqual((await node.rpc('/ext/health', 'health.liveness', {})).body.result, { checks: {}, healthy: true })
    const bad = await node.rpc('/ext/health', 'health.health', { tags: 'C' })
    assert.match(bad.body.error?.message ?? '', /couldn't unmarshal an argument/)
    const tooMany = await node.rpc('/ext/health', 'health.health', {
      tags: Array.from({ length: 65 }, (_, i) => `t${i}`),
    })
    assert.equal(tooMany.body.error?.message, 'too many tags: 65 > 64')
  })

  it('re-runs the checks on the interval: the timestamps move', async () => {
    const first = (await get(`${node.url}/ext/health`)).body.checks.database!.timestamp
    await waitFor(
      'a newer database check',
      async () => (await get(`${node.url}/ext/health`)).body.checks.database!.timestamp > first,
    )
  })
})

describe('/ext/health on a node that cannot work', () => {
  let node: FirnProcess
  before(async () => {
    // the local network's genesis validators are five other nodes; with no bootstrap peers this one reaches none
    node = await startFirn({ args: ['--network-id=local', '--health-check-frequency=200ms'] })
  })
  after(async () => {
    await node?.cleanup()
  })

  it('answers 503 with the failing checks, their errors and their counters', async () => {
    await waitFor(
      'two failed rounds',
      async () => (await get(`${node.url}/ext/health`)).body.checks.network!.contiguousFailures >= 2,
    )
    const r = await get(`${node.url}/ext/health`)
    assert.equal(r.status, 503)
    assert.equal(r.body.healthy, false)
    const net = r.body.checks.network!
    assert.equal(
      net.error,
      'network layer is unhealthy reason: not connected to a minimum of 1 peer(s) only 0, not connected to enough stake: connected to 0.000000%; required at least 80.000000%',
    )
    assert.match(net.timeOfFirstFailure ?? '', RFC3339)
    assert.ok((net.message as { disconnectedValidators: string[] }).disconnectedValidators.length === 5)
    assert.equal(r.body.checks.bootstrapped?.error, 'subnets not bootstrapped')
    assert.deepEqual(r.body.checks.bootstrapped?.message, [PRIMARY])
    assert.equal(r.body.checks.database?.error, undefined)
    const ready = await get(`${node.url}/ext/health/readiness`)
    assert.equal(ready.status, 503)
    assert.equal((await get(`${node.url}/ext/health/liveness`)).status, 200)
  })
})

describe('--api-health-enabled=false', () => {
  it('serves no /ext/health', async () => {
    const node = await startFirn({ args: ['--dev', '--api-health-enabled=false'] })
    try {
      const res = await fetch(`${node.url}/ext/health`)
      assert.equal(res.status, 404)
      await res.body?.cancel()
    } finally {
      await node.cleanup()
    }
  })
})
