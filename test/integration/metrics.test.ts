/**
 * /ext/metrics on real `firn` processes: a dev node takes JSON-RPC calls on /ext/info, the C chain's /rpc (single
 * and batch) and /ws, and one transaction that becomes a block; its scrapes before and after, parsed strictly
 * (test/helpers/prom-text.ts), show every named series with its labels and counters that moved by exactly the calls
 * made. Two nodes on a local network show peers and bytes per p2p protocol; one of them runs with
 * `--api-metrics-enabled=false` and serves no /ext/metrics.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { Wallet } from 'ethers'
import WebSocket from 'ws'
import { EWOQ_PRIVATE_KEY } from '../../src/chains/evm/rules/presets.js'
import { type FirnProcess, startFirn } from '../helpers/firn-process.js'
import { type Family, parsePrometheusText, sampleValue } from '../helpers/prom-text.js'

type Families = Map<string, Family>

async function scrape(node: FirnProcess): Promise<Families> {
  const res = await fetch(`${node.url}/ext/metrics`)
  assert.equal(res.status, 200)
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8')
  return parsePrometheusText(await res.text())
}

const value = (f: Families, name: string, labels: Record<string, string> = {}): number => {
  const v = sampleValue(f, name, labels)
  assert.notEqual(v, undefined, `no sample ${name} ${JSON.stringify(labels)}`)
  return v as number
}

/** `name{labels}` in `after` minus in `before` (a series absent before counts as 0). */
const delta = (before: Families, after: Families, name: string, labels: Record<string, string>): number =>
  value(after, name, labels) - (sampleValue(before, name, labels) ?? 0)

const post = async (url: string, body: unknown): Promise<unknown> => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  assert.equal(res.status, 200)
  return res.json()
}

/** Polls `check` every 50 ms until it returns a value, up to `ms`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await check()
    if (v !== undefined) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('/ext/metrics on a dev node', { timeout: 120_000 }, () => {
  let node: FirnProcess
  before(async () => {
    node = await startFirn({ args: ['--dev'] })
  })
  after(async () => {
    await node?.cleanup()
  })

  it('counts every call by endpoint, method and outcome, and the block they made', async () => {
    const rpc = `${node.url}/ext/bc/C/rpc`
    const info = `${node.url}/ext/info`
    const ws = new WebSocket(`${node.url.replace('http', 'ws')}/ext/bc/C/ws`)
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    const s0 = await scrape(node)

    for (let i = 0; i < 2; i++) await post(info, { jsonrpc: '2.0', id: i, method: 'info.getNodeID' })
    await post(info, { jsonrpc: '2.0', id: 9, method: 'info.noSuchMethod' })
    for (let i = 0; i < 3; i++) await post(rpc, { jsonrpc: '2.0', id: i, method: 'eth_blockNumber', params: [] })
    await post(rpc, { jsonrpc: '2.0', id: 4, method: 'eth_getBalance', params: ['0xnot-an-address', 'latest'] })
    await post(rpc, { jsonrpc: '2.0', id: 5, method: 'eth_noSuchMethod', params: [] })
    await post(rpc, [
      { jsonrpc: '2.0', id: 6, method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] },
    ])
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'eth_chainId', params: [] }))
    await new Promise((resolve) => ws.once('message', resolve))
    const raw = await new Wallet(EWOQ_PRIVATE_KEY).signTransaction({
      type: 2,
      chainId: 43112,
      nonce: 0,
      to: '0x0100000000000000000000000000000000000000',
      value: 1n,
      gasLimit: 21_000n,
      maxFeePerGas: 1_000_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    })
    const sent = (await post(rpc, { jsonrpc: '2.0', id: 10, method: 'eth_sendRawTransaction', params: [raw] })) as {
      result?: string
    }
    assert.match(sent.result ?? '', /^0x[0-9a-f]{64}$/)
    // the block: wait on the metrics themselves, so no JSON-RPC call is added while waiting
    const s1 = await until('the block accepted', async () => {
      const s = await scrape(node)
      return value(s, 'avalanche_snowman_blks_accepted_count', { chain: 'C' }) >= 1 ? s : undefined
    })

    const calls = (endpoint: string, method: string, outcome: string) =>
      delta(s0, s1, 'firn_rpc_call_duration_seconds_count', { endpoint, method, outcome })
    assert.equal(calls('info', 'info.GetNodeID', 'success'), 2)
    assert.equal(calls('info', 'unknown', 'failure'), 1)
    assert.equal(calls('C/rpc', 'eth_blockNumber', 'success'), 3)
    assert.equal(calls('C/rpc', 'eth_getBalance', 'failure'), 1)
    assert.equal(calls('C/rpc', 'unknown', 'failure'), 1)
    assert.equal(calls('C/rpc', 'eth_chainId', 'success'), 2)
    assert.equal(calls('C/ws', 'eth_chainId', 'success'), 1)
    assert.equal(calls('C/rpc', 'eth_sendRawTransaction', 'success'), 1)
    assert.equal(sampleValue(s1, 'firn_rpc_call_duration_seconds_count', { method: 'eth_noSuchMethod' }), undefined)
    // the histogram's buckets end at +Inf with the count
    const inf = value(s1, 'firn_rpc_call_duration_seconds_bucket', {
      endpoint: 'C/rpc',
      method: 'eth_blockNumber',
      outcome: 'success',
      le: '+Inf',
    })
    assert.equal(
      inf,
      value(s1, 'firn_rpc_call_duration_seconds_count', {
        endpoint: 'C/rpc',
        method: 'eth_blockNumber',
        outcome: 'success',
      }),
    )

    // coreth's counters: 9 calls on C's geth-style endpoints, 2 of them failed
    assert.equal(delta(s0, s1, 'avalanche_evm_rpc_requests', { chain: 'C' }), 9)
    assert.equal(delta(s0, s1, 'avalanche_evm_rpc_success', { chain: 'C' }), 7)
    assert.equal(delta(s0, s1, 'avalanche_evm_rpc_failure', { chain: 'C' }), 2)
    // the reference's API server metrics: HTTP requests per base; the WebSocket counts once it closes
    assert.equal(delta(s0, s1, 'avalanche_api_calls', { base: 'info' }), 3)
    assert.equal(delta(s0, s1, 'avalanche_api_calls', { base: 'C' }), 7)
    assert.equal(value(s1, 'avalanche_api_calls_processing', { base: 'C' }), 1)
    assert.ok(delta(s0, s1, 'avalanche_api_calls_duration', { base: 'info' }) > 0)
    ws.close()

    // the block
    assert.equal(delta(s0, s1, 'avalanche_snowman_blks_built', { chain: 'C' }), 1)
    assert.equal(delta(s0, s1, 'avalanche_snowman_blks_accepted_count', { chain: 'C' }), 1)
    assert.equal(delta(s0, s1, 'firn_snowman_finality_seconds_count', { chain: 'C' }), 1)
    assert.equal(delta(s0, s1, 'avalanche_snowman_consensus_latencies_count', { chain: 'C' }), 1)
    assert.ok(delta(s0, s1, 'avalanche_snowman_blks_accepted_sum', { chain: 'C' }) > 0)
    assert.ok(delta(s0, s1, 'avalanche_snowman_blks_accepted_container_size_sum', { chain: 'C' }) > 0)
    assert.equal(value(s1, 'avalanche_snowman_last_accepted_height', { chain: 'C' }), 1)
    assert.equal(value(s1, 'avalanche_snowman_blks_rejected_count', { chain: 'C' }), 0)
    assert.equal(value(s1, 'avalanche_snowman_blks_processing', { chain: 'C' }), 0)
    assert.equal(value(s1, 'avalanche_snowman_bootstrap_finished', { chain: 'C' }), 1)
  })

  it('names the pools, peers, actors, protocols and process series with their labels', async () => {
    const s = await scrape(node)
    for (const name of ['avalanche_evm_txpool_pending', 'avalanche_evm_txpool_queued']) {
      assert.equal(value(s, name, { chain: 'C' }), 0)
    }
    assert.equal(value(s, 'avalanche_evm_atomic_mempool_pending_txs', { chain: 'C' }), 0)
    assert.equal(value(s, 'avalanche_evm_atomic_mempool_issued_txs', { chain: 'C' }), 0)
    assert.equal(value(s, 'avalanche_network_peers'), 0)
    assert.equal(value(s, 'avalanche_benchlist_benched_num', { chain: 'C' }), 0)
    assert.equal(value(s, 'firn_network_bytes_total', { io: 'sent', protocol: 'consensus' }), 0)
    assert.ok(value(s, 'firn_actor_mailbox_events', { actor: 'chain:C' }) > 0)
    assert.ok(value(s, 'firn_actor_mailbox_wait_seconds', { actor: 'chain:C', quantile: '0.99' }) >= 0)
    assert.ok(value(s, 'firn_actor_asks', { actor: 'chain:C' }) >= 1, 'eth_sendRawTransaction asks the chain actor')
    assert.ok(value(s, 'avalanche_process_process_resident_memory_bytes') > 0)
    assert.ok(value(s, 'avalanche_process_nodejs_heap_size_used_bytes') > 0)
    assert.ok(value(s, 'avalanche_process_nodejs_eventloop_lag_p99_seconds') >= 0)
    assert.equal(s.get('avalanche_snowman_blks_built')?.type, 'counter')
    assert.equal(s.get('firn_rpc_call_duration_seconds')?.type, 'histogram')
  })

  it('answers GET only', async () => {
    const res = await fetch(`${node.url}/ext/metrics`, { method: 'POST', body: '{}' })
    assert.equal(res.status, 405)
    assert.equal(res.headers.get('allow'), 'GET')
  })
})

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

describe('/ext/metrics between two nodes', { timeout: 120_000 }, () => {
  const BASE = ['--network-id=local', '--sybil-protection-enabled=false', '--staking-host=127.0.0.1']
  const started: FirnProcess[] = []
  after(async () => {
    for (const node of started) await node.cleanup()
  })

  it('shows the peer and the bytes of each protocol; a node with metrics off serves none', async () => {
    const port = await freePort()
    const n1 = await startFirn({ args: [...BASE, `--staking-port=${port}`, '--network-ping-frequency=1s'] })
    started.push(n1)
    const id1 = ((await n1.rpc('/ext/info', 'info.getNodeID')).body.result as { nodeID: string }).nodeID
    const boot = [`--bootstrap-ips=127.0.0.1:${port}`, `--bootstrap-ids=${id1}`]
    const n2 = await startFirn({ args: [...BASE, ...boot, '--api-metrics-enabled=false'] })
    started.push(n2)
    assert.equal((await fetch(`${n2.url}/ext/metrics`)).status, 404)

    const s = await until('a peer and its pings', async () => {
      const f = await scrape(n1)
      const pinged = (sampleValue(f, 'firn_network_bytes_total', { io: 'received', protocol: 'ping' }) ?? 0) > 0
      return value(f, 'avalanche_network_peers') === 1 && pinged ? f : undefined
    })
    for (const io of ['sent', 'received']) {
      assert.ok(value(s, 'firn_network_bytes_total', { io, protocol: 'handshake' }) > 0, `handshake ${io}`)
      assert.ok(value(s, 'firn_network_bytes_total', { io, protocol: 'ping' }) > 0, `ping ${io}`)
    }
    assert.equal(value(s, 'avalanche_benchlist_benched_num', { chain: 'C' }), 0)
  })
})
