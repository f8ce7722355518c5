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

  it('drops exactly the oldest, as a list in insertion order would, through deletes, re-inserts and clears', () => {
    let x = 7
    const rand = (n: number) => {
      x = (x * 1103515245 + 12345) % 2 ** 31
      return x % n
    }
    const map = new Map<number, number>()
    let model: number[] = []
    const max = 50
    for (let i = 0; i < 20_000; i++) {
      const op = rand(100)
      const key = rand(200)
      if (op < 80) {
        remember(map, key, i, max)
        model = model.filter((k) => k !== key)
        model.push(key)
        if (model.length > max) model = model.slice(model.length - max)
      } else if (op < 99) {
        map.delete(key)
        model = model.filter((k) => k !== key)
      } else {
        map.clear()
        model = []
      }
      assert.deepEqual([...map.keys()], model, `after op ${i}`)
    }
  })
})
