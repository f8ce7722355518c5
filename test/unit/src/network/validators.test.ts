import '../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { genesisValidators, LOCAL_GENESIS_VALIDATORS } from '../../../../src/network/validators.js'

describe('genesisValidators', () => {
  it("the preset's: the local network's five stakers, none elsewhere", () => {
    assert.deepEqual(
      genesisValidators(12345).map((v) => v.nodeId),
      [...LOCAL_GENESIS_VALIDATORS],
    )
    assert.deepEqual(genesisValidators(1337), [])
  })

  it("a genesis file's stakers replace them, weights as bigint", () => {
    const fromFile = [{ nodeId: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', weight: '9000000000000000004' }]
    assert.deepEqual(genesisValidators(1337, fromFile), [
      { nodeId: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', weight: 9_000_000_000_000_000_004n },
    ])
  })
})
