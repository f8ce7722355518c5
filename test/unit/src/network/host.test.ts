/** The libp2p host: listen address rules, the bound port, the exchange services wired to injected handlers. */
import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { multiaddr } from '@multiformats/multiaddr'
import { boundPort, createHost, listenAddress, stakingListenHost } from '../../../../src/network/host.js'

describe('host', () => {
  it('listens on the staking host, 127.0.0.1 under --dev, all interfaces otherwise', () => {
    assert.equal(stakingListenHost('', true), '127.0.0.1')
    assert.equal(stakingListenHost('', false), '0.0.0.0')
    assert.equal(stakingListenHost('10.1.2.3', true), '10.1.2.3')
    assert.equal(listenAddress('0.0.0.0', 9651), '/ip4/0.0.0.0/tcp/9651')
    assert.equal(listenAddress('::1', 0), '/ip6/::1/tcp/0')
  })

  it('binds a free port, answers the exchange protocols, refuses to dial itself', async () => {
    const seen: number[] = []
    const make = async () =>
      createHost({
        privateKey: await generateKeyPair('Ed25519'),
        networkId: 12345,
        host: '127.0.0.1',
        port: 0,
        handlers: {
          handshake: () => ({ claimedIpPorts: [] }),
          peers: () => ({ claimedIpPorts: [] }),
          ping: (req) => {
            seen.push(req.uptime)
            return {}
          },
        },
      })
    const a = await make()
    const b = await make()
    try {
      const port = boundPort(b)
      assert.ok(port !== undefined && port > 0)
      const conn = await a.dial(multiaddr(`/ip4/127.0.0.1/tcp/${port}`))
      assert.equal(conn.remotePeer.toString(), b.peerId.toString())
      assert.deepEqual(await a.services.ping.request(b.peerId, { uptime: 42 }), {})
      assert.deepEqual(seen, [42])
      assert.deepEqual(await a.services.peers.request(b.peerId, { allSubnets: false }), { claimedIpPorts: [] })
      await assert.rejects(a.dial(a.getMultiaddrs()[0] as never))
      assert.equal(a.services.handshake.protocol, '/firn/12345/handshake/2')
    } finally {
      await a.stop()
      await b.stop()
    }
  })
})
