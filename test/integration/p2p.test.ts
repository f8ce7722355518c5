/**
 * Real `firn` processes talking libp2p on 127.0.0.1: three nodes meet through a bootstrapper and peer-list
 * gossip, a node of another network is refused, malformed bytes do not hurt, a killed node disappears and a
 * restarted one comes back with the same NodeID.
 */
import '../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer, Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { multiaddr } from '@multiformats/multiaddr'
import { createHost, type Host } from '../../src/network/host.js'
import { type FirnProcess, startFirn } from '../helpers/firn-process.js'
import { until } from '../helpers/until.js'

const P_CHAIN = '11111111111111111111111111111111LpoYY'
const SUBNET = '2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC'
/** pings every second (reference: 22.5 s) so uptime moves within the test */
const BASE = [
  '--network-id=local',
  '--sybil-protection-enabled=false',
  '--staking-host=127.0.0.1',
  '--network-ping-frequency=1s',
  '--network-ping-timeout=5s',
]

interface PeerEntry {
  ip: string
  publicIP: string
  nodeID: string
  version: string
  trackedSubnets: string[]
  observedUptime: string
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

async function result<T>(node: FirnProcess, method: string, params?: unknown): Promise<T> {
  const r = await node.rpc('/ext/info', method, params)
  assert.equal(r.body.error, undefined, `${method}: ${JSON.stringify(r.body.error)}`)
  return r.body.result as T
}

const peersOf = async (node: FirnProcess) => (await result<{ peers: PeerEntry[] }>(node, 'info.peers')).peers
const nodeIdOf = async (node: FirnProcess) => (await result<{ nodeID: string }>(node, 'info.getNodeID')).nodeID

/** Waits until `node`'s info.peers names exactly `expected` (order free). */
async function peersAre(node: FirnProcess, expected: string[], ms = 30_000): Promise<PeerEntry[]> {
  const want = [...expected].sort()
  return until(
    `peers ${want.join(',')}`,
    async () => {
      const peers = await peersOf(node)
      const ids = peers.map((p) => p.nodeID).sort()
      return JSON.stringify(ids) === JSON.stringify(want) ? peers : undefined
    },
    ms,
  )
}

/** Sends `bytes` on a raw TCP connection and resolves when the server closes it (true) or after `ms` (false). */
function rawSend(port: number, bytes: Uint8Array, ms = 20_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket()
    const timer = setTimeout(() => {
      socket.destroy()
      resolve(false)
    }, ms)
    socket.on('error', () => {})
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(true)
    })
    socket.connect(port, '127.0.0.1', () => socket.write(bytes))
  })
}

describe('p2p between firn processes', { timeout: 240_000 }, () => {
  const started: FirnProcess[] = []
  const dirs: string[] = []
  let n1: FirnProcess
  let n2: FirnProcess
  let n3: FirnProcess
  let ports: number[] = []
  let ids: string[] = []
  let n3Dir = ''

  const start = async (args: string[], dataDir?: string) => {
    const node = await startFirn({ args: [...BASE, ...args], dataDir, keepData: dataDir !== undefined })
    started.push(node)
    return node
  }

  before(async () => {
    ports = [await freePort(), await freePort(), await freePort()]
    n1 = await start([`--staking-port=${ports[0]}`])
    const id1 = await nodeIdOf(n1)
    const boot = [`--bootstrap-ips=127.0.0.1:${ports[0]}`, `--bootstrap-ids=${id1}`]
    n3Dir = await mkdtemp(join(tmpdir(), 'firn-p2p-'))
    dirs.push(n3Dir)
    ;[n2, n3] = await Promise.all([
      start([`--staking-port=${ports[1]}`, ...boot]),
      start([`--staking-port=${ports[2]}`, `--track-subnets=${SUBNET}`, ...boot], n3Dir),
    ])
    ids = [id1, await nodeIdOf(n2), await nodeIdOf(n3)]
  })

  after(async () => {
    for (const node of started) await node.cleanup()
    for (const dir of dirs) await rm(dir, { recursive: true, force: true })
  })

  it('binds the staking port and reports it', async () => {
    const ctx = JSON.parse(await readFile(join(n1.dataDir, 'process.json'), 'utf8')) as { stakingAddress: string }
    assert.equal(ctx.stakingAddress, `127.0.0.1:${ports[0]}`)
    assert.deepEqual(await result(n1, 'info.getNodeIP'), { ip: `127.0.0.1:${ports[0]}` })
  })

  it('every node lists the other two, nodes 2 and 3 through gossip', async () => {
    const nodes = [n1, n2, n3]
    for (let i = 0; i < 3; i++) {
      const others = [0, 1, 2].filter((j) => j !== i)
      const peers = await peersAre(
        nodes[i] as FirnProcess,
        others.map((j) => ids[j] as string),
      )
      for (const j of others) {
        const p = peers.find((e) => e.nodeID === ids[j]) as PeerEntry
        assert.equal(p.publicIP, `127.0.0.1:${ports[j]}`)
        assert.match(p.ip, /^127\.0\.0\.1:\d+$/)
        assert.equal(p.version, 'firn/0.1.0')
        assert.deepEqual(p.trackedSubnets, j === 2 ? [P_CHAIN, SUBNET].sort() : [P_CHAIN])
      }
    }
    assert.match(n1.output(), /peer connected/)
  })

  it('pings carry uptime: info.peers observedUptime and info.uptime read live values', async () => {
    const peers = await until(
      'a ping from each peer',
      async () => {
        const list = await peersOf(n1)
        return list.length === 2 && list.every((p) => p.observedUptime === '100') ? list : undefined
      },
      45_000,
    )
    assert.equal(peers.length, 2)
    assert.deepEqual(await result(n1, 'info.uptime'), {
      rewardingStakePercentage: '100.0000',
      weightedAveragePercentage: '100.0000',
    })
  })

  it('refuses a node of another network, and says why', async () => {
    const port = await freePort()
    const fuji = await start([
      '--network-id=fuji',
      '--sybil-protection-enabled=true',
      `--staking-port=${port}`,
      `--bootstrap-ips=127.0.0.1:${ports[0]}`,
      `--bootstrap-ids=${ids[0]}`,
    ])
    const fujiId = await nodeIdOf(fuji)
    await until(
      'node 1 to drop the fuji node',
      () => (/dropping peer \S+: network id mismatch/.test(n1.output()) ? true : undefined),
      30_000,
    )
    assert.equal(
      (await peersOf(n1)).some((p) => p.nodeID === fujiId),
      false,
    )
    assert.deepEqual(await peersOf(fuji), [])
    await fuji.stop()
    await peersAre(n1, [ids[1] as string, ids[2] as string])
  })

  it('refuses garbage and oversized bytes and keeps serving', async () => {
    const port = ports[0] as number
    const garbage = Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) & 0xff)
    assert.equal(await rawSend(port, garbage), true, 'garbage connection closed')
    const huge = new Uint8Array(3 * 1024 * 1024).fill(0x41)
    assert.equal(await rawSend(port, huge), true, 'oversized connection closed')

    // a proper libp2p peer sending an oversized frame and an undecodable one on the handshake protocol
    const probe: Host = await createHost({
      privateKey: await generateKeyPair('Ed25519'),
      networkId: 12345,
      host: '127.0.0.1',
      port: 0,
      handlers: { handshake: () => undefined, peers: () => undefined, ping: () => undefined },
    })
    try {
      const conn = await probe.dial(multiaddr(`/ip4/127.0.0.1/tcp/${port}`))
      const frames = [
        Uint8Array.of(0x80, 0x80, 0xc0, 0x01, 1, 2, 3), // length 3 MiB
        Uint8Array.of(5, 0xff, 0xff, 0xff, 0xff, 0xff), // a body that is not protobuf
      ]
      for (const frame of frames) {
        const stream = await conn.newStream('/firn/12345/handshake/2')
        stream.send(frame)
        await stream.close().catch(() => {})
        const chunks: Uint8Array[] = []
        try {
          for await (const chunk of stream) chunks.push(chunk instanceof Uint8Array ? chunk : chunk.subarray())
        } catch {
          // reset by node 1: the expected answer
        }
        assert.deepEqual(chunks, [], 'no answer to a malformed request')
      }
    } finally {
      await probe.stop()
    }
    await peersAre(n1, [ids[1] as string, ids[2] as string])
    await peersAre(n2, [ids[0] as string, ids[2] as string])
  })

  it('a killed node disappears from the others', async () => {
    await n3.stop('SIGKILL')
    await peersAre(n1, [ids[1] as string], 10_000)
    await peersAre(n2, [ids[0] as string], 10_000)
  })

  it('a restarted node keeps its NodeID and reconnects', async () => {
    const boot = [`--bootstrap-ips=127.0.0.1:${ports[0]}`, `--bootstrap-ids=${ids[0]}`]
    const again = await start([`--staking-port=${ports[2]}`, `--track-subnets=${SUBNET}`, ...boot], n3Dir)
    assert.equal(await nodeIdOf(again), ids[2])
    await peersAre(again, [ids[0] as string, ids[1] as string], 60_000)
    await peersAre(n1, [ids[1] as string, ids[2] as string], 60_000)
    await peersAre(n2, [ids[0] as string, ids[2] as string], 60_000)
    // the others measured the restarted node's downtime: their pings now report less than 100 %
    const seen = await until(
      'pings reporting the downtime',
      async () => {
        const list = await peersOf(again)
        return list.length === 2 && list.every((p) => Number(p.observedUptime) < 100) ? list : undefined
      },
      30_000,
    )
    assert.equal(seen.length, 2)
    const uptime = (await result(again, 'info.uptime')) as { weightedAveragePercentage: string }
    assert.ok(Number(uptime.weightedAveragePercentage) < 100, JSON.stringify(uptime))
  })
})
