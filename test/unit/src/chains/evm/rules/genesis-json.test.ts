import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { headerHash } from '../../../../../../src/chains/evm/header.js'
import { presetCChainGenesis } from '../../../../../../src/chains/evm/rules/cchain-genesis-json.js'
import { childHeaderFields } from '../../../../../../src/chains/evm/rules/child-header.js'
import { genesisHeader, genesisStateRoot } from '../../../../../../src/chains/evm/rules/genesis.js'
import { EvmGenesisError, evmPresetFromGenesis } from '../../../../../../src/chains/evm/rules/genesis-json.js'
import {
  type EvmPreset,
  evmPreset,
  INITIALLY_ACTIVE_TIME,
  WARP_ADDRESS,
} from '../../../../../../src/chains/evm/rules/presets.js'

const hex = (b: Uint8Array): string => `0x${Buffer.from(b).toString('hex')}`
const hashOf = async (p: EvmPreset): Promise<string> => hex(headerHash(genesisHeader(p, await genesisStateRoot(p))))
const local = { networkId: 12345, dev: false }
const from = (json: unknown, opts = local) => evmPresetFromGenesis(json, opts)

/** The reference's local cChainGenesis, as genesis/genesis_local.json has it. */
const REFERENCE_LOCAL =
  '{"config":{"chainId":43112,"homesteadBlock":0,"daoForkBlock":0,"daoForkSupport":true,"eip150Block":0,' +
  '"eip150Hash":"0x2086799aeebeae135c246c65021c82b4e15a2c451340993aacfd2751886514f0","eip155Block":0,' +
  '"eip158Block":0,"byzantiumBlock":0,"constantinopleBlock":0,"petersburgBlock":0,"istanbulBlock":0,' +
  '"muirGlacierBlock":0,"apricotPhase1BlockTimestamp":0,"apricotPhase2BlockTimestamp":0},"nonce":"0x0",' +
  '"timestamp":"0x5FCB13D0","extraData":"0x00","gasLimit":"0x5f5e100","difficulty":"0x0",' +
  '"mixHash":"0x0000000000000000000000000000000000000000000000000000000000000000",' +
  '"coinbase":"0x0000000000000000000000000000000000000000","alloc":{"8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC":' +
  '{"balance":"0x295BE96E64066972000000"}},"number":"0x0","gasUsed":"0x0",' +
  '"parentHash":"0x0000000000000000000000000000000000000000000000000000000000000000"}'

/** The example chain D. */
const chainD = () => ({
  config: { chainId: 99999 },
  gasLimit: '0x7A1200',
  alloc: { '0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC': { balance: '1000000000000000000000' } },
})

function fails(json: unknown, path: string, problem: RegExp | string) {
  assert.throws(
    () => from(json),
    (err: unknown) => {
      assert.ok(err instanceof EvmGenesisError, `not an EvmGenesisError: ${err}`)
      assert.equal(err.path, path)
      if (typeof problem === 'string') assert.equal(err.problem, problem)
      else assert.match(err.problem, problem)
      return true
    },
  )
}

describe('evmPresetFromGenesis: parity with the presets', () => {
  it('the JSON form of each preset gives the preset itself (local, custom, mainnet, Fuji; dev or not)', () => {
    for (const networkId of [12345, 1337, 1, 5]) {
      for (const dev of [false, true]) {
        assert.deepEqual(
          evmPresetFromGenesis(presetCChainGenesis(networkId), { networkId, dev }),
          evmPreset(networkId, { dev }),
          `network ${networkId} dev ${dev}`,
        )
      }
    }
  })

  it("the reference's local cChainGenesis text gives the reference's local genesis hash", async () => {
    const p = from(JSON.parse(REFERENCE_LOCAL))
    assert.equal(await hashOf(p), '0x608ddbd611241719b64642d8e152537e2a5bdf46b6ddb9e8f15340c5e007b8b1')
    assert.equal(await hashOf(p), await hashOf(evmPreset(12345, { dev: false })))
  })

  it("mainnet's and Fuji's JSON give the reference's hash (contract code at 0x0100...)", async () => {
    const want = '0x31ced5b9beb7f8782b014660da0cb18cc409f121f408186886e1ca3e8eeca96b'
    assert.equal(await hashOf(from(presetCChainGenesis(1), { networkId: 1, dev: false })), want)
    assert.equal(await hashOf(from(presetCChainGenesis(5), { networkId: 5, dev: false })), want)
  })
})

describe('evmPresetFromGenesis: what it reads', () => {
  it("the issue's chain D: its chain ID, gas limit and alloc; timestamp 0 (before every local upgrade)", async () => {
    const p = from(chainD())
    assert.equal(p.chainId, 99999n)
    assert.equal(p.genesis.gasLimit, 0x7a1200n)
    assert.equal(p.genesis.timestamp, 0n)
    assert.deepEqual(p.genesis.extraData, new Uint8Array(0))
    assert.deepEqual(p.upgrades, evmPreset(12345, { dev: false }).upgrades)
    assert.deepEqual([...p.genesis.alloc.keys()], ['0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc'])
    assert.equal(p.genesis.alloc.get('0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc')?.balance, 10n ** 21n)
    const h = genesisHeader(p, await genesisStateRoot(p))
    assert.equal(h.baseFee, undefined, 'pre-AP3 genesis: no base fee')
    assert.equal(h.minDelayExcess, undefined)
  })

  it('a chain whose genesis predates Granite builds its first block with Granite rules, dev timing under --dev', async () => {
    for (const [dev, excess] of [
      [false, 7_970_124n],
      [true, 0n],
    ] as const) {
      const p = from(chainD(), { networkId: 12345, dev })
      const parent = genesisHeader(p, await genesisStateRoot(p))
      const child = childHeaderFields(parent, p, 1_800_000_000_000n)
      assert.equal(child.number, 1n)
      assert.equal(child.minDelayExcess, excess)
    }
  })

  it('alloc: nonce, code, storage (short and unprefixed words padded), keys with or without 0x in any case', async () => {
    const json = {
      ...chainD(),
      alloc: {
        '00000000000000000000000000000000000000AA': {
          balance: 7,
          nonce: '0x2',
          code: '0x6001',
          storage: { '0x01': '0x02', '03': '0x0000000000000000000000000000000000000000000000000000000000000004' },
        },
        '0x00000000000000000000000000000000000000bb': { balance: '0x0', code: '0x' },
      },
    }
    const p = from(json)
    const a = p.genesis.alloc.get('0x00000000000000000000000000000000000000aa')
    assert.deepEqual(a, {
      balance: 7n,
      nonce: 2n,
      code: Uint8Array.of(0x60, 0x01),
      storage: new Map([
        [`0x${'00'.repeat(31)}01`, `0x${'00'.repeat(31)}02`],
        [`0x${'00'.repeat(31)}03`, `0x${'00'.repeat(31)}04`],
      ]),
    })
    assert.deepEqual(p.genesis.alloc.get('0x00000000000000000000000000000000000000bb'), { balance: 0n })
    // the same state as the preset form of those accounts
    const manual: EvmPreset = { ...p, genesis: { ...p.genesis, alloc: new Map(p.genesis.alloc) } }
    assert.equal(hex(await genesisStateRoot(p)), hex(await genesisStateRoot(manual)))
    const withoutStorage = from({
      ...json,
      alloc: { ...json.alloc, '00000000000000000000000000000000000000AA': { balance: 7, nonce: 2, code: '0x6001' } },
    })
    assert.notEqual(hex(await genesisStateRoot(p)), hex(await genesisStateRoot(withoutStorage)))
  })

  it('an alloc entry at the Warp address overrides the precompile coreth creates first', () => {
    const p = from({ ...JSON.parse(REFERENCE_LOCAL), alloc: { [WARP_ADDRESS]: { balance: '5' } } })
    assert.deepEqual(p.genesis.alloc.get(WARP_ADDRESS), { balance: 5n })
    assert.deepEqual(from(JSON.parse(REFERENCE_LOCAL)).genesis.alloc.get(WARP_ADDRESS), {
      balance: 0n,
      nonce: 1n,
      code: Uint8Array.of(1),
    })
  })

  it('header fields: nonce, difficulty, mixHash, coinbase, baseFeePerGas, extraData', async () => {
    const p = from({
      ...JSON.parse(REFERENCE_LOCAL),
      nonce: '0x0102',
      difficulty: '5',
      mixHash: `0x${'11'.repeat(32)}`,
      coinbase: `0x${'22'.repeat(20)}`,
      baseFeePerGas: '0x3b9aca00',
      extraData: '0xabcd',
    })
    const h = genesisHeader(p, await genesisStateRoot(p))
    assert.deepEqual(h.nonce, Uint8Array.of(0, 0, 0, 0, 0, 0, 1, 2))
    assert.equal(h.difficulty, 5n)
    assert.deepEqual(h.mixDigest, new Uint8Array(32).fill(0x11))
    assert.deepEqual(h.coinbase, new Uint8Array(20).fill(0x22))
    assert.equal(h.baseFee, 1_000_000_000n)
    assert.deepEqual(h.extra, Uint8Array.of(0xab, 0xcd))
    assert.notEqual(await hashOf(p), await hashOf(from(JSON.parse(REFERENCE_LOCAL))))
  })

  it("upgrade times the config sets replace the network schedule; unset ones stay the network's", () => {
    const later = 1_900_000_000
    const config = { chainId: 7, etnaTimestamp: later, fortunaTimestamp: later, graniteTimestamp: later }
    const p = from({ ...chainD(), config })
    const network = evmPreset(12345, { dev: false }).upgrades
    assert.deepEqual(p.upgrades, { ...network, etna: BigInt(later), fortuna: BigInt(later), granite: BigInt(later) })
    assert.equal(p.upgrades.durango, INITIALLY_ACTIVE_TIME)
  })

  it('field names match case-insensitively, as Go reads them', () => {
    const p = from({ Config: { ChainID: 5 }, GASLIMIT: 1, Alloc: {} })
    assert.equal(p.chainId, 5n)
    assert.equal(p.genesis.gasLimit, 1n)
  })

  it('difficulty may be left out (coreth requires it); gasLimit 0 means 4,712,388 in the header', async () => {
    const p = from({ config: { chainId: 1 }, gasLimit: 0, alloc: {} })
    assert.equal(genesisHeader(p, await genesisStateRoot(p)).gasLimit, 4_712_388n)
    assert.equal(genesisHeader(p, await genesisStateRoot(p)).difficulty, 0n)
  })
})

describe('evmPresetFromGenesis: errors name the field', () => {
  const d = chainD()
  it('shape of the document', () => {
    fails([], '', 'expected a JSON object, got an array')
    fails({ ...d, config: undefined }, 'config', 'genesis has no chain configuration')
    fails({ config: d.config, alloc: {} }, 'gasLimit', "missing required field 'gasLimit' for Genesis")
    fails({ config: d.config, gasLimit: 1 }, 'alloc', "missing required field 'alloc' for Genesis")
    fails({ ...d, gaslimits: 1 }, 'gaslimits', /^unknown field/)
    fails({ ...d, alloc: [] }, 'alloc', /expected a JSON object of address -> account/)
  })

  it('config', () => {
    fails({ ...d, config: { chainId: '99999' } }, 'config.chainId', /positive JSON integer/)
    fails({ ...d, config: {} }, 'config.chainId', /positive JSON integer/)
    fails({ ...d, config: { chainId: 1, homesteadBlock: 5 } }, 'config.homesteadBlock', /must be 0, got 5/)
    fails({ ...d, config: { chainId: 1, feeConfig: {} } }, 'config.feeConfig', /^unknown field/)
    fails({ ...d, config: { chainId: 1, durangoBlockTimestamp: -1 } }, 'config.durangoBlockTimestamp', /unix time/)
    fails({ ...d, config: { chainId: 1, heliconTimestamp: 0 } }, 'config.heliconTimestamp', /Helicon/)
    fails(
      { ...d, config: { chainId: 1, apricotPhase1BlockTimestamp: 1_700_000_000_000, apricotPhase2BlockTimestamp: 0 } },
      'config.apricotPhase2BlockTimestamp',
      /is before apricotPhase1BlockTimestamp/,
    )
    fails({ ...d, config: { chainId: 1, daoForkSupport: 'yes' } }, 'config.daoForkSupport', /boolean/)
    fails(
      { ...d, config: { chainId: 1, etnaTimestamp: 1_900_000_000 } },
      'config.fortunaTimestamp',
      "1607144400 is before etnaTimestamp (1900000000); upgrades must be in order (unset ones are the network's)",
    )
  })

  it('header values', () => {
    fails({ ...d, gasLimit: 'lots' }, 'gasLimit', 'invalid hex or decimal integer "lots"')
    fails({ ...d, gasLimit: '0x10000000000000000' }, 'gasLimit', /does not fit in 64 bits/)
    fails({ ...d, gasLimit: 1.5 }, 'gasLimit', /not an integer/)
    fails({ ...d, timestamp: true }, 'timestamp', /expected a hex or decimal integer, got a boolean/)
    fails({ ...d, extraData: 'abcd' }, 'extraData', /without 0x prefix/)
    fails({ ...d, extraData: '0xabc' }, 'extraData', /odd length/)
    fails({ ...d, coinbase: '0x1234' }, 'coinbase', 'hex string has length 4, want 40')
    fails({ ...d, mixHash: '0xzz' }, 'mixHash', /invalid hex string/)
    fails({ ...d, number: '0x1' }, 'number', /must be 0 in a genesis/)
    fails({ ...d, gasUsed: 3 }, 'gasUsed', /must be 0 in a genesis/)
    fails({ ...d, parentHash: `0x${'01'.repeat(32)}` }, 'parentHash', /zero hash/)
  })

  it('alloc entries', () => {
    const at = (account: unknown, key = '0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC') => ({
      ...d,
      alloc: { [key]: account },
    })
    const path = 'alloc.0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC'
    fails(at({}), `${path}.balance`, "missing required field 'balance' for GenesisAccount")
    fails(at({ balance: 1e30 }), `${path}.balance`, /not an integer in \[0, 2\^53\)/)
    fails(at({ balance: '-1' }), `${path}.balance`, 'invalid hex or decimal integer "-1"')
    fails(at({ balance: `0x1${'0'.repeat(64)}` }), `${path}.balance`, /does not fit in 256 bits/)
    fails(at({ balance: 1, nonce: 'x' }), `${path}.nonce`, /invalid hex or decimal integer/)
    fails(at({ balance: 1, code: '6001' }), `${path}.code`, /without 0x prefix/)
    fails(at({ balance: 1, storage: [] }), `${path}.storage`, /slot -> value/)
    fails(
      at({ balance: 1, storage: { ['0x' + '1'.repeat(66)]: '0x1' } }),
      `${path}.storage.0x${'1'.repeat(66)}`,
      /too many hex/,
    )
    fails(at({ balance: 1, storage: { '0x1': '0x1' } }), `${path}.storage.0x1`, /invalid hex storage/)
    fails(at({ balance: 1, extra: 1 }), `${path}.extra`, /^unknown field/)
    fails(at({ balance: 1 }, '0x1234'), 'alloc.0x1234', /20 bytes/)
    fails(
      {
        ...d,
        alloc: {
          '0xAAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa': { balance: 1 },
          aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: { balance: 2 },
        },
      },
      'alloc.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      /appears twice/,
    )
  })
})
