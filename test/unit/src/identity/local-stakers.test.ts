/** The committed local-network staking fixtures load with Firn's own code and give the local genesis stakers. */
import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { loadOrCreateSigner } from '../../../../src/identity/bls.js'
import { loadOrCreateStakingIdentity } from '../../../../src/identity/staking.js'
import { LOCAL_GENESIS_VALIDATORS } from '../../../../src/network/validators.js'

const FIXTURES = fileURLToPath(new URL('../../../fixtures/staking/', import.meta.url))

/** The reference's published BLS public keys of signer1..5 (staking/local/README.md). */
const SIGNER_PUBLIC_KEYS = [
  '900c9b119b5c82d781d4b49be78c3fc7ae65f2b435b7ed9e3a8b9a03e475edff86d8a64827fec8db23a6f236afbf127d',
  'a058ff27a4c570664bfa28e34939368539a1340867951943d0f56fa8aac13bc09ff64f341acf8cc0cef74202c2d6f9c0',
  'a10b6955a85684a0f5c94b8381f04506f1bee60625927d372323f78b3d30196cc56c8618c77eaf429298e74673d832c3',
  'accd61ceb90c61628aa0fa34acab27ecb08f6897e9ccad283578c278c52109f9e10e4f8bc31aa6d7905c4e1623de367e',
  '8048109c3da13de0700f9f3590c3270bfc42277417f6d0cc84282947e1a1f8b4980fd3e3fe223acf0f56a5838890814a',
]

describe('local network staking fixtures', () => {
  it('there are five genesis stakers', () => {
    assert.equal(LOCAL_GENESIS_VALIDATORS.length, 5)
  })

  for (let i = 1; i <= 5; i++) {
    it(`staker${i}.crt/.key load and give LOCAL_GENESIS_VALIDATORS[${i - 1}]`, async () => {
      const identity = await loadOrCreateStakingIdentity({
        keyPath: join(FIXTURES, `staker${i}.key`),
        certPath: join(FIXTURES, `staker${i}.crt`),
        keyExplicit: true,
        certExplicit: true,
      })
      assert.equal(identity.keyType, 'rsa')
      assert.equal(identity.nodeId, LOCAL_GENESIS_VALIDATORS[i - 1])
    })

    it(`signer${i}.key gives the reference's published BLS public key`, async () => {
      const signer = await loadOrCreateSigner({ path: join(FIXTURES, `signer${i}.key`), explicit: true })
      assert.equal(Buffer.from(signer.publicKey).toString('hex'), SIGNER_PUBLIC_KEYS[i - 1])
    })
  }
})
