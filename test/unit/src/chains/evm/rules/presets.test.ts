import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { INITIAL_MIN_DELAY_EXCESS, minDelayMs } from '../../../../../../src/chains/evm/rules/acp226.js'
import {
  EWOQ_ADDRESS,
  EWOQ_PRIVATE_KEY,
  evmPreset,
  isActive,
  UPGRADE_NAMES,
  WARP_ADDRESS,
} from '../../../../../../src/chains/evm/rules/presets.js'

describe('EVM presets', () => {
  it('local: chain 43112, everything through Granite at 1607144400, Helicon unscheduled, ewoq funded', () => {
    const p = evmPreset(12345, { dev: false })
    assert.equal(p.name, 'local')
    assert.equal(p.chainId, 43112n)
    for (const name of UPGRADE_NAMES.filter((n) => n !== 'helicon')) assert.equal(p.upgrades[name], 1_607_144_400n)
    assert.equal(p.upgrades.helicon, 253_399_622_400n)
    assert.equal(p.genesis.timestamp, 0x5fcb13d0n)
    assert.equal(p.genesis.gasLimit, 100_000_000n)
    assert.deepEqual(p.genesis.extraData, Uint8Array.of(0))
    assert.equal(p.genesis.alloc.get(EWOQ_ADDRESS)?.balance, 50_000_000n * 10n ** 18n)
    assert.equal(p.genesis.alloc.get(WARP_ADDRESS)?.nonce, 1n, 'Durango at genesis activates the Warp precompile')
    assert.equal(p.initialMinDelayExcess, INITIAL_MIN_DELAY_EXCESS)
    assert.equal(minDelayMs(p.initialMinDelayExcess), 2000n)
  })

  it('the ewoq key controls the funded address', () => {
    const pub = secp256k1.getPublicKey(Buffer.from(EWOQ_PRIVATE_KEY, 'hex'), false)
    const address = '0x' + Buffer.from(keccak_256(pub.subarray(1)).subarray(12)).toString('hex')
    assert.equal(address, EWOQ_ADDRESS)
  })

  it('fuji and mainnet: their chain ids and upgrade times', () => {
    const fuji = evmPreset(5, { dev: false })
    const mainnet = evmPreset(1, { dev: true })
    assert.equal(fuji.chainId, 43113n)
    assert.equal(mainnet.chainId, 43114n)
    assert.equal(mainnet.dev, false, 'dev is ignored on production networks')
    assert.equal(mainnet.upgrades.apricotPhase3, 1_629_813_600n)
    assert.equal(mainnet.upgrades.granite, 1_763_568_000n)
    assert.equal(fuji.upgrades.apricotPhasePre6, 1_662_494_400n)
    assert.equal(fuji.upgrades.fortuna, 1_741_878_000n)
    assert.equal(fuji.upgrades.granite, 1_761_750_000n)
    assert.equal(mainnet.genesis.timestamp, 0n)
    assert.ok(!isActive(mainnet.upgrades, 'apricotPhase1', 0n))
    assert.ok(isActive(mainnet.upgrades, 'granite', 1_763_568_000n))
    assert.equal(mainnet.genesis.alloc.has(WARP_ADDRESS), false)
  })

  it('other networks get local rules with chain id 43112', () => {
    const p = evmPreset(88888, { dev: false })
    assert.equal(p.name, 'custom')
    assert.equal(p.chainId, 43112n)
    assert.equal(p.upgrades.granite, 1_607_144_400n)
  })

  it('dev: a 1 ms minimum delay', () => {
    const p = evmPreset(12345, { dev: true })
    assert.equal(p.dev, true)
    assert.equal(p.initialMinDelayExcess, 0n)
    assert.equal(minDelayMs(p.initialMinDelayExcess), 1n)
  })
})
