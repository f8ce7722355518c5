import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { newStakingIdentity } from '../../../../src/identity/staking.js'
import { libp2pKeyOf, publicKeyBytes, stakingSign, verifyStakingSig } from '../../../../src/network/identity.js'

describe('libp2p identity bound to the staking key', () => {
  it('derives the same Ed25519 key from the same staking key, another from another', async () => {
    const a = newStakingIdentity()
    const b = newStakingIdentity()
    const a1 = peerIdFromPrivateKey(await libp2pKeyOf(a)).toString()
    const a2 = peerIdFromPrivateKey(await libp2pKeyOf(a)).toString()
    const b1 = peerIdFromPrivateKey(await libp2pKeyOf(b)).toString()
    assert.equal(a1, a2)
    assert.notEqual(a1, b1)
    assert.equal((await libp2pKeyOf(a)).type, 'Ed25519')
  })

  it('a staking signature verifies against its certificate only', async () => {
    const a = newStakingIdentity()
    const b = newStakingIdentity()
    const message = publicKeyBytes(await libp2pKeyOf(a))
    const sig = stakingSign(a, message)
    assert.equal(verifyStakingSig(a.certDer, message, sig), true)
    assert.equal(verifyStakingSig(b.certDer, message, sig), false)
    assert.equal(verifyStakingSig(a.certDer, publicKeyBytes(await libp2pKeyOf(b)), sig), false)
    assert.equal(verifyStakingSig(new Uint8Array([1, 2, 3]), message, sig), false)
    assert.equal(verifyStakingSig(a.certDer, message, new Uint8Array(5)), false)
  })
})
