import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { hexToBytes } from '@ethereumjs/util'
import { sha256 } from '@noble/hashes/sha2.js'
import { formatAddress } from '../../../../../src/chains/evm/atomic/bech32.js'
import { decodeUtxo } from '../../../../../src/chains/evm/atomic/codec.js'
import { genesisUtxoElements, genesisUtxoTxId } from '../../../../../src/chains/evm/atomic/genesis-utxos.js'
import { toHex } from '../../../../../src/chains/evm/atomic/hex.js'
import { utxoIdOf } from '../../../../../src/chains/evm/atomic/ids.js'
import { shortAddressOfKey } from '../../../../../src/chains/evm/atomic/sign.js'
import { EWOQ_PRIVATE_KEY } from '../../../../../src/chains/evm/rules/presets.js'
import { deriveChainId } from '../../../../../src/chains/genesis/chain-id.js'
import { parseNetworkGenesis } from '../../../../../src/chains/genesis/load.js'
import { chainIds } from '../../../../../src/config/chain-ids.js'
import { ConfigError } from '../../../../../src/config/sources.js'
import { idFromString, shortIdToString } from '../../../../../src/identity/ids.js'

const local = { networkId: 12345, dev: true, nowSec: 1_800_000_000 }
const ids = chainIds(12345)
const EWOQ = shortAddressOfKey(hexToBytes(`0x${EWOQ_PRIVATE_KEY}`))
const EWOQ_X = 'X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u'
const D = { name: 'D', vm: 'evm', genesis: { config: { chainId: 99999 }, gasLimit: '0x7A1200', alloc: {} } }
const K = { name: 'K', vm: 'kvvm', genesis: {} }
const dId = deriveChainId(12345, 'D', 'evm', D.genesis)

const entry = (over: Record<string, unknown> = {}) => ({
  sourceChain: 'X',
  destinationChain: 'C',
  address: EWOQ_X,
  amount: '1000000000',
  ...over,
})
const parse = (doc: Record<string, unknown>) => parseNetworkGenesis(JSON.stringify(doc), 'g.json', local)

function fails(doc: Record<string, unknown>, message: string): void {
  assert.throws(
    () => parse(doc),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError, `not a ConfigError: ${err}`)
      assert.equal(err.message, `unable to load genesis file g.json: ${message}`)
      return true
    },
  )
}

describe('genesis atomicUtxos: parsing', () => {
  it('resolves aliases, IDs and both address forms; defaults count 1 and locktime 0', () => {
    const g = parse({
      chains: [D],
      atomicUtxos: [
        entry(),
        entry({
          sourceChain: 'avm',
          destinationChain: 'D',
          address: shortIdToString(hexToBytes(EWOQ as `0x${string}`)),
        }),
        entry({
          sourceChain: ids.P,
          destinationChain: dId,
          count: 3,
          locktime: '1700000000',
          amount: '18446744073709551615',
        }),
        entry({ address: 'D-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u', destinationChain: 'evm' }),
      ],
    })
    assert.deepEqual(g.atomicUtxos, [
      { sourceChain: ids.X, destinationChain: ids.C, address: EWOQ, amount: '1000000000', count: 1, locktime: '0' },
      { sourceChain: ids.X, destinationChain: dId, address: EWOQ, amount: '1000000000', count: 1, locktime: '0' },
      {
        sourceChain: ids.P,
        destinationChain: dId,
        address: EWOQ,
        amount: '18446744073709551615',
        count: 3,
        locktime: '1700000000',
      },
      { sourceChain: ids.X, destinationChain: ids.C, address: EWOQ, amount: '1000000000', count: 1, locktime: '0' },
    ])
  })

  it('no list, null or an empty list: no atomicUtxos', () => {
    assert.equal(parse({ chains: [] }).atomicUtxos, undefined)
    assert.equal(parse({ atomicUtxos: null }).atomicUtxos, undefined)
    assert.equal(parse({ atomicUtxos: [] }).atomicUtxos, undefined)
  })

  it('refuses unknown chains, non-EVM destinations and a pair of one chain', () => {
    const unknown = (path: string, text: string) =>
      `${path}: unknown chain "${text}": expected P, X, C (or platform, avm, evm), a declared chain's name, or the CB58 ID of one of those chains`
    fails({ atomicUtxos: [entry({ sourceChain: 'Y' })] }, unknown('atomicUtxos[0].sourceChain', 'Y'))
    fails({ atomicUtxos: [entry(), entry({ destinationChain: 'D' })] }, unknown('atomicUtxos[1].destinationChain', 'D'))
    const stranger = deriveChainId(12345, 'Z', 'evm', {})
    fails({ atomicUtxos: [entry({ sourceChain: stranger })] }, unknown('atomicUtxos[0].sourceChain', stranger))
    fails(
      { atomicUtxos: [entry({ destinationChain: 'X' })] },
      `atomicUtxos[0].destinationChain: ${ids.X} is not an EVM chain this node runs`,
    )
    fails(
      { chains: [K], atomicUtxos: [entry({ destinationChain: 'K' })] },
      `atomicUtxos[0].destinationChain: ${deriveChainId(12345, 'K', 'kvvm', {})} is not an EVM chain this node runs`,
    )
    fails(
      { atomicUtxos: [entry({ sourceChain: 'evm' })] },
      'atomicUtxos[0].sourceChain: the source chain is the destination chain',
    )
  })

  it('refuses bad addresses', () => {
    const at = 'atomicUtxos[0].address'
    fails(
      { atomicUtxos: [entry({ address: 'nothing' })] },
      `${at}: not a CB58 short ID nor an address <chain>-<hrp>1...: "nothing"`,
    )
    fails(
      { atomicUtxos: [entry({ address: 'Q-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u' })] },
      `${at}: unknown chain alias "Q" in address Q-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u`,
    )
    const corrupt = `${EWOQ_X.slice(0, -1)}q`
    // the right checksum is the real address's last six characters
    fails(
      { atomicUtxos: [entry({ address: corrupt })] },
      `${at}: invalid bech32 address "${corrupt}": invalid checksum (expected (bech32=00z96u, bech32m=00z96u6njfl7), got 00z96q)`,
    )
    const fuji = formatAddress('X', 'fuji', hexToBytes(EWOQ as `0x${string}`))
    fails({ atomicUtxos: [entry({ address: fuji })] }, `${at}: expected hrp "local" but got "fuji" in address ${fuji}`)
    const short = formatAddress('X', 'local', new Uint8Array(10))
    fails({ atomicUtxos: [entry({ address: short })] }, `${at}: expected 20 bytes but got 10 in address ${short}`)
    fails({ atomicUtxos: [entry({ address: 7 })] }, `${at}: expected a string, got a number`)
  })

  it('refuses amounts that are 0, numbers, not decimal or over 64 bits', () => {
    const at = 'atomicUtxos[0].amount'
    fails({ atomicUtxos: [entry({ amount: '0' })] }, `${at}: must be at least 1 nAVAX`)
    const notDecimal = (got: string) => `${at}: expected a decimal string (digits only, e.g. "1000000000"), got ${got}`
    fails({ atomicUtxos: [entry({ amount: 1000 })] }, notDecimal('a number'))
    fails({ atomicUtxos: [entry({ amount: '0x10' })] }, notDecimal('"0x10"'))
    fails({ atomicUtxos: [entry({ amount: '1.5' })] }, notDecimal('"1.5"'))
    fails({ atomicUtxos: [entry({ amount: '-1' })] }, notDecimal('"-1"'))
    fails({ atomicUtxos: [entry({ amount: '007' })] }, notDecimal('"007"'))
    fails(
      { atomicUtxos: [entry({ amount: '18446744073709551616' })] },
      `${at}: 18446744073709551616 does not fit 64 bits`,
    )
    fails(
      { atomicUtxos: [entry({ locktime: 5 })] },
      'atomicUtxos[0].locktime: expected a decimal string (digits only, e.g. "1000000000"), got a number',
    )
  })

  it('refuses missing and unknown fields, bad counts and more than 100,000 UTXOs in all', () => {
    fails(
      { atomicUtxos: [{ sourceChain: 'X', destinationChain: 'C', address: EWOQ_X }] },
      'atomicUtxos[0].amount: missing',
    )
    fails(
      { atomicUtxos: [entry({ owner: 'me' })] },
      'atomicUtxos[0].owner: unknown field (known: sourceChain, destinationChain, address, amount, count, locktime)',
    )
    fails({ atomicUtxos: {} }, 'atomicUtxos: expected an array, got an object')
    fails({ atomicUtxos: [entry({ count: 0 })] }, 'atomicUtxos[0].count: expected a positive JSON integer, got 0')
    fails(
      { atomicUtxos: [entry({ count: '3' })] },
      'atomicUtxos[0].count: expected a positive JSON integer, got a string',
    )
    fails({ atomicUtxos: [entry({ count: 1.5 })] }, 'atomicUtxos[0].count: expected a positive JSON integer, got 1.5')
    fails({ atomicUtxos: [entry({ count: 100_001 })] }, 'atomicUtxos[0].count: at most 100000, got 100001')
    fails(
      { atomicUtxos: [entry({ count: 60_000 }), entry({ count: 40_001 })] },
      'atomicUtxos[1].count: the list seeds more than 100000 UTXOs (100001 so far)',
    )
    assert.equal(parse({ atomicUtxos: [entry({ count: 60_000 }), entry({ count: 40_000 })] }).atomicUtxos?.length, 2)
  })
})

describe('genesis atomicUtxos: on a custom network', () => {
  it('takes the custom HRP (short form; load.test.ts has the full form) and refuses the local one', () => {
    const custom = { networkId: 1337, dev: false, nowSec: 1_800_000_000 }
    const owner = hexToBytes(EWOQ as `0x${string}`)
    const doc = (address: string) => JSON.stringify({ atomicUtxos: [entry({ address })] })
    const g = parseNetworkGenesis(doc(formatAddress('X', 'custom', owner)), 'g.json', custom)
    assert.equal(g.atomicUtxos?.[0]?.address, EWOQ)
    assert.throws(() => parseNetworkGenesis(doc(EWOQ_X), 'g.json', custom), {
      message: `unable to load genesis file g.json: atomicUtxos[0].address: expected hrp "custom" but got "local" in address ${EWOQ_X}`,
    })
  })
})

describe('genesis atomicUtxos: the UTXOs', () => {
  it('derives tx IDs from the entry index and puts count outputs per entry, grouped by pair', () => {
    const domain = new TextEncoder().encode('firn/genesis-atomic-utxos/v1')
    assert.equal(genesisUtxoTxId(2), toHex(sha256(Uint8Array.from([...domain, 0, 0, 0, 2]))))
    const asset = toHex(idFromString(ids.avaxAssetId))
    const { atomicUtxos } = parse({
      chains: [D],
      atomicUtxos: [entry({ count: 2 }), entry({ destinationChain: 'D' }), entry({ amount: '5', locktime: '9' })],
    })
    const groups = genesisUtxoElements(atomicUtxos!, asset)
    assert.deepEqual(
      groups.map((g) => [g.sourceChain, g.destinationChain, g.elements.length]),
      [
        [ids.X, ids.C, 3],
        [ids.X, dId, 1],
      ],
    )
    const c = groups[0]!.elements
    assert.deepEqual(
      c.map((e) => toHex(e.key)),
      [utxoIdOf(genesisUtxoTxId(0), 0), utxoIdOf(genesisUtxoTxId(0), 1), utxoIdOf(genesisUtxoTxId(2), 0)],
    )
    assert.deepEqual(decodeUtxo(c[2]!.value), {
      txId: genesisUtxoTxId(2),
      outputIndex: 0,
      assetId: asset,
      output: { amount: 5n, locktime: 9n, threshold: 1, addresses: [EWOQ] },
    })
    for (const e of c) assert.deepEqual(e.traits, [hexToBytes(EWOQ as `0x${string}`)])
  })
})
