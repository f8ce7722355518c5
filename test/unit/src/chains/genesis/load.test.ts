import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { bech32 } from '@scure/base'
import { presetCChainGenesis } from '../../../../../src/chains/evm/rules/cchain-genesis-json.js'
import { deriveChainId } from '../../../../../src/chains/genesis/chain-id.js'
import { loadNetworkGenesis, parseNetworkGenesis } from '../../../../../src/chains/genesis/load.js'
import { chainIds } from '../../../../../src/config/chain-ids.js'
import { ConfigError } from '../../../../../src/config/sources.js'

const NOW = 1_800_000_000
const local = { networkId: 12345, dev: true, nowSec: NOW }
const custom = { networkId: 1337, dev: false, nowSec: NOW }
const D = { name: 'D', vm: 'evm', genesis: { config: { chainId: 99999 }, gasLimit: '0x7A1200', alloc: {} } }
const dId = (networkId: number) => deriveChainId(networkId, 'D', 'evm', D.genesis)

const STAKED = 'X-local1g65uqn6t77p656w64023nh8nd9updzmxyymev2'
const OTHER = 'X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u'
const V1 = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg'
const V2 = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ'
const C_GENESIS = { ...presetCChainGenesis(1337), config: { chainId: 1337 } }

/** A custom network's full genesis (the reference's fields), as text: `BIG` stands for an amount above 2^53. */
function fullGenesis(overrides: Record<string, unknown> = {}): string {
  const doc = {
    networkID: 1337,
    allocations: [
      {
        ethAddr: `0x${'b3'.repeat(20)}`,
        avaxAddr: STAKED,
        initialAmount: 0,
        unlockSchedule: [{ amount: 7, locktime: 1 }],
      },
      { ethAddr: `0x${'b3'.repeat(20)}`, avaxAddr: STAKED, initialAmount: 0, unlockSchedule: [{ amount: 'BIG' }] },
      { ethAddr: `0x${'b3'.repeat(20)}`, avaxAddr: OTHER, initialAmount: 300000000000000000, unlockSchedule: [] },
    ],
    startTime: 1721016000,
    initialStakeDuration: 31536000,
    initialStakeDurationOffset: 5400,
    initialStakedFunds: [STAKED],
    initialStakers: [
      { nodeID: V1, rewardAddress: OTHER, delegationFee: 1000000 },
      {
        nodeID: V2,
        rewardAddress: OTHER,
        delegationFee: 20000,
        signer: { publicKey: `0x${'90'.repeat(48)}`, proofOfPossession: `0x${'8b'.repeat(96)}` },
      },
    ],
    cChainGenesis: JSON.stringify(C_GENESIS),
    message: 'hello',
    chains: [D],
    ...overrides,
  }
  return JSON.stringify(doc).replace('"BIG"', '18000000000000000001')
}

function fails(text: string, opts: typeof local, message: string | RegExp) {
  assert.throws(
    () => parseNetworkGenesis(text, 'g.json', opts),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError, `not a ConfigError: ${err}`)
      if (typeof message === 'string') assert.equal(err.message, message)
      else assert.match(err.message, message)
      return true
    },
  )
}

describe('network genesis: no file', () => {
  it("is the network preset's C chain, with its ID and the preset's genesis JSON", () => {
    for (const networkId of [12345, 1, 5, 1337]) {
      assert.deepEqual(loadNetworkGenesis({ file: '', content: '' }, { ...local, networkId }), {
        origin: 'preset',
        chains: [{ chainId: chainIds(networkId).C, alias: 'C', vm: 'evm', genesis: presetCChainGenesis(networkId) }],
      })
    }
  })
})

describe('network genesis: the short form {"chains": [...]}', () => {
  it('adds the declared chains after the preset C chain (local network, --dev)', () => {
    const g = parseNetworkGenesis(JSON.stringify({ chains: [D], message: 'm' }), 'g.json', local)
    assert.equal(g.origin, 'g.json')
    assert.equal(g.validators, undefined)
    assert.deepEqual(g.chains, [
      { chainId: chainIds(12345).C, alias: 'C', vm: 'evm', genesis: presetCChainGenesis(12345) },
      { chainId: dId(12345), alias: 'D', vm: 'evm', genesis: D.genesis },
    ])
    assert.equal(parseNetworkGenesis('{}', 'g.json', local).chains.length, 1)
  })

  it('networkID, when given, must be the node network (the reference text)', () => {
    assert.equal(parseNetworkGenesis('{"networkID": 12345, "chains": []}', 'g.json', local).chains.length, 1)
    fails(
      '{"networkID": 1, "chains": []}',
      local,
      'unable to load genesis file g.json: networkID: conflicting networkIDs: expected 12345 but config contains 1',
    )
  })

  it('is also what a custom network takes (its preset is the local genesis)', () => {
    const g = parseNetworkGenesis(JSON.stringify({ chains: [D] }), 'g.json', custom)
    assert.deepEqual(
      g.chains.map((c) => c.chainId),
      [chainIds(1337).C, dId(1337)],
    )
  })

  it('mainnet and Fuji refuse any genesis file, as the reference does', () => {
    fails(
      '{"chains": []}',
      { ...local, networkId: 1 },
      'unable to load genesis file g.json: overrides standard network genesis config: mainnet',
    )
    fails(
      '{}',
      { ...local, networkId: 5 },
      'unable to load genesis file g.json: overrides standard network genesis config: fuji',
    )
  })

  it('the local network refuses the reference fields, naming the first', () => {
    fails(
      '{"chains": [], "allocations": []}',
      local,
      /^unable to load genesis file g\.json: allocations: overrides standard network genesis config: local \(on the local network/,
    )
  })

  it('a declared chain error names the file, the entry and the field', () => {
    fails(
      JSON.stringify({ chains: [{ ...D, name: 'C' }] }),
      local,
      "unable to load genesis file g.json: chains[0].name: C is an alias of the network's own chains",
    )
  })

  it('a number JavaScript cannot hold is refused where it is', () => {
    fails(
      '{"chains": [{"name": "K", "vm": "kvvm", "genesis": {"n": [1e400]}}]}',
      local,
      'unable to load genesis file g.json: chains[0].genesis.n[0]: the number 1e400 is out of range (write it as a string)',
    )
  })

  it('syntax errors and non-objects', () => {
    fails(
      '{"chains": [',
      local,
      /^unable to load genesis file g\.json: could not unmarshal genesis JSON: unexpected end/,
    )
    fails(
      '[]',
      local,
      'unable to load genesis file g.json: expected a JSON object (the network genesis, or {"chains": [...]})',
    )
    fails('{"chain": []}', local, /^unable to load genesis file g\.json: chain: unknown field/)
  })
})

describe('network genesis: the full form (custom networks)', () => {
  it('C takes cChainGenesis, the chains follow, validators are the stakers with the reference split', () => {
    const g = parseNetworkGenesis(fullGenesis(), 'g.json', custom)
    assert.deepEqual(g.chains, [
      { chainId: chainIds(1337).C, alias: 'C', vm: 'evm', genesis: C_GENESIS },
      { chainId: dId(1337), alias: 'D', vm: 'evm', genesis: D.genesis },
    ])
    // 7 + 18000000000000000001 staked, split over two stakers: floor(total / 2) and the rest, exactly
    assert.deepEqual(g.validators, [
      { nodeId: V1, weight: '9000000000000000004' },
      { nodeId: V2, weight: '9000000000000000004' },
    ])
  })

  it('atomicUtxos may name the declared chains (destination D here)', () => {
    const entry = { sourceChain: 'X', destinationChain: 'D', amount: '5', count: 2 }
    // the custom HRP: the local address re-encoded (its bech32 checksum differs)
    const owner = bech32.fromWords(bech32.decode(OTHER.slice(2), false).words)
    const custom1337 = `D-${bech32.encode('custom', bech32.toWords(owner), false)}`
    const g = parseNetworkGenesis(fullGenesis({ atomicUtxos: [{ ...entry, address: custom1337 }] }), 'g.json', custom)
    assert.deepEqual(g.atomicUtxos, [
      {
        sourceChain: chainIds(1337).X,
        destinationChain: dId(1337),
        address: `0x${Buffer.from(owner).toString('hex')}`,
        amount: '5',
        count: 2,
        locktime: '0',
      },
    ])
  })

  it('an uneven split gives the last staker the rest', () => {
    const text = fullGenesis().replace('18000000000000000001', '0')
    assert.deepEqual(
      parseNetworkGenesis(text, 'g.json', custom).validators?.map((v) => v.weight),
      ['3', '4'],
    )
  })

  it('field shapes, named by path', () => {
    const bad = (overrides: Record<string, unknown>, message: string | RegExp) =>
      fails(fullGenesis(overrides), custom, message)
    const prefix = 'unable to load genesis file g.json: '
    bad({ networkID: '1337' }, `${prefix}networkID: expected an unsigned 32-bit integer, got a string`)
    bad({ startTime: -1 }, `${prefix}startTime: expected an unsigned 64-bit integer, got -1`)
    bad({ initialStakeDuration: 1.5 }, `${prefix}initialStakeDuration: expected an unsigned 64-bit integer, got 1.5`)
    bad(
      { allocations: [{ avaxAddr: STAKED, ethAddr: '0x12' }] },
      /^unable to load genesis file g\.json: allocations\[0\]\.ethAddr: expected "0x" and 20 bytes/,
    )
    bad(
      { allocations: [{ avaxAddr: 'local1xyz', ethAddr: `0x${'00'.repeat(20)}` }] },
      /allocations\[0\]\.avaxAddr: no separator found/,
    )
    bad(
      { allocations: [{ avaxAddr: 'X-local1xyz', ethAddr: `0x${'00'.repeat(20)}` }] },
      /allocations\[0\]\.avaxAddr: invalid bech32 address/,
    )
    bad(
      { initialStakers: [{ nodeID: '7Xhw2', rewardAddress: OTHER }] },
      `${prefix}initialStakers[0].nodeID: ID: 7Xhw2 is missing the prefix: NodeID-`,
    )
    bad(
      { initialStakers: [{ nodeID: V1, rewardAddress: OTHER, signer: { publicKey: '0x00' } }] },
      /initialStakers\[0\]\.signer\.publicKey: expected "0x" and 48 bytes/,
    )
    bad(
      { initialStakers: [{ nodeID: V1, rewardAddress: OTHER, delegationFee: 4294967296 }] },
      /initialStakers\[0\]\.delegationFee: expected an unsigned 32-bit integer/,
    )
    bad({ cChainGenesis: 5 }, `${prefix}cChainGenesis: expected a string, got a number`)
    bad({ cChainGenesis: '{' }, /^unable to load genesis file g\.json: cChainGenesis: not JSON: unexpected end/)
    bad(
      { cChainGenesis: JSON.stringify({ ...C_GENESIS, gasLimit: 'x' }) },
      `${prefix}cChainGenesis.gasLimit: invalid hex or decimal integer "x"`,
    )
    bad({ genesis: {} }, /^unable to load genesis file g\.json: genesis: unknown field/)
  })

  it("the reference's rules, with its texts", () => {
    const bad = (overrides: Record<string, unknown>, message: string) =>
      fails(fullGenesis(overrides), custom, `unable to load genesis file g.json: ${message}`)
    bad({ networkID: 7 }, 'networkID: conflicting networkIDs: expected 1337 but config contains 7')
    bad({ allocations: [] }, 'allocations: initial supply must be > 0')
    bad(
      { startTime: NOW + 1 },
      `startTime: startTime cannot be in the future: ${new Date((NOW + 1) * 1000).toISOString()}`,
    )
    bad({ initialStakeDuration: 0 }, 'initialStakeDuration: initial stake duration must be > 0')
    bad(
      { initialStakeDuration: 31536001 },
      'initialStakeDuration: initial stake duration larger than maximum configured',
    )
    bad({ initialStakers: [] }, 'initialStakers: initial stakers must be > 0')
    bad(
      { initialStakeDurationOffset: 31536000 * 2 },
      'initialStakeDuration: initial stake duration is too low must be at least 63072000',
    )
    bad(
      { initialStakedFunds: [] },
      'initialStakedFunds: initial staked funds validation failed: initial staked funds cannot be empty',
    )
    bad(
      { initialStakedFunds: [STAKED, STAKED] },
      `initialStakedFunds[1]: initial staked funds validation failed: duplicate initially staked address: X-custom1g65uqn6t77p656w64023nh8nd9updzmxwd59gh`,
    )
    bad({ cChainGenesis: '' }, 'cChainGenesis: C-Chain genesis cannot be empty')
    const unallocated = bech32.encode('local', bech32.toWords(new Uint8Array(20).fill(1)))
    bad(
      { initialStakedFunds: [`X-${unallocated}`] },
      `initialStakedFunds[0]: initial staked funds validation failed: no allocation to stake in address X-${bech32.encode('custom', bech32.toWords(new Uint8Array(20).fill(1)))}`,
    )
    bad(
      { allocations: [{ ethAddr: `0x${'b3'.repeat(20)}`, avaxAddr: STAKED, initialAmount: 5 }] },
      'allocations: total allocations locked amount is too low: 0 locked < 2 stakers',
    )
    const huge = { ethAddr: `0x${'b3'.repeat(20)}`, avaxAddr: STAKED, initialAmount: 'HUGE' }
    fails(
      fullGenesis({ allocations: [huge, huge] }).replaceAll('"HUGE"', '18000000000000000000'),
      custom,
      'unable to load genesis file g.json: allocations: unable to calculate initial supply: overflow',
    )
  })
})

describe('network genesis: reading the file or the flag content', () => {
  let dir = ''
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firn-genesis-'))
  })
  after(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('--genesis-file', async () => {
    const path = join(dir, 'chains.json')
    await writeFile(path, JSON.stringify({ chains: [D] }))
    const g = loadNetworkGenesis({ file: path, content: '' }, local)
    assert.equal(g.origin, path)
    assert.equal(g.chains[1]?.alias, 'D')
  })

  it('--genesis-file-content (base64) wins over the file', () => {
    const content = Buffer.from(JSON.stringify({ chains: [{ ...D, name: 'E' }] })).toString('base64')
    const g = loadNetworkGenesis({ file: join(dir, 'absent.json'), content }, local)
    assert.equal(g.origin, '(--genesis-file-content)')
    assert.equal(g.chains[1]?.alias, 'E')
  })

  it('read and decode failures, with the reference texts', () => {
    const path = join(dir, 'absent.json')
    assert.throws(() => loadNetworkGenesis({ file: path, content: '' }, local), {
      message: new RegExp(`^unable to load genesis file: unable to load provided genesis config at ${path}: ENOENT`),
    })
    assert.throws(() => loadNetworkGenesis({ file: '', content: 'not base64!' }, local), {
      message: 'unable to load genesis file: unable to load genesis content from flag: unable to decode base64 content',
    })
  })
})
