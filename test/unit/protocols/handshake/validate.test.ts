/** Building our Handshake and validating a received one: the accepted case and every rejection reason. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { generateKeyPair, publicKeyToProtobuf } from '@libp2p/crypto/keys'
import { buildHandshake, signIp } from '../../../../protocols/handshake/build.js'
import { ipSigningMessage } from '../../../../protocols/handshake/ip.js'
import {
  type HandshakeCheckParams,
  type HandshakeVerifiers,
  IDENTITY_MISMATCH_REASON,
  validateHandshake,
} from '../../../../protocols/handshake/validate.js'
import type { Handshake } from '../../../../protocols/messages/p2p.js'
import { BloomFilter } from '../../../../protocols/peers/bloom.js'
import { makePeer, NOW_S, UPGRADE_S, verifiers } from './fixtures.js'

const peer = await makePeer()
const known = BloomFilter.create(3, 16, (n) => new Uint8Array(n).fill(4))
known.add(42n)
const hs: Handshake = buildHandshake(
  { ...peer.params, knownPeers: { filter: known.marshal(), salt: new Uint8Array(32).fill(9) } },
  peer.signers,
)
const params: HandshakeCheckParams = {
  networkId: 12345,
  nowS: NOW_S,
  version: { current: { major: 1, minor: 14, patch: 2 }, upgradeTimeS: UPGRADE_S },
  remotePublicKey: publicKeyToProtobuf(peer.libp2pKey.publicKey),
}
const verify = verifiers()

function reason(
  msg: Partial<Handshake>,
  p: Partial<HandshakeCheckParams> = {},
  v: HandshakeVerifiers = verify,
): string {
  const result = validateHandshake({ ...hs, ...msg }, { ...params, ...p }, v)
  assert.equal(result.ok, false, 'expected a rejection')
  return result.ok ? '' : result.reason
}

describe('handshake build + validate', () => {
  it('builds a signed handshake with a 16-byte IPv4-mapped ip', () => {
    assert.deepEqual([...hs.ipAddr], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1])
    assert.equal(hs.myTime, BigInt(NOW_S))
    assert.equal(hs.ipSigningTime, BigInt(NOW_S - 100))
    assert.equal(hs.ipBlsSig.length, 96)
    const message = ipSigningMessage(hs.ipAddr, 9651, NOW_S - 100)
    assert.equal(message.length, 26)
    assert.deepEqual([...message.subarray(16)], [0x25, 0xb3, 0, 0, 0, 0, 0x6b, 0x49, 0xd1, 0x9c])
    assert.ok(verify.verifyStakingSig(peer.staking.certDer, message, hs.ipNodeIdSig))
  })

  it('accepts a valid handshake and returns the peer info', () => {
    const result = validateHandshake(hs, params, verifiers(new Map([[peer.staking.nodeId, peer.bls.publicKey]])))
    assert.ok(result.ok, result.ok ? '' : result.reason)
    const info = result.peer
    assert.equal(info.nodeId, peer.staking.nodeId)
    assert.equal(info.ipText, '127.0.0.1')
    assert.equal(info.port, 9651)
    assert.deepEqual(info.version, { name: 'firn', major: 1, minor: 14, patch: 2 })
    assert.equal(info.newerVersion, false)
    assert.deepEqual(info.supportedAcps, [23, 24])
    assert.deepEqual(info.objectedAcps, [25])
    assert.equal(info.trackedSubnets.length, 1)
    assert.equal(info.upgradeTime, UPGRADE_S)
    assert.equal(info.ipSigningTime, NOW_S - 100)
    assert.equal(info.allSubnets, true)
    assert.ok(info.knownPeers.filter.contains(42n))
    assert.equal(info.knownPeers.salt.length, 32)
  })

  it('rejects a network id mismatch', () => {
    assert.equal(reason({ networkId: 5 }), 'network id mismatch: 5 != 12345')
  })

  it('rejects clock skew over 60 s either way, accepts exactly 60 s', () => {
    assert.match(reason({ myTime: BigInt(NOW_S + 61) }), /^clock skew: peer time 1800000061, local 1800000000/)
    assert.match(reason({ myTime: BigInt(NOW_S - 61) }), /^clock skew/)
    assert.ok(validateHandshake({ ...hs, myTime: BigInt(NOW_S + 60) }, params, verify).ok)
    assert.match(reason({ myTime: BigInt(NOW_S + 11) }, { maxClockDifferenceS: 10 }), /> 10 s/)
  })

  it('rejects incompatible versions', () => {
    const client = (major: number, minor: number, patch = 0) => ({ client: { name: 'x', major, minor, patch } })
    assert.equal(reason(client(2, 0)), 'incompatible version: 2.0.0 (major > 1)')
    assert.equal(reason(client(1, 13, 9)), 'incompatible version: 1.13.9 < 1.14.0')
    // before our upgrade time the minimum is 1.13.0
    const nowS = UPGRADE_S - 1
    const early = buildHandshake({ ...peer.params, nowS, ipSigningTimeS: nowS - 100 }, peer.signers)
    const earlyCheck = (major: number, minor: number, patch: number) =>
      validateHandshake({ ...early, client: { name: 'x', major, minor, patch } }, { ...params, nowS }, verify)
    assert.deepEqual(earlyCheck(1, 12, 9), { ok: false, reason: 'incompatible version: 1.12.9 < 1.13.0' })
    assert.ok(earlyCheck(1, 13, 0).ok)
    const newer = validateHandshake({ ...hs, ...client(1, 15) }, params, verify)
    assert.ok(newer.ok && newer.peer.newerVersion)
    const custom = { version: { ...params.version, minCompatibleAfterUpgrade: { major: 0, minor: 1, patch: 0 } } }
    assert.ok(validateHandshake({ ...hs, ...client(1, 0) }, { ...params, ...custom }, verify).ok)
    assert.equal(reason({ client: undefined }), 'incompatible version: 0.0.0 < 1.14.0')
  })

  it('rejects too many tracked subnets and bad subnet ids', () => {
    const subnets = Array.from({ length: 17 }, () => new Uint8Array(32))
    assert.equal(reason({ trackedSubnets: subnets }), 'too many tracked subnets: 17 > 16')
    assert.equal(reason({ trackedSubnets: [new Uint8Array(31)] }), 'bad tracked subnet id: 31 bytes')
    assert.ok(validateHandshake({ ...hs, trackedSubnets: subnets.slice(1) }, params, verify).ok)
  })

  it('rejects an ACP both supported and objected, after filtering to the current ACPs', () => {
    assert.equal(reason({ supportedAcps: [23, 25], objectedAcps: [25] }), 'acp both supported and objected: 25')
    const filtered = validateHandshake(
      { ...hs, supportedAcps: [23, 99], objectedAcps: [99] },
      { ...params, currentAcps: new Set([23, 25]) },
      verify,
    )
    assert.ok(filtered.ok && filtered.peer.objectedAcps.length === 0)
  })

  it('rejects bad bloom filters and long salts', () => {
    const kp = (filter: Uint8Array, salt = new Uint8Array(0)) => ({ knownPeers: { filter, salt } })
    assert.equal(reason(kp(new Uint8Array(0))), 'bad known peers filter: invalid num hashes')
    assert.equal(reason(kp(Uint8Array.of(0, 1))), 'bad known peers filter: too few hashes: 0 < 1')
    assert.equal(reason(kp(Uint8Array.of(17))), 'bad known peers filter: too many hashes: 17 > 16')
    assert.equal(reason(kp(new Uint8Array(9).fill(1))), 'bad known peers filter: too few entries')
    assert.equal(reason(kp(new Uint8Array(10).fill(1), new Uint8Array(33))), 'known peers salt too long: 33 > 32')
    const none = validateHandshake({ ...hs, knownPeers: undefined }, params, verify)
    assert.ok(none.ok && !none.peer.knownPeers.filter.contains(42n))
  })

  it('rejects a bad ip or port', () => {
    assert.equal(reason({ ipAddr: new Uint8Array(5) }), 'bad ip: 5 bytes')
    assert.equal(reason({ ipPort: 0 }), 'bad port: 0')
    assert.equal(reason({ ipPort: 65536 }), 'bad port: 65536')
  })

  it('rejects a future ip signing time and a bad ip signature', () => {
    assert.equal(
      reason({ ipSigningTime: BigInt(NOW_S + 61) }),
      `ip signing time too far in the future: ${NOW_S + 61} > ${NOW_S + 60}`,
    )
    assert.equal(reason({ ipPort: 9652 }), 'bad ip signature')
    assert.equal(reason({ ipNodeIdSig: new Uint8Array(0) }), 'bad ip signature')
    // a 4-byte ip signs the same bytes as its mapped form
    assert.ok(validateHandshake({ ...hs, ipAddr: Uint8Array.of(127, 0, 0, 1) }, params, verify).ok)
  })

  it('rejects a certificate that breaks the staking rules', () => {
    assert.match(reason({ stakingCert: Uint8Array.of(0x30, 0x03, 0x02, 0x01, 0x01) }), /^bad staking certificate: /)
  })

  it('rejects an identity signature made for another libp2p key', async () => {
    const other = await generateKeyPair('Ed25519')
    assert.equal(reason({}, { remotePublicKey: publicKeyToProtobuf(other.publicKey) }), IDENTITY_MISMATCH_REASON)
    assert.equal(reason({ identitySig: hs.ipNodeIdSig }), IDENTITY_MISMATCH_REASON)
    // someone else's certificate with this peer's signatures
    const stranger = await makePeer()
    assert.equal(reason({ stakingCert: stranger.staking.certDer }), IDENTITY_MISMATCH_REASON)
  })

  it('rejects bad BLS signature bytes and, for a registered key, a failing signature', async () => {
    assert.equal(reason({ ipBlsSig: new Uint8Array(95) }), 'bad bls signature: 95 bytes')
    assert.equal(reason({ ipBlsSig: new Uint8Array(96).fill(0xaa) }), 'bad bls signature: not a G2 point')
    const other = await makePeer()
    const foreign = signIp(peer.params, other.signers).ipBlsSig
    assert.equal(
      reason({ ipBlsSig: foreign }, {}, verifiers(new Map([[peer.staking.nodeId, peer.bls.publicKey]]))),
      'bls signature verification failed',
    )
    // without a registered key only the point is checked
    assert.ok(validateHandshake({ ...hs, ipBlsSig: foreign }, params, verify).ok)
  })

  it('never throws when an injected function does', () => {
    const throwing: HandshakeVerifiers = {
      ...verify,
      verifyStakingSig: () => {
        throw new Error('boom')
      },
    }
    assert.equal(reason({}, {}, throwing), IDENTITY_MISMATCH_REASON)
    assert.match(reason({}, {}, { ...verify, nodeIdOf: () => assert.fail('no id') }), /^bad staking certificate: no id/)
  })
})
