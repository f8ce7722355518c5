import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type AvaHeader, BLACKHOLE, EMPTY_EXT_DATA_HASH, headerHash } from '../../../../../../src/chains/evm/header.js'
import { decodeFeeState, encodeFeeState, target } from '../../../../../../src/chains/evm/rules/acp176.js'
import { INITIAL_MIN_DELAY_EXCESS } from '../../../../../../src/chains/evm/rules/acp226.js'
import {
  type ChildOptions,
  childHeaderFields,
  verifyChildHeader,
} from '../../../../../../src/chains/evm/rules/child-header.js'
import { EMPTY_TRIE_ROOT, genesisHeader, genesisStateRoot } from '../../../../../../src/chains/evm/rules/genesis.js'
import { type EvmPreset, evmPreset } from '../../../../../../src/chains/evm/rules/presets.js'

const local = evmPreset(12345, { dev: false })
const GENESIS_MS = 1_607_144_400_000n
const T0 = 1_763_600_000_000n // some Granite-era wall clock, ms

async function genesisOf(p: EvmPreset): Promise<AvaHeader> {
  return genesisHeader(p, await genesisStateRoot(p))
}

/** A complete child as a builder would make it. */
function build(parent: AvaHeader, p: EvmPreset, timeMs: bigint, gasUsed = 0n, opts: ChildOptions = {}): AvaHeader {
  const f = childHeaderFields(parent, p, timeMs, opts)
  return {
    parentHash: f.parentHash,
    uncleHash: f.uncleHash,
    coinbase: f.coinbase,
    stateRoot: parent.stateRoot,
    txRoot: EMPTY_TRIE_ROOT,
    receiptRoot: EMPTY_TRIE_ROOT,
    bloom: new Uint8Array(256),
    difficulty: f.difficulty,
    number: f.number,
    gasLimit: f.gasLimit,
    gasUsed,
    time: f.time,
    extra: f.finishExtra(gasUsed),
    mixDigest: f.mixDigest,
    nonce: f.nonce,
    extDataHash: f.extDataHash,
    baseFee: f.baseFee,
    extDataGasUsed: f.extDataGasUsed,
    blockGasCost: f.blockGasCost,
    blobGasUsed: f.blobGasUsed,
    excessBlobGas: f.excessBlobGas,
    parentBeaconRoot: f.parentBeaconRoot,
    timeMilliseconds: f.timeMilliseconds,
    minDelayExcess: f.minDelayExcess,
  }
}

describe('childHeaderFields', () => {
  it('a block after the local genesis: base fee 1 wei, gas limit 10M, delay excess kept', async () => {
    const g = await genesisOf(local)
    const f = childHeaderFields(g, local, T0)
    assert.equal(f.number, 1n)
    assert.equal(f.time, T0 / 1000n)
    assert.equal(f.timeMilliseconds, T0)
    assert.equal(f.baseFee, 1n)
    assert.equal(f.gasLimit, 10_000_000n)
    assert.equal(f.capacity, 10_000_000n)
    assert.equal(f.minDelayExcess, INITIAL_MIN_DELAY_EXCESS)
    assert.equal(f.blockGasCost, 0n)
    assert.deepEqual(f.extDataHash, EMPTY_EXT_DATA_HASH)
    assert.deepEqual(f.coinbase, BLACKHOLE)
    assert.equal(f.difficulty, 1n)
    assert.deepEqual(f.parentHash, headerHash(g))
    const extra = f.finishExtra(21_000n)
    assert.equal(extra.length, 24)
    assert.deepEqual(decodeFeeState(extra), { capacity: 9_979_000n, excess: 21_000n, targetExcess: 0n })
    assert.throws(() => f.finishExtra(10_000_001n), {
      message: 'insufficient capacity: capacity (10000000) < gas (10000001)',
    })
  })

  it('refills capacity at 2 gas per ms and drains excess at 1 per ms', async () => {
    const g = await genesisOf(local)
    const b1 = build(g, local, T0, 10_000_000n)
    const f = childHeaderFields(b1, local, T0 + 2000n)
    assert.equal(f.capacity, 4_000_000n)
    assert.equal(f.feeState.excess, 8_000_000n)
    assert.equal(f.gasLimit, 10_000_000n)
    assert.equal(f.baseFee, 1n)
  })

  it('moves the target toward gas-target and the delay toward min-delay-target', async () => {
    const g = await genesisOf(local)
    const f = childHeaderFields(g, local, T0, { gasTarget: 2_000_000n, minDelayTargetMs: 500n })
    assert.equal(f.minDelayExcess, INITIAL_MIN_DELAY_EXCESS - 200n)
    const after = decodeFeeState(f.finishExtra(0n))
    assert.equal(after.targetExcess, 32_768n)
    assert.ok(target(after) > 1_000_000n)
  })

  it('dev keeps a 1 ms minimum delay', async () => {
    const dev = evmPreset(12345, { dev: true })
    const g = await genesisOf(dev)
    const b1 = build(g, dev, T0)
    assert.equal(b1.minDelayExcess, 0n)
    const b2 = build(b1, dev, T0 + 1n)
    verifyChildHeader(b1, b2, T0 + 1n, dev)
  })

  it('rejects a time before the parent', async () => {
    const b1 = build(await genesisOf(local), local, T0)
    assert.throws(() => childHeaderFields(b1, local, T0 - 1n), /prior to parent timestamp/)
    assert.throws(() => childHeaderFields(b1, local, GENESIS_MS - 1n), /pre-Granite block rules are not implemented/)
  })
})

describe('verifyChildHeader', () => {
  it('accepts what the builder makes, over several blocks', async () => {
    let parent = await genesisOf(local)
    let t = T0
    for (let i = 0; i < 5; i++) {
      const child = build(parent, local, t, BigInt(i) * 1_000_000n)
      verifyChildHeader(parent, child, t, local)
      parent = child
      t += 2000n
    }
  })

  it('throws the reference texts', async () => {
    const g = await genesisOf(local)
    const b1 = build(g, local, T0, 21_000n)
    const b2 = build(b1, local, T0 + 2000n)
    const bad = (patch: Partial<AvaHeader>, now = T0 + 2000n): void =>
      verifyChildHeader(b1, { ...b2, ...patch }, now, local)

    verifyChildHeader(b1, b2, T0 + 2000n, local)
    const early = build(b1, local, T0 + 1999n)
    assert.throws(() => verifyChildHeader(b1, early, T0 + 2000n, local), {
      message: 'minimum block delay not met: actual delay 1999ms < required 2000ms',
    })
    assert.throws(
      () => verifyChildHeader(b1, b2, T0 + 2000n - 10_001n, local),
      /^Error: block timestamp is too far in the future: \d+ > allowed \d+$/,
    )
    assert.throws(
      () => bad({ extra: encodeFeeState({ capacity: 1n, excess: 0n, targetExcess: 0n }) }),
      /^Error: incorrect fee state: expected \{Gas:\{Capacity:\d+ Excess:\d+\} TargetExcess:0\}, found \{Gas:\{Capacity:1 Excess:0\} TargetExcess:0\}$/,
    )
    assert.throws(
      () => bad({ gasUsed: 10_000_001n }),
      /^Error: invalid gas used relative to capacity: invalid gas used: have 10000001, capacity 10000000$/,
    )
    assert.throws(() => bad({ baseFee: 2n }), { message: 'expected base fee 1, found 2' })
    assert.throws(() => bad({ gasLimit: 100_000_000n }), {
      message: 'invalid gas limit: have 100000000, want 10000000',
    })
    assert.throws(() => bad({ blockGasCost: 1n }), { message: 'invalid block gas cost: have 1, want 0' })
    assert.throws(() => bad({ difficulty: 0n }), { message: 'invalid difficulty: 0' })
    assert.throws(() => bad({ nonce: Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 1) }), {
      message: 'expected nonce to be 0 but got 1: invalid nonce',
    })
    assert.throws(() => bad({ coinbase: new Uint8Array(20) }), {
      message:
        'invalid coinbase 0x0000000000000000000000000000000000000000 does not match required blackhole address 0x0100000000000000000000000000000000000000',
    })
    assert.throws(() => bad({ extra: new Uint8Array(23) }), {
      message: 'invalid header.Extra length: expected >= 24 but got 23',
    })
    assert.throws(() => bad({ minDelayExcess: 1n }), {
      message: `incorrect min delay excess: expected ${INITIAL_MIN_DELAY_EXCESS - 200n}, found 1`,
    })
    assert.throws(
      () => bad({ minDelayExcess: undefined }),
      /^Error: remote min delay excess should not be nil: 0x[0-9a-f]{64}$/,
    )
    assert.throws(() => bad({ timeMilliseconds: undefined }), {
      message: 'TimeMilliseconds is required after Granite activation',
    })
    assert.throws(() => bad({ timeMilliseconds: T0 - 1n, time: (T0 - 1n) / 1000n }), {
      message: `block timestamp is too old: ${T0 - 1n} < parent ${T0}`,
    })
    assert.throws(() => bad({ time: b2.time + 1n }), /TimeMilliseconds does not match header.Time/)
    assert.throws(() => bad({ blobGasUsed: 1n }), {
      message: 'blobs not enabled on avalanche networks: used 1 blob gas, expected 0',
    })
    assert.throws(() => bad({ parentBeaconRoot: new Uint8Array(32).fill(1) }), /invalid non-empty parentBeaconRoot/)
    assert.throws(() => bad({ number: 5n }), { message: 'invalid block number' })
    assert.throws(() => verifyChildHeader(g, b2, T0 + 2000n, local), { message: 'unknown ancestor' })
  })
})
