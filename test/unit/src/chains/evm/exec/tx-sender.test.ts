import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createTxFromRLP } from '@ethereumjs/tx'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'
import { fastEcrecover } from '../../../../../../src/chains/evm/exec/native-crypto.js'
import { countCalls } from '../../../../../helpers/count-calls.js'
import { addressOf, CHAIN_ID, transfer } from './fixtures.js'

describe('tx sender', () => {
  it('is recovered once per frozen tx, afresh for an unfrozen one, and callers get their own copy', () => {
    let recoveries = 0
    const common = createEvmCommon(CHAIN_ID, {
      ecrecover: (...args) => {
        recoveries++
        return fastEcrecover(...args)
      },
    })
    const raw = transfer(common, 2, 0n, addressOf(5).bytes).serialize()
    const frozen = createTxFromRLP(raw, { common })
    recoveries = 0
    const a = frozen.getSenderAddress()
    const b = frozen.getSenderAddress()
    assert.equal(recoveries, 1)
    assert.equal(a.toString(), addressOf(2).toString())
    a.bytes.fill(0)
    assert.equal(b.toString(), addressOf(2).toString())
    assert.equal(frozen.getSenderAddress().toString(), addressOf(2).toString(), 'a changed copy changes nothing')
    const open = createTxFromRLP(raw, { common, freeze: false })
    open.getSenderAddress()
    open.getSenderAddress()
    assert.equal(recoveries, 3)
  })
  it('encodes a frozen tx once, an unfrozen one afresh, and callers get their own copy', () => {
    const common = createEvmCommon(CHAIN_ID)
    const raw = transfer(common, 2, 0n, addressOf(5).bytes).serialize()
    const frozen = createTxFromRLP(raw, { common })
    // ethereumjs builds the field list (raw()) for every encoding it makes
    const encoded = countCalls(Object.getPrototypeOf(frozen), 'raw')
    try {
      for (let i = 0; i < 3; i++) frozen.serialize()
      assert.equal(encoded.count, 1)
    } finally {
      encoded.restore()
    }
    const a = frozen.serialize()
    assert.deepEqual(a, raw)
    a.fill(0)
    assert.deepEqual(frozen.serialize(), raw, 'a changed copy changes nothing')
    assert.notEqual(frozen.serialize(), frozen.serialize())
    const open = createTxFromRLP(raw, { common, freeze: false }) as unknown as {
      serialize(): Uint8Array
      nonce: bigint
    }
    assert.deepEqual(open.serialize(), raw)
    open.nonce = 7n
    assert.notDeepEqual(open.serialize(), raw, 'an unfrozen tx is encoded as it is now')
  })
})
