/** Round trips of every p2p message and envelope through the generated protons codecs. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  BloomFilter,
  ClaimedIpPort,
  Client,
  GetPeerList,
  Handshake,
  HandshakeMessage,
  PeerList,
  PeersMessage,
  Ping,
  PingMessage,
  Pong,
} from '../../../protocols/messages/p2p.js'

const bytes = (n: number, fill: number): Uint8Array => new Uint8Array(n).fill(fill)

const claim: ClaimedIpPort = {
  x509Certificate: bytes(300, 1),
  ipAddr: bytes(16, 2),
  ipPort: 9651,
  timestamp: 1_700_000_000n,
  signature: bytes(72, 3),
  txId: new Uint8Array(32),
  peerId: bytes(38, 4),
  identitySig: bytes(71, 5),
}

const handshake: Handshake = {
  networkId: 12345,
  myTime: 1_700_000_123n,
  ipAddr: Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1]),
  ipPort: 9651,
  upgradeTime: 1_763_568_000n,
  ipSigningTime: 1_700_000_100n,
  ipNodeIdSig: bytes(70, 6),
  trackedSubnets: [bytes(32, 7), bytes(32, 8)],
  client: { name: 'firn', major: 0, minor: 1, patch: 0 },
  supportedAcps: [23, 24],
  objectedAcps: [25],
  knownPeers: { filter: bytes(20, 9), salt: bytes(32, 10) },
  ipBlsSig: bytes(96, 11),
  allSubnets: true,
  stakingCert: bytes(400, 12),
  identitySig: bytes(70, 13),
}

describe('p2p messages', () => {
  it('round-trip the bodies', () => {
    assert.deepEqual(Client.decode(Client.encode(handshake.client as Client)), handshake.client)
    const filter = { filter: bytes(9, 1), salt: bytes(4, 2) }
    assert.deepEqual(BloomFilter.decode(BloomFilter.encode(filter)), filter)
    assert.deepEqual(Handshake.decode(Handshake.encode(handshake)), handshake)
    assert.deepEqual(ClaimedIpPort.decode(ClaimedIpPort.encode(claim)), claim)
    const list: PeerList = { claimedIpPorts: [claim, { ...claim, ipPort: 1 }] }
    assert.deepEqual(PeerList.decode(PeerList.encode(list)), list)
    const get: GetPeerList = { knownPeers: filter, allSubnets: true }
    assert.deepEqual(GetPeerList.decode(GetPeerList.encode(get)), get)
    assert.deepEqual(Ping.decode(Ping.encode({ uptime: 97 })), { uptime: 97 })
    assert.deepEqual(Pong.decode(Pong.encode({})), {})
  })

  it('use the reference field numbers for the shared fields', () => {
    // network_id = 1 (varint tag 0x08), all_subnets = 14 (tag 0x70), identity_sig = 16 (tag 0x82 0x01)
    const enc = Handshake.encode({ ...Handshake.decode(new Uint8Array(0)), networkId: 5 })
    assert.deepEqual([...enc], [0x08, 5])
    assert.deepEqual([...Handshake.encode({ ...Handshake.decode(new Uint8Array(0)), allSubnets: true })], [0x70, 1])
    const sig = Handshake.encode({ ...Handshake.decode(new Uint8Array(0)), identitySig: Uint8Array.of(9) })
    assert.deepEqual([...sig], [0x82, 0x01, 1, 9])
  })

  it('round-trip the envelopes with each body of their oneof', () => {
    const cases: Array<[{ encode(m: never): Uint8Array; decode(b: Uint8Array): unknown }, object]> = [
      [HandshakeMessage, { requestId: 7, deadlineMs: 1_700_000_000_000n, handshake }],
      [HandshakeMessage, { requestId: 7, deadlineMs: 0n, peerList: { claimedIpPorts: [claim] } }],
      [PeersMessage, { requestId: 0xffffffff, deadlineMs: 5n, getPeerList: { allSubnets: false } }],
      [PeersMessage, { requestId: 1, deadlineMs: 0n, peerList: { claimedIpPorts: [] } }],
      [PingMessage, { requestId: 2, deadlineMs: 2n ** 64n - 1n, ping: { uptime: 100 } }],
      [PingMessage, { requestId: 3, deadlineMs: 0n, pong: {} }],
    ]
    for (const [codec, message] of cases) {
      assert.deepEqual(codec.decode(codec.encode(message as never)), message)
    }
  })

  it('keep one body of a oneof when both are set', () => {
    const both = { requestId: 1, deadlineMs: 0n, ping: { uptime: 1 }, pong: {} }
    const decoded = PingMessage.decode(PingMessage.encode(both))
    assert.equal(Object.keys(decoded).filter((k) => k === 'ping' || k === 'pong').length, 1)
  })
})
