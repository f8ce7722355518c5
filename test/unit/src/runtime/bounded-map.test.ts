import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { remember } from '../../../../src/runtime/bounded-map.js'

describe('remember', () => {
  it('keeps the newest max entries; remembering a key again makes it the newest', () => {
    const m = new Map<string, number>()
    for (const [k, v] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const)
      assert.equal(remember(m, k, v, 3), v)
    remember(m, 'a', 10, 3)
    remember(m, 'd', 4, 3)
    assert.deepEqual(
      [...m],
      [
        ['c', 3],
        ['a', 10],
        ['d', 4],
      ],
    )
  })
})
