import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { chainConfigJson } from '../../../../../../src/chains/evm/rules/chain-config-json.js'
import { evmPreset } from '../../../../../../src/chains/evm/rules/presets.js'

describe('eth_getChainConfig', () => {
  it('local: sorted keys, plain numbers, reference values', () => {
    const c = chainConfigJson(evmPreset(12345, { dev: false }))
    const keys = Object.keys(c)
    assert.deepEqual(keys, [...keys].sort())
    assert.equal(c.chainId, 43112)
    assert.equal(c.daoForkSupport, true)
    for (const k of [
      'homesteadBlock',
      'daoForkBlock',
      'eip150Block',
      'eip155Block',
      'eip158Block',
      'byzantiumBlock',
      'constantinopleBlock',
      'petersburgBlock',
      'istanbulBlock',
      'muirGlacierBlock',
      'berlinBlock',
      'londonBlock',
    ]) {
      assert.equal(c[k], 0, k)
    }
    for (const k of [
      'shanghaiTime',
      'cancunTime',
      'apricotPhase1BlockTimestamp',
      'apricotPhase5BlockTimestamp',
      'apricotPhasePre6BlockTimestamp',
      'apricotPhase6BlockTimestamp',
      'apricotPhasePost6BlockTimestamp',
      'banffBlockTimestamp',
      'cortinaBlockTimestamp',
      'durangoBlockTimestamp',
      'etnaTimestamp',
      'fortunaTimestamp',
      'graniteTimestamp',
    ]) {
      assert.equal(c[k], 1607144400, k)
    }
    assert.equal(c.heliconTimestamp, 253399622400)
    assert.equal(keys.length, 31)
    assert.ok(JSON.stringify(c).startsWith('{"apricotPhase1BlockTimestamp":1607144400,'))
  })

  it('mainnet and Fuji berlin/london blocks and Shanghai = Durango, Cancun = Etna', () => {
    const m = chainConfigJson(evmPreset(1, { dev: false }))
    assert.equal(m.chainId, 43114)
    assert.equal(m.berlinBlock, 1640340)
    assert.equal(m.londonBlock, 3308552)
    assert.equal(m.shanghaiTime, 1709740800)
    assert.equal(m.cancunTime, 1734368400)
    const f = chainConfigJson(evmPreset(5, { dev: false }))
    assert.equal(f.berlinBlock, 184985)
    assert.equal(f.londonBlock, 805078)
    assert.equal(f.graniteTimestamp, 1761750000)
  })
})
