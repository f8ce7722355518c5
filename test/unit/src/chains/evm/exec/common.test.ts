import '../../../../../../src/runtime/polyfill.js'
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Common, Hardfork } from '@ethereumjs/common'
import { createEvmCommon } from '../../../../../../src/chains/evm/exec/common.js'

const ethereumjs = Common.prototype.isActivatedEIP

/** the EIPs active on `common` by Firn's lookup and by ethereumjs' own method */
const active = (common: Common) => {
  const eips = Array.from({ length: 8000 }, (_, i) => i)
  return [eips.filter((e) => common.isActivatedEIP(e)), eips.filter((e) => ethereumjs.call(common, e))]
}

describe('the C chain Common', () => {
  it('answers isActivatedEIP as ethereumjs does, also after the rules change and on copies', () => {
    const common = createEvmCommon(43112n)
    assert.notEqual(common.isActivatedEIP, ethereumjs, 'Firn’s lookup is installed')
    const [firn, own] = active(common)
    assert.ok(firn!.includes(1153) && firn!.includes(4844), 'Cancun EIPs')
    assert.deepEqual(firn, own)
    const copy = common.copy()
    copy.setHardfork(Hardfork.Prague)
    const [later, laterOwn] = active(copy)
    assert.ok(later!.includes(7702), 'Prague EIPs on the copy')
    assert.deepEqual(later, laterOwn)
    assert.deepEqual(active(common)[0], own, 'the original keeps its rules')
  })
})
