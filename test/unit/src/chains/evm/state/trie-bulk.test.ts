import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex } from '@ethereumjs/util'
import { orderedTrieRoot } from '../../../../../../src/chains/evm/exec/trie-root.js'
import { BulkUnsupported, bulkPut } from '../../../../../../src/chains/evm/state/trie-bulk.js'
import { seededBytes } from '../../../../../helpers/seeded-bytes.js'

const random = seededBytes

/** every node reachable from the root, as the trie reads them */
async function nodes(trie: MerklePatriciaTrie): Promise<string[]> {
  const out: string[] = []
  await trie.walkTrie(trie.root(), async (ref, node, _key, walk) => {
    out.push(node === null ? 'null' : bytesToHex(node.serialize()))
    walk.allChildren(node!)
  })
  return out.sort()
}

/**
 * `updates` into a trie holding `initial`, once with ethereumjs' puts one by one and once in bulk: the same root,
 * the same nodes, every value readable.
 */
async function same(
  opts: { useKeyHashing: boolean },
  initial: [Uint8Array, Uint8Array][],
  updates: [Uint8Array, Uint8Array][],
) {
  const one = new MerklePatriciaTrie(opts)
  const bulk = new MerklePatriciaTrie(opts)
  for (const [k, v] of initial) {
    await one.put(k, v)
    await bulk.put(k, v)
  }
  for (const [k, v] of updates) await one.put(k, v)
  await bulkPut(
    bulk,
    updates.map(([k, v]) => [(bulk as unknown as { appliedKey(k: Uint8Array): Uint8Array }).appliedKey(k), v]),
  )
  assert.equal(bytesToHex(bulk.root()), bytesToHex(one.root()))
  assert.deepEqual(await nodes(bulk), await nodes(one))
  const last = new Map([...initial, ...updates].map(([k, v]) => [bytesToHex(k), { k, v }]))
  for (const { k, v } of last.values()) assert.deepEqual(await bulk.get(k), v, `value at ${bytesToHex(k)}`)
}

/** the root of RLP(i) -> values[i] by ethereumjs' puts one by one */
async function orderedByPuts(values: Uint8Array[]): Promise<string> {
  const trie = new MerklePatriciaTrie({ useKeyHashing: false })
  for (let i = 0; i < values.length; i++) await trie.put(RLP.encode(i), values[i]!)
  return bytesToHex(trie.root())
}

describe('bulk trie puts', () => {
  it("build a block's tx and receipt tries (keys RLP(index), of 1 to 3 bytes) with the root of the puts one by one", async () => {
    const r = random(21)
    for (const n of [0, 1, 2, 16, 127, 128, 129, 255, 256, 257, 1000]) {
      const values = Array.from({ length: n }, (_, i) => r(i % 7 === 0 ? 2 : 100))
      assert.equal(bytesToHex(await orderedTrieRoot(values)), await orderedByPuts(values), `${n} values`)
    }
  })

  it('give the root and nodes of the puts one by one: hashed keys, account-sized values', async () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const r = random(seed)
      const keys = Array.from({ length: 300 }, () => r(20))
      const initial = keys.slice(0, 200).map((k): [Uint8Array, Uint8Array] => [k, r(70)])
      // updates of old keys, new keys, and one key twice (the last value wins)
      const updates = [...keys.slice(150, 300), keys[10]!, keys[10]!].map((k): [Uint8Array, Uint8Array] => [k, r(70)])
      await same({ useKeyHashing: true }, initial, updates)
    }
  })

  it('into an empty trie, one key, and a key that exists with the same value', async () => {
    const r = random(9)
    const k = r(32)
    await same({ useKeyHashing: true }, [], [[k, r(40)]])
    await same(
      { useKeyHashing: true },
      [],
      Array.from({ length: 50 }, (): [Uint8Array, Uint8Array] => [r(32), r(3)]),
    )
    const v = r(40)
    await same({ useKeyHashing: true }, [[k, v]], [[k, v]])
  })

  it('with short keys and tiny values: embedded nodes, extensions split at every depth', async () => {
    for (const seed of [11, 12, 13, 14]) {
      const r = random(seed)
      // 2-byte keys (4 nibbles) from a small alphabet: shared prefixes, extensions, nodes under 32 bytes
      const key = () => Uint8Array.from([r(1)[0]! & 0x13, r(1)[0]! & 0x31])
      const initial = Array.from({ length: 12 }, (): [Uint8Array, Uint8Array] => [key(), r(1 + (r(1)[0]! % 3))])
      const updates = Array.from({ length: 12 }, (): [Uint8Array, Uint8Array] => [key(), r(1 + (r(1)[0]! % 3))])
      await same({ useKeyHashing: false }, initial, updates)
    }
  })

  it('refuses, writing nothing, what it does not handle: a delete, a key that is a prefix of another', async () => {
    const trie = new MerklePatriciaTrie({ useKeyHashing: false })
    await trie.put(Uint8Array.from([1, 2]), Uint8Array.from([7]))
    const root = bytesToHex(trie.root())
    await assert.rejects(bulkPut(trie, [[Uint8Array.from([1, 3]), new Uint8Array(0)]]), BulkUnsupported)
    await assert.rejects(
      bulkPut(trie, [
        [Uint8Array.from([1, 3]), Uint8Array.from([1])],
        [Uint8Array.from([1]), Uint8Array.from([1])],
      ]),
      BulkUnsupported,
    )
    await assert.rejects(bulkPut(trie, [[Uint8Array.from([1, 2, 4]), Uint8Array.from([1])]]), BulkUnsupported)
    assert.equal(bytesToHex(trie.root()), root)
  })
})
