import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { decodeMPTNode, MerklePatriciaTrie, type MPTNode } from '@ethereumjs/mpt'
import { bytesToHex } from '@ethereumjs/util'
import { keccak_256 as keccak256 } from '@noble/hashes/sha3.js'
import { NodeCache } from '../../../../../../src/chains/evm/state/node-layer.js'
import { type DecodedNodes, trieValue } from '../../../../../../src/chains/evm/state/trie-get.js'
import { seededBytes } from '../../../../../helpers/seeded-bytes.js'

const random = seededBytes

/** decoded nodes from the trie's own database, counting what was asked */
async function decodedFrom(trie: MerklePatriciaTrie): Promise<DecodedNodes & { asked: number }> {
  const db = (trie as unknown as { _db: { db: { _database: Map<string, Uint8Array> } } })._db.db._database
  const nodes = new Map<string, MPTNode>([...db].map(([k, v]) => [k, decodeMPTNode(v)]))
  const out = {
    asked: 0,
    decoded(key: string) {
      out.asked++
      return nodes.get(key)
    },
  }
  return out
}

/** every key (present or not) reads as ethereumjs' `get` reads it, with and without decoded nodes */
async function sameAsGet(trie: MerklePatriciaTrie, keys: Uint8Array[]) {
  const nodes = await decodedFrom(trie)
  const applied = (k: Uint8Array) => (trie as unknown as { appliedKey(k: Uint8Array): Uint8Array }).appliedKey(k)
  for (const k of keys) {
    const want = await trie.get(k)
    assert.deepEqual(await trieValue(trie, applied(k), undefined), want, `key ${bytesToHex(k)}`)
    assert.deepEqual(await trieValue(trie, applied(k), nodes), want, `key ${bytesToHex(k)} (decoded)`)
  }
  return nodes
}

describe('trieValue', () => {
  it("reads hashed keys as ethereumjs' get: present, absent, and after updates", async () => {
    const r = random(3)
    const trie = new MerklePatriciaTrie({ useKeyHashing: true })
    const keys = Array.from({ length: 400 }, () => r(20))
    for (const k of keys.slice(0, 300)) await trie.put(k, r(70))
    for (const k of keys.slice(0, 20)) await trie.put(k, r(3))
    const nodes = await sameAsGet(trie, keys)
    assert.ok(nodes.asked > 400, 'the decoded nodes were asked for')
  })

  it('reads short keys: embedded nodes, extensions, a key that is a prefix of another (a branch value)', async () => {
    for (const seed of [11, 12, 13, 14]) {
      const r = random(seed)
      const trie = new MerklePatriciaTrie({ useKeyHashing: false })
      const key = () => Uint8Array.from([r(1)[0]! & 0x13, r(1)[0]! & 0x31])
      const keys = Array.from({ length: 30 }, key)
      for (const k of keys.slice(0, 15)) await trie.put(k, r(1 + (r(1)[0]! % 3)))
      const prefix = Uint8Array.from([keys[0]![0]!])
      await trie.put(prefix, r(2))
      const longer = Uint8Array.from([...keys[1]!, 7])
      await trie.put(longer, r(40))
      await sameAsGet(trie, [
        ...keys,
        prefix,
        longer,
        Uint8Array.from([0xff]),
        new Uint8Array(0),
        Uint8Array.from([...keys[2]!, 0, 0]),
      ])
    }
  })

  it('an empty trie, and a root whose node is missing, read null; other errors are thrown', async () => {
    const empty = new MerklePatriciaTrie({ useKeyHashing: true })
    assert.equal(await trieValue(empty, keccak256(Uint8Array.from([1])), undefined), null)
    const gone = new MerklePatriciaTrie({ useKeyHashing: true, root: keccak256(Uint8Array.from([9])) })
    assert.equal(await gone.get(Uint8Array.from([1])), null, "ethereumjs' answer")
    assert.equal(await trieValue(gone, keccak256(Uint8Array.from([1])), undefined), null)
    const broken = {
      decoded: () => {
        throw new Error('disk on fire')
      },
    }
    const one = new MerklePatriciaTrie({ useKeyHashing: true })
    await one.put(Uint8Array.from([1]), Uint8Array.from([2]))
    await assert.rejects(trieValue(one, keccak256(Uint8Array.from([1])), broken), /disk on fire/)
  })
})

describe('NodeCache.decoded', () => {
  it('decodes a cached node once, counts it in the bytes, and forgets it with the node', () => {
    const trieNode = Uint8Array.from([0xc2, 0x20, 0x01]) // a leaf: empty key path (hex prefix 0x20), value 0x01
    const c = new NodeCache(10_000)
    assert.equal(c.decoded('aa'), undefined, 'not cached')
    c.set('aa', trieNode)
    const before = c.bytes
    const node = c.decoded('aa')
    assert.ok(node)
    assert.equal(c.decoded('aa'), node, 'decoded once')
    assert.ok(c.bytes > before, 'the decoded node is counted')
    c.retain(() => false)
    assert.equal(c.bytes, 0)
    assert.equal(c.decoded('aa'), undefined)
  })
})
