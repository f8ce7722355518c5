/** Tests for the Snowman block tree: transitive voting, acceptance, rejection, falter and preference. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  add,
  type BlockTree,
  createTree,
  ERR_BAD_HEIGHT,
  ERR_DUPLICATE_ADD,
  ERR_UNKNOWN_PARENT_BLOCK,
  isDecided,
  isProcessing,
  numProcessing,
  preference,
  recordPoll,
} from '../../../../actors/consensus/block-tree.js'

const params = { alphaPreference: 3, alphaConfidence: 4, beta: 3 }

/** Builds a tree from genesis G at height 0 and [id, parentId] pairs. */
function build(pairs: [string, string][]): BlockTree {
  let tree = createTree({ id: 'G', height: 0 })
  for (const [id, parentId] of pairs) {
    const height = (tree.blocks[parentId]?.height ?? 0) + 1
    const r = add(tree, { id, parentId, height })
    if (!r.ok) throw new Error(r.error)
    tree = r.tree
  }
  return tree
}

describe('block tree add', () => {
  it('tracks processing blocks and preference', () => {
    const tree = build([
      ['A', 'G'],
      ['B', 'G'],
      ['A1', 'A'],
      ['B1', 'B'],
    ])
    assert.equal(numProcessing(tree), 4)
    assert.equal(preference(tree), 'A1')
    assert.equal(isProcessing(tree, 'B1'), true)
    assert.equal(isProcessing(tree, 'G'), false)
    assert.equal(isProcessing(tree, 'X'), false)
    assert.equal(tree.blocks.G?.sb?.preference, 'A')
    assert.equal(isDecided(tree, 0), true)
    assert.equal(isDecided(tree, 1), false)
  })

  it('rejects duplicates, unknown parents and wrong heights', () => {
    const tree = build([['A', 'G']])
    assert.deepEqual(add(tree, { id: 'A', parentId: 'G', height: 1 }), { ok: false, error: ERR_DUPLICATE_ADD })
    assert.deepEqual(add(tree, { id: 'C', parentId: 'Z', height: 1 }), { ok: false, error: ERR_UNKNOWN_PARENT_BLOCK })
    assert.deepEqual(add(tree, { id: 'C', parentId: 'A', height: 5 }), { ok: false, error: ERR_BAD_HEIGHT })
    assert.equal(ERR_DUPLICATE_ADD, 'duplicate block add')
    assert.equal(ERR_UNKNOWN_PARENT_BLOCK, 'unknown parent block')
  })
})

describe('block tree recordPoll', () => {
  it('accepts a lone block after exactly beta polls of alphaC votes', () => {
    let tree = build([['A', 'G']])
    for (let i = 0; i < params.beta - 1; i++) {
      const r = recordPoll(tree, { A: 4 }, params)
      assert.deepEqual(r.accepted, [])
      tree = r.tree
    }
    assert.equal(tree.blocks.G?.sb?.confidence, params.beta - 1)
    const r = recordPoll(tree, { A: 4 }, params)
    assert.deepEqual(r.accepted, ['A'])
    assert.deepEqual(r.rejected, [])
    assert.deepEqual(r.tree.lastAccepted, { id: 'A', height: 1 })
    assert.equal(numProcessing(r.tree), 0)
    assert.equal(isDecided(r.tree, 1), true)
    assert.equal(preference(r.tree), 'A')
    assert.equal(r.tree.blocks.G, undefined)
  })

  it('counts votes for a child for its parent transitively and cascades acceptance', () => {
    let tree = build([
      ['A', 'G'],
      ['B', 'A'],
    ])
    const first = recordPoll(tree, { B: 4 }, params)
    assert.equal(first.tree.blocks.G?.sb?.confidence, 1)
    assert.equal(first.tree.blocks.A?.sb?.confidence, 1)
    tree = first.tree
    tree = recordPoll(tree, { B: 4 }, params).tree
    const r = recordPoll(tree, { B: 4 }, params)
    assert.deepEqual(r.accepted, ['A', 'B'])
    assert.deepEqual(r.tree.lastAccepted, { id: 'B', height: 2 })
    assert.equal(numProcessing(r.tree), 0)
  })

  it('sums votes split over several descendants', () => {
    const tree = build([
      ['A', 'G'],
      ['B', 'A'],
      ['C', 'A'],
    ])
    // A's subtree gets 4; neither B (2) nor C (2) reaches alphaP.
    const r = recordPoll(tree, { B: 2, C: 2 }, params)
    assert.equal(r.tree.blocks.G?.sb?.confidence, 1)
    assert.equal(r.tree.blocks.A?.sb?.confidence, 0)
    assert.equal(r.tree.blocks.B?.shouldFalter, true)
  })

  it('rejects a conflicting sibling and its descendants when the other child is accepted', () => {
    let tree = build([
      ['A', 'G'],
      ['B', 'G'],
      ['B1', 'B'],
      ['B2', 'B1'],
      ['A1', 'A'],
    ])
    let r = recordPoll(tree, { A: 4 }, params)
    for (let i = 1; i < params.beta; i++) {
      tree = r.tree
      r = recordPoll(tree, { A: 4 }, params)
    }
    assert.deepEqual(r.accepted, ['A'])
    assert.deepEqual(r.rejected, ['B', 'B1', 'B2'])
    for (const id of ['B', 'B1', 'B2']) assert.equal(isProcessing(r.tree, id), false)
    assert.equal(isProcessing(r.tree, 'A1'), true)
    assert.equal(numProcessing(r.tree), 1)
    assert.equal(preference(r.tree), 'A1')
  })

  it('a poll below alphaP changes nothing but falters; confidence is reset on the next poll', () => {
    let tree = build([['A', 'G']])
    tree = recordPoll(tree, { A: 4 }, params).tree
    tree = recordPoll(tree, { A: 4 }, params).tree
    assert.equal(tree.blocks.G?.sb?.confidence, 2)

    const low = recordPoll(tree, { A: 2 }, params)
    assert.deepEqual(low.accepted, [])
    assert.equal(low.tree.blocks.G?.sb?.confidence, 2)
    assert.equal(low.tree.blocks.G?.shouldFalter, true)
    assert.equal(preference(low.tree), 'A')
    assert.equal(tree.blocks.G?.shouldFalter, false, 'input not mutated')

    // Votes for unknown blocks are dropped, so even many of them falter.
    assert.equal(recordPoll(tree, { X: 5 }, params).tree.blocks.G?.shouldFalter, true)

    tree = low.tree
    let r = recordPoll(tree, { A: 4 }, params)
    assert.equal(r.tree.blocks.G?.sb?.confidence, 1)
    assert.equal(r.tree.blocks.G?.shouldFalter, false)
    r = recordPoll(r.tree, { A: 4 }, params)
    assert.deepEqual(r.accepted, [])
    r = recordPoll(r.tree, { A: 4 }, params)
    assert.deepEqual(r.accepted, ['A'])
  })

  it('falters children not on the voted path', () => {
    const p = { ...params, beta: 5 }
    let tree = build([
      ['A', 'G'],
      ['B', 'A'],
    ])
    tree = recordPoll(tree, { B: 4 }, p).tree
    tree = recordPoll(tree, { B: 4 }, p).tree
    assert.equal(tree.blocks.A?.sb?.confidence, 2)
    tree = recordPoll(tree, { A: 4 }, p).tree
    assert.equal(tree.blocks.A?.shouldFalter, true)
    assert.equal(tree.blocks.G?.sb?.confidence, 3)
    tree = recordPoll(tree, { B: 4 }, p).tree
    assert.equal(tree.blocks.A?.sb?.confidence, 1)
    assert.equal(tree.blocks.G?.sb?.confidence, 4)
  })

  it('switches preference to the branch reaching alphaP', () => {
    let tree = build([
      ['A', 'G'],
      ['A1', 'A'],
      ['B', 'G'],
      ['B1', 'B'],
      ['B2', 'B'],
    ])
    assert.equal(preference(tree), 'A1')
    let r = recordPoll(tree, { B2: 3 }, params)
    assert.equal(preference(r.tree), 'B2')
    assert.equal(r.tree.blocks.G?.sb?.preference, 'B')
    assert.equal(r.tree.blocks.G?.sb?.confidence, 0)
    tree = r.tree

    // A new child of the preferred tip becomes the preference.
    const added = add(tree, { id: 'B3', parentId: 'B2', height: 3 })
    assert.ok(added.ok)
    tree = added.tree
    assert.equal(preference(tree), 'B3')

    r = recordPoll(tree, { A: 4 }, params)
    assert.equal(preference(r.tree), 'A1')
    assert.equal(r.tree.blocks.G?.sb?.confidence, 1)
  })

  it('keeps a JSON-safe state', () => {
    let tree = build([
      ['A', 'G'],
      ['B', 'G'],
    ])
    tree = recordPoll(tree, { B: 4 }, params).tree
    const copy = JSON.parse(JSON.stringify(tree)) as BlockTree
    assert.deepEqual(copy, tree)
    const r = recordPoll(recordPoll(copy, { B: 4 }, params).tree, { B: 4 }, params)
    assert.deepEqual(r.accepted, ['B'])
    assert.deepEqual(r.rejected, ['A'])
  })
})
