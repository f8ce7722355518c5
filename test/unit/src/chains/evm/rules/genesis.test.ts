import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { headerHash } from '../../../../../../src/chains/evm/header.js'
import { genesisHeader, genesisStateRoot } from '../../../../../../src/chains/evm/rules/genesis.js'
import {
  type EvmPreset,
  evmPreset,
  localGenesis,
  type UpgradeName,
  upgradesThrough,
} from '../../../../../../src/chains/evm/rules/presets.js'

const hex = (b: Uint8Array): string => '0x' + Buffer.from(b).toString('hex')

async function hashOf(p: EvmPreset): Promise<string> {
  return hex(headerHash(genesisHeader(p, await genesisStateRoot(p))))
}

describe('genesis', () => {
  // Expected hashes: avalanchego vms/saevm/cchain/genesis_test.go (TestGenesisHash, TestHistoricalGenesisHashes).
  it('local genesis hash matches the reference (header RLP, 5-field accounts, Warp precompile, Granite fields)', async () => {
    assert.equal(
      await hashOf(evmPreset(12345, { dev: false })),
      '0x608ddbd611241719b64642d8e152537e2a5bdf46b6ddb9e8f15340c5e007b8b1',
    )
  })

  it('mainnet and Fuji genesis hash matches the reference (contract code at 0x0100…)', async () => {
    const want = '0x31ced5b9beb7f8782b014660da0cb18cc409f121f408186886e1ca3e8eeca96b'
    assert.equal(await hashOf(evmPreset(1, { dev: false })), want)
    assert.equal(await hashOf(evmPreset(5, { dev: false })), want)
  })

  it('local genesis under older schedules matches the reference historical hashes', async () => {
    const cases: [UpgradeName | undefined, string][] = [
      [undefined, '0xd8a07966215173e9c4a5a5db8c337d2f717b41e24eb398eeb294caf1943d2556'],
      ['apricotPhase2', '0xd8a07966215173e9c4a5a5db8c337d2f717b41e24eb398eeb294caf1943d2556'],
      ['apricotPhase3', '0xcf3b70b572f31b036e2b0ca81788f34db5767899d7eed517c0c4cd61907b5755'],
      ['cortina', '0xcf3b70b572f31b036e2b0ca81788f34db5767899d7eed517c0c4cd61907b5755'],
      ['durango', '0xd650b9947b759224835fb8c845f128cb9c8f016f72fec0e953d48c5872dd923a'],
      ['etna', '0x17a7011ebbed7c97c7858cec856bd462a1fe9c216ef5f110b40c3b573dc84c6f'],
      ['fortuna', '0x17a7011ebbed7c97c7858cec856bd462a1fe9c216ef5f110b40c3b573dc84c6f'],
      ['granite', '0x608ddbd611241719b64642d8e152537e2a5bdf46b6ddb9e8f15340c5e007b8b1'],
    ]
    for (const [last, want] of cases) {
      const upgrades = upgradesThrough(last)
      const p = { ...evmPreset(12345, { dev: false }), upgrades, genesis: localGenesis(upgrades) }
      assert.equal(await hashOf(p), want, `through ${last}`)
    }
  })

  it('local genesis header values', async () => {
    const p = evmPreset(12345, { dev: false })
    const h = genesisHeader(p, await genesisStateRoot(p))
    assert.equal(h.baseFee, 225_000_000_000n)
    assert.equal(h.timeMilliseconds, 1_607_144_400_000n)
    assert.equal(h.minDelayExcess, 7_970_124n)
    assert.equal(h.extDataGasUsed, 0n)
    assert.equal(h.blockGasCost, 0n)
    assert.equal(h.blobGasUsed, 0n)
    assert.equal(h.excessBlobGas, 0n)
    assert.deepEqual(h.parentBeaconRoot, new Uint8Array(32))
    assert.equal(h.difficulty, 0n)
    assert.equal(h.gasLimit, 100_000_000n)
  })

  it('dev genesis carries the 1 ms delay excess', async () => {
    const p = evmPreset(12345, { dev: true })
    assert.equal(genesisHeader(p, await genesisStateRoot(p)).minDelayExcess, 0n)
  })

  it('state root counts storage (normalised keys) and drops empty accounts', async () => {
    const base = evmPreset(12345, { dev: false })
    const root = async (alloc: EvmPreset['genesis']['alloc']) =>
      hex(await genesisStateRoot({ ...base, genesis: { ...base.genesis, alloc } }))
    const plain = await root(new Map(base.genesis.alloc))
    const withEmpty = new Map(base.genesis.alloc).set('0x' + '11'.repeat(20), { balance: 0n })
    assert.equal(await root(withEmpty), plain)
    const slot0 = '0x' + '00'.repeat(32)
    const slot1 = '0x01' + '00'.repeat(31)
    const a = new Map(base.genesis.alloc).set('0x' + '22'.repeat(20), {
      balance: 1n,
      storage: new Map([[slot0, '0x05']]),
    })
    const b = new Map(base.genesis.alloc).set('0x' + '22'.repeat(20), {
      balance: 1n,
      storage: new Map([[slot1, '0x05']]),
    })
    assert.equal(await root(a), await root(b), 'slot 0x01… aliases 0x00…')
    assert.notEqual(await root(a), plain)
    await assert.rejects(root(new Map([['0x1234', { balance: 1n }]])), /invalid genesis address/)
  })
})
