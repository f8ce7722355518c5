/** Checks of gossiped claims: our own claim verifies, and each broken part is named. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { buildClaim } from '../../../../protocols/handshake/build.js'
import type { ClaimedIpPort } from '../../../../protocols/messages/p2p.js'
import { validateClaim } from '../../../../protocols/peers/claims.js'
import { makePeer, NOW_S, verifiers } from '../handshake/fixtures.js'

const peer = await makePeer()
const other = await makePeer()
const claim = buildClaim(peer.signed, peer.staking.certDer, peer.peerId.toMultihash().bytes)
const verify = verifiers()

const reason = (patch: Partial<ClaimedIpPort>): string => {
  const result = validateClaim({ ...claim, ...patch }, NOW_S, verify)
  assert.equal(result.ok, false)
  return result.ok ? '' : result.reason
}

describe('claims', () => {
  it('accepts our own claim', () => {
    const result = validateClaim(claim, NOW_S, verify)
    assert.ok(result.ok, result.ok ? '' : result.reason)
    assert.equal(result.claim.nodeId, peer.staking.nodeId)
    assert.equal(result.claim.ipText, '127.0.0.1')
    assert.equal(result.claim.port, 9651)
    assert.equal(result.claim.timestamp, NOW_S - 100)
    assert.deepEqual(claim.txId, new Uint8Array(32))
  })

  it('names each broken part', () => {
    assert.match(reason({ x509Certificate: new Uint8Array(3) }), /^bad claim certificate: /)
    assert.equal(reason({ ipAddr: new Uint8Array(6) }), 'bad claim ip: 6 bytes')
    assert.equal(reason({ ipPort: 0 }), 'bad claim port: 0')
    assert.equal(reason({ timestamp: BigInt(NOW_S + 61) }), `claim timestamp too far in the future: ${NOW_S + 61}`)
    assert.equal(reason({ peerId: Uint8Array.of(0x12, 0x20) }), 'bad claim peer id')
    assert.equal(reason({ ipPort: 9652 }), 'bad claim ip signature')
    assert.equal(reason({ peerId: other.peerId.toMultihash().bytes }), 'bad claim identity signature')
    assert.equal(reason({ x509Certificate: other.staking.certDer }), 'bad claim ip signature')
  })
})
