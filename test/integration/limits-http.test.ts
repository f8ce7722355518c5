/**
 * Issue 14, item 4: one HTTP client cannot exhaust the node. A real `firn --dev` with per-client limits set:
 * 60 pipelined eth_calls each answering ~10 MB of hex (5 MB returned through a state override) on a socket that
 * never reads keep the node's memory under a bound while another client is served; more pipelined requests than
 * allowed close the connection; TCP connections per IP are capped; requests per second per IP get 429.
 * Clients come from different 127.x addresses, so each is a client of its own.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { Agent } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { call, devNodeWithConfig, memoryOf, post, rawSocket } from '../helpers/clients.js'
import type { FirnProcess } from '../helpers/firn-process.js'
import { until } from '../helpers/until.js'

const OVERRIDDEN = `0x${'aa'.repeat(20)}`
/** PUSH3 5,000,000 PUSH1 0 RETURN: 5 MB of zeros (48M gas of memory, under the 50M cap) */
const FIVE_MB = '0x624c4b406000f3'
/** an eth_call of `code` put at OVERRIDDEN by a state override */
const callWithCode = (id: number, code: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'eth_call',
    params: [{ to: OVERRIDDEN }, 'latest', { [OVERRIDDEN]: { code } }],
  })
const bigCall = (id: number) => callWithCode(id, FIVE_MB)
/** PUSH2 0xffff, then JUMPDEST PUSH1 1 SWAP1 SUB DUP1 PUSH1 3 JUMPI STOP: 65,535 turns of a loop (1.7M gas) */
const LOOP = '0x61ffff5b600190038060035700'
const slowCall = (id: number) => callWithCode(id, LOOP)
const pipelined = (bodies: string[]) =>
  bodies
    .map(
      (b) =>
        `POST /ext/bc/C/rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${b.length}\r\n\r\n${b}`,
    )
    .join('')

/**
 * The bound on the node's growth (peak RSS over RSS before) while 60 unread ~10 MB replies are asked for. A
 * 10 MB reply allocates about 40 MB on its way out (hex, JSON, answer text, socket buffer); with the replies
 * served one at a time the test makes four of them (the hog's first, stuck in its socket, and the other client's
 * three), which the collector may not have reclaimed yet: 205-245 MB measured. Sixty replies are 600 MB of text
 * at least (765-860 MB measured without the limit; the issue saw 201 -> 950 MB).
 */
const GROWTH_BOUND_MB = 400

describe('per-client HTTP limits', () => {
  let node: FirnProcess
  let rpcUrl = ''

  before(async () => {
    node = await devNodeWithConfig({}, [
      '--api-rate-limit=100',
      '--http-max-connections-per-ip=8',
      '--http-max-pipelined-requests=64',
    ])
    rpcUrl = `${node.url}/ext/bc/C/rpc`
  })
  after(async () => node?.cleanup())

  it('a pipelining client that never reads holds one reply, not sixty', { timeout: 120_000 }, async () => {
    const warm = await post(rpcUrl, bigCall(1), '127.0.0.3')
    assert.equal(String(warm.json?.result).length, 2 + 10_000_000)
    const before = await memoryOf(node.pid)
    const hog = await rawSocket(node.url, '127.0.0.2')
    hog.pause()
    hog.write(pipelined(Array.from({ length: 60 }, (_, i) => bigCall(i + 1))))
    // another client keeps being served; its calls queue behind the hog's in the EVM lane, so an unbounded node
    // would have made all 60 replies by the time these are answered
    for (let i = 0; i < 3; i++) {
      const answer = await post(rpcUrl, bigCall(100 + i), '127.0.0.3')
      assert.equal(String(answer.json?.result).length, 2 + 10_000_000)
    }
    const after = await memoryOf(node.pid)
    hog.destroy()
    const growth = after.peakMb - before.rssMb
    assert.ok(growth < GROWTH_BOUND_MB, `memory grew by ${growth.toFixed(0)} MB (bound ${GROWTH_BOUND_MB} MB)`)
  })
  it('more pipelined requests than allowed close the connection; others are served', { timeout: 60_000 }, async () => {
    const hog = await rawSocket(node.url, '127.0.0.4')
    hog.pause()
    const closed = new Promise<void>((resolve) => hog.once('close', () => resolve()))
    // the first call loops for a while, so the 80 behind it are read and wait: more than the 64 allowed (a first
    // call that answers at once could have its reply fill the socket, and Node then stops reading the rest)
    const small = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })
    hog.write(pipelined([slowCall(1), ...Array.from({ length: 80 }, () => small)]))
    await closed
    assert.match(node.output(), /HTTP connection closed: too many pipelined requests waiting/)
    assert.equal((await call(rpcUrl, 'eth_chainId', [], '127.0.0.4')).json?.result, '0xa868')
  })

  it('connections per IP are capped; another address connects', { timeout: 60_000 }, async () => {
    const held = await Promise.all(Array.from({ length: 8 }, () => rawSocket(node.url, '127.0.0.5')))
    const ninth = await rawSocket(node.url, '127.0.0.5')
    await new Promise<void>((resolve) => ninth.once('close', () => resolve()))
    assert.ok(held.every((s) => !s.destroyed))
    assert.match(node.output(), /HTTP connection refused: too many connections.*http-max-connections-per-ip/)
    assert.equal((await call(rpcUrl, 'eth_chainId', [], '127.0.0.6')).json?.result, '0xa868')
    for (const s of held) s.destroy()
    // the slots come back when the connections close
    await until('a slot for 127.0.0.5', async () => {
      const answer = await call(rpcUrl, 'eth_chainId', [], '127.0.0.5').catch(() => undefined)
      return answer?.json?.result === '0xa868' ? true : undefined
    })
  })

  it('requests per second per IP are limited with 429; another address is served', { timeout: 60_000 }, async () => {
    // four keep-alive connections (the per-IP connection cap is 8)
    const agent = new Agent({ keepAlive: true, maxSockets: 4 })
    const answers = await Promise.all(
      Array.from({ length: 150 }, () => call(rpcUrl, 'eth_chainId', [], '127.0.0.7', agent)),
    )
    agent.destroy()
    const limited = answers.filter((a) => a.status === 429)
    assert.ok(limited.length >= 20, `${limited.length} of 150 refused with a burst of 100`)
    assert.ok(answers.filter((a) => a.status === 200).length >= 100)
    assert.match(limited[0]!.text, /^rate limit exceeded: 100 requests per second per IP address/)
    assert.ok(Number(limited[0]!.headers['retry-after']) >= 1)
    assert.equal((await call(rpcUrl, 'eth_chainId', [], '127.0.0.8')).status, 200)
  })
})
