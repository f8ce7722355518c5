import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { bytesToHex } from '@ethereumjs/util'
import { BloomFilter } from '../../../../../../protocols/peers/bloom.js'
import { TxGossiper } from '../../../../../../src/chains/evm/gossip/gossiper.js'
import type { TxGossipConfig } from '../../../../../../src/chains/evm/gossip/types.js'
import {
  AppRequestError,
  decodePushGossip,
  encodePullRequest,
  encodePushGossip,
  splitHandlerPrefix,
  withHandlerPrefix,
} from '../../../../../../src/chains/evm/gossip/wire.js'
import { openTestChain, type TestChain } from '../../../../../helpers/evm-chain.js'
import { MemoryGossipNet, quietLogger } from './memory-net.js'

interface Node {
  chain: TestChain
  g: TxGossiper
}

/** a deterministic [0, 1) sequence */
function lcg(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

const opened: Node[] = []
after(async () => {
  for (const n of opened) {
    n.g.stop()
    await n.chain.close()
  }
})

/** Gossipers on real C-chain VMs, all validators of weight 100, timers off unless `config` sets them. */
async function network(
  names: string[],
  opts: { config?: Partial<TxGossipConfig>; now?: () => number; start?: boolean } = {},
): Promise<{ net: MemoryGossipNet; n: Record<string, Node> }> {
  const net = new MemoryGossipNet()
  const n: Record<string, Node> = {}
  for (const name of names) net.weights.set(name, 100n)
  for (const [i, name] of names.entries()) {
    const chain = await openTestChain()
    const g = new TxGossiper({
      vm: chain.vm,
      transport: net.transport(name),
      log: quietLogger(),
      random: lcg(i + 1),
      ...(opts.now === undefined ? {} : { now: opts.now }),
      config: { pushIntervalMs: 0, pullIntervalMs: 0, ...opts.config },
    })
    net.nodes.set(name, g)
    n[name] = { chain, g }
    opened.push(n[name])
    if (opts.start ?? true) g.start()
  }
  return { net, n }
}

/** the serialized txs a push message carries, as hex */
function pushedTxs(bytes: Uint8Array): string[] {
  return decodePushGossip(splitHandlerPrefix(bytes).payload).map((raw) => bytesToHex(raw))
}

function pullRequest(): Uint8Array {
  return withHandlerPrefix(0n, encodePullRequest(new Uint8Array(32), BloomFilter.empty().marshal()))
}

async function appError(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p
  } catch (err) {
    assert.ok(err instanceof AppRequestError, `expected an AppRequestError, got ${String(err)}`)
    return { code: err.code, message: err.message }
  }
  assert.fail('expected the request to be refused')
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10))
  assert.ok(cond(), 'condition not reached')
}

describe('TxGossiper', () => {
  it('pushes a locally submitted tx to the other validators, which do not push it on', async () => {
    const { net, n } = await network(['A', 'B', 'C'])
    const { A, B, C } = n as Record<'A' | 'B' | 'C', Node>
    const tx = await A.chain.signTransfer()
    const hash = await A.chain.vm.submitTransaction(tx)
    A.g.pushNow()
    await Promise.all([B.g.idle(), C.g.idle()])
    assert.equal(B.chain.vm.pool.status(hash), 'pending')
    assert.equal(C.chain.vm.pool.status(hash), 'pending')
    const sent = net.sentBy('A')
    assert.equal(sent.length, 1)
    assert.deepEqual([...(sent[0]?.to ?? [])].sort(), ['B', 'C'])
    assert.equal(A.g.stats().pushedTxs, 1)
    assert.equal(B.g.stats().added, 1)
    // received txs are remote: never pushed again; A does not push the same tx twice
    B.g.pushNow()
    C.g.pushNow()
    A.g.pushNow()
    assert.equal(net.gossip.length, 1)
    assert.equal(B.g.stats().pushedTxs, 0)
  })

  it('pulls the txs only a peer has, skipping the ones in its bloom filter', async () => {
    const { net, n } = await network(['A', 'B'])
    const { A, B } = n as Record<'A' | 'B', Node>
    const shared = await A.chain.signTransfer()
    await A.chain.vm.submitTransaction(shared)
    await B.chain.vm.submitTransaction(shared)
    const only = await B.chain.signTransfer({ nonce: 1n })
    const onlyHash = await B.chain.vm.submitTransaction(only)
    // B never pushes (no timer, no pushNow): A can only learn it by pulling
    await A.g.pullNow()
    assert.equal(A.chain.vm.pool.status(onlyHash), 'pending')
    assert.deepEqual(net.requests, [{ from: 'A', to: 'B' }])
    assert.equal(B.g.stats().servedTxs, 1, 'the shared tx is in the filter')
    assert.equal(A.g.stats().alreadyKnown, 0)
    assert.equal(A.g.stats().added, 1)
    // A pushes its own tx, never the pulled one
    A.g.pushNow()
    const pushed = net.sentBy('A').flatMap((g) => pushedTxs(g.bytes))
    assert.deepEqual(pushed, [bytesToHex(shared.serialize())])
  })

  it('pulls only while it is a validator and has a connected validator', async () => {
    const { net, n } = await network(['A', 'B'])
    const { A } = n as Record<'A' | 'B', Node>
    net.weights.set('A', 0n)
    await A.g.pullNow()
    assert.equal(net.requests.length, 0)
    net.weights.set('A', 100n)
    net.weights.set('B', 0n)
    await A.g.pullNow()
    assert.equal(net.requests.length, 0)
    net.weights.set('B', 100n)
    await A.g.pullNow()
    assert.equal(net.requests.length, 1)
  })

  it('serves pulls to validators only and ignores gossip from non-validators', async () => {
    const { net, n } = await network(['A', 'B'])
    const { A, B } = n as Record<'A' | 'B', Node>
    net.outsiders.add('X')
    assert.deepEqual(await appError(B.g.onAppRequest('X', pullRequest())), { code: -3, message: 'not a validator' })
    assert.equal(B.g.stats().refusedNotValidator, 1)
    const tx = await A.chain.signTransfer()
    B.g.onAppGossip('X', withHandlerPrefix(0n, encodePushGossip([tx.serialize()])))
    await B.g.idle()
    assert.equal(B.chain.vm.pool.has(bytesToHex(tx.hash())), false)
    assert.equal(B.g.stats().ignoredGossip, 1)
    // the same bytes from a validator get in
    B.g.onAppGossip('A', withHandlerPrefix(0n, encodePushGossip([tx.serialize()])))
    await B.g.idle()
    assert.equal(B.chain.vm.pool.has(bytesToHex(tx.hash())), true)
    // and again: already known, counted quietly
    B.g.onAppGossip('A', withHandlerPrefix(0n, encodePushGossip([tx.serialize()])))
    await B.g.idle()
    assert.equal(B.g.stats().alreadyKnown, 1)
  })

  it('drops gossip of a tx an accepted block already holds, without trying the pool', async () => {
    const { n } = await network(['A', 'B'])
    const B = n.B!
    const tx = await B.chain.signTransfer()
    await B.chain.mine([tx])
    const before = B.g.stats()
    // a peer that lags a block sends it again
    B.g.onAppGossip('A', withHandlerPrefix(0n, encodePushGossip([tx.serialize()])))
    await B.g.idle()
    const after = B.g.stats()
    assert.equal(after.alreadyKnown - before.alreadyKnown, 1)
    assert.equal(after.rejected, before.rejected, 'not refused by the pool as nonce too low')
  })

  it('throttles a peer past 3600 pull requests an hour', async () => {
    let now = 1_700_000_000_000
    const { n } = await network(['A', 'B', 'C'], { now: () => now })
    const { B } = n as Record<'A' | 'B' | 'C', Node>
    for (let i = 0; i < 3600; i++) await B.g.onAppRequest('A', pullRequest())
    assert.deepEqual(await appError(B.g.onAppRequest('A', pullRequest())), { code: -4, message: 'throttled' })
    // another peer has its own budget
    await B.g.onAppRequest('C', pullRequest())
    now += 30 * 60_000
    assert.deepEqual(await appError(B.g.onAppRequest('A', pullRequest())), { code: -4, message: 'throttled' })
    now += 2 * 3_600_000
    await B.g.onAppRequest('A', pullRequest())
    assert.equal(B.g.stats().refusedThrottled, 2)
    assert.equal(B.g.stats().served, 3602)
  })

  it('splits a large batch into messages of at most 20 KiB; a larger tx goes alone', async () => {
    const { net, n } = await network(['A', 'B'])
    const { A, B } = n as Record<'A' | 'B', Node>
    const hashes: string[] = []
    for (let i = 0n; i < 8n; i++) {
      const tx = await A.chain.signTransfer({ nonce: i, data: new Uint8Array(5_000).fill(1), gasLimit: 200_000n })
      hashes.push(await A.chain.vm.submitTransaction(tx))
    }
    const big = await A.chain.signTransfer({ nonce: 8n, data: new Uint8Array(30_000).fill(1), gasLimit: 600_000n })
    hashes.push(await A.chain.vm.submitTransaction(big))
    A.g.pushNow()
    await B.g.idle()
    const sent = net.sentBy('A')
    const sizes = sent.map((g) => splitHandlerPrefix(g.bytes).payload.length)
    const counts = sent.map((g) => decodePushGossip(splitHandlerPrefix(g.bytes).payload).length)
    // 8 × ~5.1 kB need two messages, the 30 kB tx a third
    assert.ok(sent.length >= 3, `expected several messages, got ${sent.length}`)
    for (const [i, size] of sizes.entries()) {
      if (counts[i] === 1 && size > 20 * 1024) continue
      assert.ok(size <= 20 * 1024, `message ${i} has ${size} bytes`)
    }
    assert.equal(
      sizes.filter((s) => s > 20 * 1024).length,
      1,
      'only the 30 kB tx exceeds the cap, in a message of its own',
    )
    assert.equal(
      counts.reduce((a, b) => a + b, 0),
      9,
    )
    for (const h of hashes) assert.equal(B.chain.vm.pool.status(h), 'pending')
    assert.equal(A.g.stats().pushMessages, sent.length)
  })

  it('regossips txs still pending 30 s after their last push, to at most 10 validators', async () => {
    let now = 1_700_000_000_000
    const names = Array.from({ length: 13 }, (_, i) => `N${i}`)
    const { net, n } = await network(names, { now: () => now })
    const A = n.N0 as Node
    const hash = await A.chain.vm.submitTransaction(await A.chain.signTransfer())
    A.g.pushNow()
    assert.equal(net.sentBy('N0').length, 1)
    assert.equal(net.sentBy('N0')[0]?.to.length, 12)
    now += 29_999
    A.g.pushNow()
    assert.equal(net.sentBy('N0').length, 1)
    now += 1
    A.g.pushNow()
    const again = net.sentBy('N0')
    assert.equal(again.length, 2)
    assert.equal(again[1]?.to.length, 10)
    assert.equal(A.g.stats().regossipedTxs, 1)
    // once included in a block it is no longer regossiped
    await A.chain.mine()
    assert.equal(A.chain.vm.pool.has(hash), false)
    now += 30_000
    A.g.pushNow()
    assert.equal(net.sentBy('N0').length, 2)
  })

  it('never throws on garbage and answers bad requests with -1, other handlers with -2', async () => {
    const { n } = await network(['A', 'B'])
    const { A, B } = n as Record<'A' | 'B', Node>
    const rand = lcg(42)
    for (let i = 0; i < 300; i++) {
      const len = Math.floor(rand() * 200)
      const bytes = Uint8Array.from({ length: len }, () => Math.floor(rand() * 256))
      if (i % 2 === 0 && len > 0) bytes[0] = 0
      assert.doesNotThrow(() => B.g.onAppGossip('A', bytes))
      const refused = await appError(B.g.onAppRequest('A', bytes))
      assert.ok(refused.code === -1 || refused.code === -2, `code ${refused.code}`)
    }
    // well-formed messages carrying junk txs: counted as invalid
    B.g.onAppGossip('A', withHandlerPrefix(0n, encodePushGossip([Uint8Array.of(1, 2, 3), new Uint8Array(0)])))
    await B.g.idle()
    assert.equal(B.g.stats().added, 0)
    assert.ok(B.g.stats().invalid >= 2)
    assert.deepEqual(await appError(B.g.onAppRequest('A', new Uint8Array(0))), {
      code: -1,
      message: 'unexpected error',
    })
    assert.deepEqual(await appError(B.g.onAppRequest('A', withHandlerPrefix(1n, new Uint8Array(0)))), {
      code: -2,
      message: 'unregistered handler',
    })
    const badFilter = withHandlerPrefix(0n, encodePullRequest(new Uint8Array(32), Uint8Array.of(17, 0)))
    assert.equal((await appError(B.g.onAppRequest('A', badFilter))).code, -1)
    const longSalt = withHandlerPrefix(0n, encodePullRequest(new Uint8Array(33), BloomFilter.empty().marshal()))
    assert.equal((await appError(B.g.onAppRequest('A', longSalt))).code, -1)
    assert.equal(B.chain.vm.pool.stats().pending + B.chain.vm.pool.stats().queued, 0)
    // a pull answered with garbage, or refused, is counted, never thrown
    for (const answer of [
      () => Promise.resolve(Uint8Array.of(0x0a, 0xff)),
      () => Promise.reject(new Error('timeout')),
    ]) {
      const puller = new TxGossiper({
        vm: A.chain.vm,
        log: quietLogger(),
        config: { pushIntervalMs: 0, pullIntervalMs: 0 },
        transport: {
          self: 'A',
          validators: () => [
            { nodeId: 'A', weight: 1n },
            { nodeId: 'Z', weight: 1n },
          ],
          connectedNodeIds: () => ['Z'],
          appGossip: () => {},
          appRequest: answer,
        },
      })
      puller.start()
      await puller.pullNow()
      puller.stop()
      assert.equal(puller.stats().pullFailures, 1)
      assert.equal(puller.stats().pullRequests, 1)
    }
  })

  it('does nothing until started: requests get -2, gossip is dropped', async () => {
    const { n } = await network(['A', 'B'], { start: false })
    const { A, B } = n as Record<'A' | 'B', Node>
    assert.deepEqual(await appError(B.g.onAppRequest('A', pullRequest())), {
      code: -2,
      message: 'unregistered handler',
    })
    const tx = await A.chain.signTransfer()
    B.g.onAppGossip('A', withHandlerPrefix(0n, encodePushGossip([tx.serialize()])))
    await B.g.idle()
    assert.equal(B.chain.vm.pool.has(bytesToHex(tx.hash())), false)
    // a tx submitted before start is pushed once started
    const hash = await A.chain.vm.submitTransaction(tx)
    A.g.pushNow()
    A.g.start()
    B.g.start()
    A.g.pushNow()
    await B.g.idle()
    assert.equal(B.chain.vm.pool.status(hash), 'pending')
    B.g.stop()
    A.g.stop()
    assert.equal(B.g.started, false)
  })

  it('pushes a lone tx at once, and the next one no sooner than the push interval after it', async () => {
    // a 60 s interval: the tick would never push within the test
    const { n } = await network(['A', 'B'], { config: { pushIntervalMs: 60_000, pullIntervalMs: 0 } })
    const { A, B } = n as Record<'A' | 'B', Node>
    A.g.start()
    B.g.start()
    const first = await A.chain.vm.submitTransaction(await A.chain.signTransfer())
    await until(() => B.chain.vm.pool.has(first))
    assert.equal(A.g.stats().pushMessages, 1)
    const second = await A.chain.vm.submitTransaction(await A.chain.signTransfer())
    await new Promise((r) => setTimeout(r, 200))
    assert.equal(B.chain.vm.pool.has(second), false, 'held until 60 s after the first push')
    assert.equal(A.g.stats().pushMessages, 1)
    // pushNow (the same step the schedule runs) sends it
    A.g.pushNow()
    await until(() => B.chain.vm.pool.has(second))
    for (const x of [A, B]) x.g.stop()
  })

  it('runs push and pull on its timers once started', async () => {
    const { n } = await network(['A', 'B', 'C'], { config: { pushIntervalMs: 100, pullIntervalMs: 1_000 } })
    const { A, B, C } = n as Record<'A' | 'B' | 'C', Node>
    const hash = await A.chain.vm.submitTransaction(await A.chain.signTransfer())
    await until(() => B.chain.vm.pool.has(hash) && C.chain.vm.pool.has(hash))
    await until(() => A.g.stats().pullRequests > 0)
    for (const x of [A, B, C]) x.g.stop()
  })
})
