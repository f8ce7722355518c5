import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { callPool } from '../../../../../../src/chains/evm/api/call-pool.js'
import {
  CallResults,
  callResults,
  MAX_ENTRIES,
  MAX_KEY_CHARS,
  MAX_RESULT_BYTES,
} from '../../../../../../src/chains/evm/api/call-results.js'
import type { FirnError } from '../../../../../../src/runtime/errors.js'
import { deployRuntime, ethCall } from '../../../../../helpers/evm-calls.js'
import { openTestChain, type TestChain } from '../../../../../helpers/evm-chain.js'

const WATCHED = '77'.repeat(20)
/** returns BALANCE(WATCHED) and NUMBER: both change with every block that pays WATCHED */
const WATCH = `73${WATCHED}31600052436020526040${'6000'}f3`
/** reverts with one word, 42 */
const REVERTER = '602a60005260206000fd'

describe("eth_call's kept outcomes", () => {
  let chain: TestChain
  let watch: string
  let reverter: string
  let looper: string
  let call: (params: unknown[]) => Promise<unknown>
  const kept = () => callResults(chain.vm.core)

  before(async () => {
    chain = await openTestChain({ config: { apiMaxDurationMs: 300 } })
    call = ethCall(chain)
    watch = await deployRuntime(chain, WATCH)
    reverter = await deployRuntime(chain, REVERTER)
    looper = await deployRuntime(chain, '5b5f56') // JUMPDEST PUSH0 JUMP
  })
  after(() => chain.close())

  const words = (out: unknown) => [0, 1].map((i) => BigInt(`0x${(out as string).slice(2 + i * 64, 2 + (i + 1) * 64)}`))

  it('answers a repeated call at the same accepted block without running it again', async () => {
    kept().clear()
    const pool = callPool(chain.vm.core)
    const first = await call([{ to: watch }, 'latest'])
    const { hits, misses } = kept()
    pool.clear()
    assert.equal(await call([{ to: watch }, 'latest']), first)
    assert.equal(kept().hits, hits + 1)
    assert.equal(kept().misses, misses)
    assert.equal(pool.idle, 0, 'no VM was taken: the call did not run')
  })

  it('follows the head: a block that changes the state gives the new answer at latest, the old one at its number', async () => {
    const before = await call([{ to: watch }, 'latest'])
    const [balance, number] = words(before)
    await chain.mine([await chain.signTransfer({ to: `0x${WATCHED}`, value: 5n })])
    const now = await call([{ to: watch }, 'latest'])
    assert.deepEqual(words(now), [balance! + 5n, number! + 1n])
    assert.equal(await call([{ to: watch }, `0x${number!.toString(16)}`]), before)
  })

  it('keeps reverts with their data', async () => {
    const once = await call([{ to: reverter }, 'latest']).catch((e: FirnError) => e)
    const { hits } = kept()
    const again = await call([{ to: reverter }, 'latest']).catch((e: FirnError) => e)
    assert.equal(kept().hits, hits + 1)
    assert.ok(once instanceof Error && again instanceof Error)
    assert.equal(again.message, once.message)
    assert.equal((again as FirnError).data, `0x${'2a'.padStart(64, '0')}`)
  })

  it('never keeps timeouts, errors before execution, overrides or pending', async () => {
    kept().clear()
    const { hits } = kept()
    for (let i = 0; i < 2; i++)
      await assert.rejects(call([{ to: looper }, 'latest']), /execution aborted \(timeout = 300ms\)/)
    const poor = { from: `0x${'55'.repeat(20)}`, to: watch, value: '0x1' }
    for (let i = 0; i < 2; i++) await assert.rejects(call([poor, 'latest']), /insufficient funds/)
    await call([{ to: watch }, 'latest', { [`0x${WATCHED}`]: { balance: '0x1' } }])
    await call([{ to: watch }, 'latest', null, { number: '0x1' }])
    await call([{ to: watch }, 'pending'])
    assert.equal(kept().size, 0)
    assert.equal(kept().hits, hits)
  })

  it('keeps neither calls whose text is too long nor results too large', async () => {
    kept().clear()
    await call([{ to: watch, data: `0x${'00'.repeat(MAX_KEY_CHARS / 2)}` }, 'latest'])
    assert.equal(kept().size, 0)
    const cache = new CallResults()
    const key = cache.key(new Uint8Array(32), 1n, '{}')!
    cache.put(key, { usedGas: 1n, returnData: new Uint8Array(MAX_RESULT_BYTES + 1), reverted: false })
    assert.equal(cache.size, 0)
  })

  it('holds at most MAX_ENTRIES, dropping the oldest', () => {
    const cache = new CallResults()
    const res = { usedGas: 1n, returnData: new Uint8Array(1), reverted: false }
    for (let i = 0; i <= MAX_ENTRIES; i++) cache.put(cache.key(new Uint8Array(32), 1n, String(i))!, res)
    assert.equal(cache.size, MAX_ENTRIES)
    assert.equal(cache.get(cache.key(new Uint8Array(32), 1n, '0')!), undefined)
    assert.ok(cache.get(cache.key(new Uint8Array(32), 1n, String(MAX_ENTRIES))!) !== undefined)
  })
})
