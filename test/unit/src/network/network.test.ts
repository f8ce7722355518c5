/**
 * The Network in-process: real libp2p hosts on 127.0.0.1, real staking and BLS keys, real actors and a
 * memory-level database. Bootstrap, sessions under the network actor, info.peers' view, drops with reasons,
 * uptime persistence; plus the address and backoff helpers.
 */
import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MemoryLevel } from 'memory-level'
import { SystemId } from '../../../../actors/system-ids.js'
import type { Database } from '../../../../src/db/open.js'
import { Sublevel } from '../../../../src/db/sublevels.js'
import { newStakingIdentity } from '../../../../src/identity/staking.js'
import { addrOf, ipBytes, multiaddrText, nextBackoff, REDIAL_MAX_MS } from '../../../../src/network/network.js'
import { startNetworkNode } from '../../../helpers/network-node.js'
import { until } from '../../../helpers/until.js'

describe('network helpers', () => {
  it('addrOf reads ip:port from multiaddrs', () => {
    assert.equal(addrOf('/ip4/127.0.0.1/tcp/9651/p2p/12D3KooWabc'), '127.0.0.1:9651')
    assert.equal(addrOf('/ip6/::1/tcp/9651'), '[::1]:9651')
  })

  it('multiaddrText builds dialable addresses', () => {
    assert.equal(multiaddrText('127.0.0.1:9651'), '/ip4/127.0.0.1/tcp/9651')
    assert.equal(multiaddrText('10.0.0.1:1', 'Qm'), '/ip4/10.0.0.1/tcp/1/p2p/Qm')
    assert.equal(multiaddrText('[::1]:9651'), '/ip6/::1/tcp/9651')
    assert.throws(() => multiaddrText('nonsense'), RangeError)
  })

  it('ipBytes parses IPv4 and IPv6 literals', () => {
    assert.deepEqual(ipBytes('127.0.0.1'), Uint8Array.of(127, 0, 0, 1))
    assert.deepEqual(ipBytes('::1'), Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))
    assert.deepEqual(ipBytes('::ffff:1.2.3.4'), Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 1, 2, 3, 4))
    assert.deepEqual(ipBytes('2001:db8::1').subarray(0, 4), Uint8Array.of(0x20, 0x01, 0x0d, 0xb8))
    assert.throws(() => ipBytes('300.1.1.1'), RangeError)
    assert.throws(() => ipBytes('1:2:3'), RangeError)
  })

  it('redial backoff grows x[1,2) and is capped at [0.75,1) x 60 s', () => {
    assert.equal(
      nextBackoff(1000, () => 0),
      1000,
    )
    assert.equal(
      nextBackoff(1000, () => 0.5),
      1500,
    )
    assert.equal(
      nextBackoff(50_000, () => 0.5),
      REDIAL_MAX_MS * 0.875,
    )
    let d = 1000
    for (let i = 0; i < 50; i++) d = nextBackoff(d)
    assert.ok(d >= REDIAL_MAX_MS * 0.75 && d <= REDIAL_MAX_MS, String(d))
  })
})

async function node(opts: { bootstrap?: { ip: string; id: string }[]; networkId?: number; db?: Database } = {}) {
  return startNetworkNode({
    ...(opts.db === undefined ? {} : { db: opts.db }),
    config: {
      networkId: opts.networkId ?? 12345,
      acpSupport: [23],
      ...(opts.bootstrap === undefined ? {} : { bootstrap: opts.bootstrap }),
    },
  })
}

describe('Network', { timeout: 60_000 }, () => {
  it('connects to a bootstrapper: sessions, info.peers entries, then a clean disconnect', async () => {
    const a = await node()
    const b = await node({ bootstrap: [{ ip: `127.0.0.1:${a.network.port}`, id: a.identity.nodeId }] })
    try {
      assert.ok(a.network.port > 0)
      await until('a sees b', () => a.peers.get(b.identity.nodeId))
      const seenByB = await until('b sees a', () => b.peers.get(a.identity.nodeId))
      assert.equal(seenByB.publicIP, `127.0.0.1:${a.network.port}`)
      assert.equal(seenByB.ip, `127.0.0.1:${a.network.port}`)
      assert.equal(seenByB.version, 'firn/0.1.0')
      assert.deepEqual(seenByB.supportedACPs, [23])
      const seenByA = a.peers.get(b.identity.nodeId)
      assert.equal(seenByA?.publicIP, `127.0.0.1:${b.network.port}`)
      const session = a.actor.system.get(SystemId.peer(b.identity.nodeId))
      assert.ok(session, 'a session actor peer:<NodeID> under the network actor')
      assert.equal(session.getSnapshot().matches('connected'), true)
      assert.deepEqual(Object.keys(a.actor.getSnapshot().context.peers), [b.identity.nodeId])
      assert.equal(session.getSnapshot().context.nodeId, b.identity.nodeId)
      assert.ok(a.lines.some((l) => l.startsWith('INFO peer connected')))

      await b.close()
      await until('a forgets b', () => (a.peers.get(b.identity.nodeId) ? undefined : true))
      await until('a closes the session', () =>
        Object.keys(a.actor.getSnapshot().context.conns).length === 0 ? true : undefined,
      )
      assert.equal(a.actor.system.get(SystemId.peer(b.identity.nodeId)), undefined)
    } finally {
      await b.close()
      await a.close()
    }
  })

  it('learns a third node through the bootstrapper', async () => {
    const a = await node()
    const boot = [{ ip: `127.0.0.1:${a.network.port}`, id: a.identity.nodeId }]
    const b = await node({ bootstrap: boot })
    await until('a sees b', () => a.peers.get(b.identity.nodeId))
    const c = await node({ bootstrap: boot })
    try {
      await until('b sees c', () => b.peers.get(c.identity.nodeId))
      await until('c sees b', () => c.peers.get(b.identity.nodeId))
      assert.equal(c.peers.size, 2)
      assert.equal(b.peers.size, 2)
    } finally {
      await c.close()
      await b.close()
      await a.close()
    }
  })

  it('drops a bootstrapper whose NodeID is not the expected one', async () => {
    const a = await node()
    const wrong = newStakingIdentity().nodeId
    const b = await node({ bootstrap: [{ ip: `127.0.0.1:${a.network.port}`, id: wrong }] })
    try {
      const line = await until('the drop', () => b.lines.find((l) => l.includes('unexpected node ID')))
      assert.match(line, new RegExp(`^INFO dropping peer ${a.identity.nodeId}: unexpected node ID`))
      assert.equal(b.peers.size, 0)
    } finally {
      await b.close()
      await a.close()
    }
  })

  it('refuses a node of another network with the reason', async () => {
    const a = await node()
    const b = await node({ networkId: 5, bootstrap: [{ ip: `127.0.0.1:${a.network.port}`, id: a.identity.nodeId }] })
    try {
      const line = await until('the drop', () => a.lines.find((l) => l.includes('network id mismatch')))
      assert.match(line, /^INFO dropping peer 12D3KooW\S+: network id mismatch/)
      assert.equal(a.peers.size, 0)
      assert.equal(b.peers.size, 0)
    } finally {
      await b.close()
      await a.close()
    }
  })

  it('persists uptime records in the uptime sublevel', async () => {
    const dbA = new MemoryLevel({ keyEncoding: 'view', valueEncoding: 'view' }) as unknown as Database
    const a = await node({ db: dbA })
    const b = await node({ bootstrap: [{ ip: `127.0.0.1:${a.network.port}`, id: a.identity.nodeId }] })
    await until('a sees b', () => a.peers.get(b.identity.nodeId))
    assert.ok(a.network.uptimeState().connectedAt[b.identity.nodeId] !== undefined)
    await b.close()
    await a.network.close()
    const sub = dbA.sublevel<string, string>(Sublevel.uptime, { keyEncoding: 'utf8', valueEncoding: 'utf8' })
    const stored = JSON.parse((await sub.get(b.identity.nodeId)) as string) as Record<string, number>
    assert.deepEqual(Object.keys(stored).sort(), ['lastUpdatedMs', 'startTimeMs', 'upDurationMs'])
    assert.ok((stored.upDurationMs as number) >= 0)
    assert.ok((stored.lastUpdatedMs as number) >= (stored.startTimeMs as number))
    a.root.stop()
    await dbA.close()
  })
})
