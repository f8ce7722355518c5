import '../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { readChainConfig } from '../../../../../src/chains/chain-config-file.js'
import { formatGoDuration, parseGoDuration } from '../../../../../src/chains/evm/config/go-duration.js'
import {
  defaultEvmConfig,
  EvmConfigError,
  evmConfigToVmConfig,
  parseEvmConfig,
  resolveEthApis,
} from '../../../../../src/chains/evm/config.js'

function failure(text: string, opts = {}): string {
  try {
    parseEvmConfig(text, opts)
  } catch (e) {
    assert.ok(e instanceof EvmConfigError)
    return e.message
  }
  throw new Error('expected the config to be refused')
}

const LOCAL_C = '2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC'

describe('C-chain config: defaults and values', () => {
  it('defaults are the reference ones, frozen', () => {
    const c = defaultEvmConfig()
    assert.deepEqual(c.ethApis, [
      'eth',
      'eth-filter',
      'net',
      'web3',
      'internal-eth',
      'internal-blockchain',
      'internal-transaction',
    ])
    assert.equal(c.txPoolPriceLimit, 1)
    assert.equal(c.txPoolPriceBump, 10)
    assert.equal(c.txPoolGlobalSlots, 5120)
    assert.equal(c.txPoolLifetimeMs, 600_000)
    assert.equal(c.rpcGasCap, 50_000_000)
    assert.equal(c.batchResponseMaxSize, 25_000_000)
    assert.equal(c.historicalProofQueryWindow, 43_200)
    assert.equal(c.stateSyncEnabled, null)
    assert.equal(c.pushGossipFrequencyMs, 100)
    assert.equal(c.priceOptionsMaxTip, 20_000_000_000)
    assert.deepEqual(c.allowUnprotectedTxHashes, ['0xfefb2da535e927b85fe68eb81cb2e4a5827c905f78381a01ef2322aa9b0aee8e'])
    assert.ok(Object.isFrozen(c) && Object.isFrozen(c.ethApis))
    assert.deepEqual(parseEvmConfig(''), c)
    assert.deepEqual(parseEvmConfig(' {} '), c)
    assert.deepEqual(parseEvmConfig('null'), c)
  })

  it('reads values: durations as Go strings or nanoseconds, lists replace, null leaves the default', () => {
    const c = parseEvmConfig(
      JSON.stringify({
        'tx-pool-lifetime': '1m30s',
        'push-gossip-frequency': 250_000_000,
        'api-max-duration': '30s',
        'regossip-frequency': '1.5s',
        'eth-apis': ['eth', 'public-eth-filter', 'internal-tx-pool'],
        'state-sync-enabled': false,
        'gas-target': 2_000_000,
        'rpc-tx-fee-cap': 1.5,
        'allow-unprotected-tx-hashes': [`0x${'AB'.repeat(32)}`],
        'log-level': null,
        'pruning-enabled': true,
        'State-History': 64,
      }),
    )
    assert.equal(c.txPoolLifetimeMs, 90_000)
    assert.equal(c.pushGossipFrequencyMs, 250)
    assert.equal(c.apiMaxDurationMs, 30_000)
    assert.equal(c.regossipFrequencyMs, 1500)
    assert.deepEqual(c.ethApis, ['eth', 'public-eth-filter', 'internal-tx-pool'])
    assert.deepEqual([...resolveEthApis(c.ethApis)], ['eth', 'eth-filter', 'internal-tx-pool'])
    assert.equal(c.stateSyncEnabled, false)
    assert.equal(c.gasTarget, 2_000_000)
    assert.equal(c.rpcTxFeeCap, 1.5)
    assert.deepEqual(c.allowUnprotectedTxHashes, [`0x${'ab'.repeat(32)}`])
    assert.equal(c.logLevel, 'info')
    assert.equal(c.stateHistory, 64)
  })

  it('Go duration parsing and printing', () => {
    assert.equal(parseGoDuration('1h2m3.5s'), 3_723_500_000_000n)
    assert.equal(parseGoDuration('100ms'), 100_000_000n)
    assert.equal(parseGoDuration('2µs'), 2000n)
    assert.equal(formatGoDuration(0n), '0s')
    assert.equal(formatGoDuration(100_000_000n), '100ms')
    assert.equal(formatGoDuration(1_500n), '1.5µs')
    assert.equal(formatGoDuration(90_000_000_000n), '1m30s')
    assert.equal(formatGoDuration(3_600_000_000_000n), '1h0m0s')
    assert.equal(formatGoDuration(1_500_000_000n), '1.5s')
  })
})

describe('C-chain config: refusals', () => {
  it('an unknown key names it and suggests the closest; a removed key says so', () => {
    assert.equal(
      failure('{"rpc-gas-capp": 1}'),
      'unknown C-chain config key "rpc-gas-capp" (did you mean "rpc-gas-cap"?)',
    )
    assert.equal(
      failure('{"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz": 1}'),
      'unknown C-chain config key "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"',
    )
    assert.equal(
      failure('{"tx-regossip-frequency": "1s"}'),
      'C-chain config key "tx-regossip-frequency" was removed from the reference and is no longer recognised',
    )
  })

  it('type mismatches: failed to unmarshal config <json>: <Go error>', () => {
    const cases: [string, string][] = [
      ['{"rpc-gas-cap": "5"}', 'json: cannot unmarshal string into Go struct field Config.rpc-gas-cap of type uint64'],
      [
        '{"rpc-gas-cap": -1}',
        'json: cannot unmarshal number -1 into Go struct field Config.rpc-gas-cap of type uint64',
      ],
      [
        '{"trie-clean-cache": 1.5}',
        'json: cannot unmarshal number 1.5 into Go struct field Config.trie-clean-cache of type int',
      ],
      [
        '{"state-sync-request-size": 70000}',
        'json: cannot unmarshal number 70000 into Go struct field Config.state-sync-request-size of type uint16',
      ],
      [
        '{"pruning-enabled": 1}',
        'json: cannot unmarshal number into Go struct field Config.pruning-enabled of type bool',
      ],
      ['{"eth-apis": "eth"}', 'json: cannot unmarshal string into Go struct field Config.eth-apis of type []string'],
      ['{"eth-apis": [1]}', 'json: cannot unmarshal number into Go struct field Config.eth-apis of type string'],
      ['{"log-level": {}}', 'json: cannot unmarshal object into Go struct field Config.log-level of type string'],
      [
        '{"state-sync-enabled": "yes"}',
        'json: cannot unmarshal string into Go struct field Config.state-sync-enabled of type bool',
      ],
      ['[]', 'json: cannot unmarshal array into Go value of type config.Config'],
      ['{"tx-pool-lifetime": "abc"}', 'time: invalid duration "abcns"'],
      // cast appends "ns" when the text has none of the letters n s u µ m h
      ['{"tx-pool-lifetime": "1d"}', 'time: unknown unit "dns" in duration "1dns"'],
      ['{"tx-pool-lifetime": "5m3y"}', 'time: unknown unit "y" in duration "5m3y"'],
      ['{"tx-pool-lifetime": "5m3"}', 'time: missing unit in duration "5m3"'],
      ['{"tx-pool-lifetime": true}', 'unable to cast true of type bool to Duration'],
      [
        '{"allow-unprotected-tx-hashes": ["0x12"]}',
        'json: cannot unmarshal hex string has length 2, want 64 for common.Hash into Go struct field Config.allow-unprotected-tx-hashes of type common.Hash',
      ],
      ['{"allow-unprotected-tx-hashes": [1]}', 'json: cannot unmarshal non-string into Go value of type common.Hash'],
      ['{"a":}', "invalid character '}' looking for beginning of value"],
      ['{"eth-apis": ["eth"]', 'unexpected end of JSON input'],
      ['{"eth-apis" ["eth"]}', "invalid character '[' after object key"],
      ['{} x', "invalid character 'x' after top-level value"],
    ]
    for (const [text, err] of cases) assert.equal(failure(text), `failed to unmarshal config ${text}: ${err}`, text)
  })

  it('integers beyond what Firn keeps exactly are refused by name', () => {
    assert.equal(
      failure('{"rpc-gas-cap": 18446744073709551615}'),
      'rpc-gas-cap: 18446744073709551615 is beyond ±9007199254740991, the largest integer Firn accepts',
    )
  })

  it('the reference checks: eth-apis names, pruning, commit intervals, gossip stake, firewood', () => {
    assert.equal(failure('{"eth-apis": ["eth", "nope"]}'), 'API service nope not found')
    assert.equal(failure('{"state-history": 0}'), 'cannot use state history of 0 with pruning enabled')
    assert.equal(failure('{"commit-interval": 0}'), 'cannot use commit interval of 0 with pruning enabled')
    assert.equal(
      failure('{"pruning-enabled": false, "offline-pruning-enabled": true}'),
      'cannot run offline pruning while pruning is disabled',
    )
    assert.equal(
      failure('{"populate-missing-tries": 5}'),
      'cannot enable populate missing tries while offline pruning (enabled: false)/pruning (enabled: true) are enabled',
    )
    assert.equal(
      failure('{"commit-interval": 1024}', { networkId: 1 }),
      'cannot use non-default commit interval on production network: got 1024, expected 4096',
    )
    assert.equal(parseEvmConfig('{"commit-interval": 1024}', { networkId: 12345 }).commitInterval, 1024)
    assert.equal(
      failure('{"state-sync-commit-interval": 4096}', { networkId: 5 }),
      'cannot start non-local network with syncable interval 4096 different than 16384',
    )
    assert.equal(
      failure('{"push-gossip-percent-stake": 1.5}'),
      'push-gossip-percent-stake is 1.500000 but must be in the range [0, 1]',
    )
    assert.equal(failure('{"state-scheme": "firewood"}'), 'snapshot cache must be disabled for Firewood')
    assert.equal(parseEvmConfig('{"state-scheme": "firewood", "snapshot-cache": 0}').stateScheme, 'firewood')
  })
})

describe('C-chain config: file and getVMConfig', () => {
  it('parses <dir>/C/config.json as the node reads it; a missing file gives the defaults', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'firn-evm-config-'))
    const load = async () => parseEvmConfig(await readChainConfig(dir, LOCAL_C, ['C']))
    try {
      assert.deepEqual(await load(), defaultEvmConfig())
      await mkdir(join(dir, 'C'))
      await writeFile(join(dir, 'C', 'config.json'), '{"admin-api-enabled": true, "tx-pool-account-slots": 32}')
      const c = await load()
      assert.equal(c.adminApiEnabled, true)
      assert.equal(c.txPoolAccountSlots, 32)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('maps back to the reference key names and JSON encoding', () => {
    const vm = evmConfigToVmConfig(defaultEvmConfig())
    assert.equal(Object.keys(vm)[0], 'admin-api-enabled')
    assert.equal('gas-target' in vm, false)
    assert.equal('populate-missing-tries' in vm, false)
    assert.equal(vm['tx-pool-lifetime'], '10m0s')
    assert.equal(vm['push-gossip-frequency'], '100ms')
    assert.equal(vm['api-max-duration'], '0s')
    assert.equal(vm['continuous-profiler-frequency'], '15m0s')
    assert.equal(vm['historical-proof-query-window'], 43_200)
    assert.equal(vm['state-sync-enabled'], null)
    assert.equal(vm['warp-off-chain-messages'], null)
    assert.equal(vm['rpc-gas-cap'], 50_000_000)
    const custom = evmConfigToVmConfig(
      parseEvmConfig('{"gas-target": 5, "historical-proof-query-window": 0, "regossip-frequency": "1m30s"}'),
    )
    assert.equal(custom['gas-target'], 5)
    assert.equal('historical-proof-query-window' in custom, false)
    assert.equal(custom['regossip-frequency'], '1m30s')
    assert.doesNotThrow(() => JSON.stringify({ config: vm }))
  })
})
