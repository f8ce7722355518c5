/**
 * Snowman block tree ("Topological"), pure and JSON-safe: the last accepted block plus all processing
 * blocks, an n-ary Snowflake per parent choosing its canonical child, transitive voting (votes for a
 * block count for its ancestors), lazy confidence resets (shouldFalter) and cascading acceptance.
 */
import type { SnowParams } from './params.js'
import {
  newSnowflake,
  recordPoll as recordSnowflakePoll,
  recordUnsuccessfulPoll,
  type SnowflakeState,
} from './snowflake.js'

export const ERR_DUPLICATE_ADD = 'duplicate block add'
export const ERR_UNKNOWN_PARENT_BLOCK = 'unknown parent block'
export const ERR_BAD_HEIGHT = 'block height does not follow its parent'

export interface BlockRef {
  id: string
  height: number
}

export interface NewBlock extends BlockRef {
  parentId: string
}

export interface TreeNode {
  id: string
  /** Null only for the block the tree was created with. */
  parentId: string | null
  height: number
  /** Children in order of addition. */
  children: string[]
  /** Chooses among the children; present once the node has a child. */
  sb: SnowflakeState<string> | null
  shouldFalter: boolean
}

export interface BlockTree {
  lastAccepted: BlockRef
  /** The last accepted block and every processing block. */
  blocks: Record<string, TreeNode>
  /** Tip of the preferred chain. */
  preference: string
}

export type AddResult = { ok: true; tree: BlockTree } | { ok: false; error: string }

export interface PollResult {
  tree: BlockTree
  /** Accepted block IDs, oldest first. */
  accepted: string[]
  /** Rejected block IDs: conflicting siblings of accepted blocks and all their descendants. */
  rejected: string[]
}

type PollParams = Pick<SnowParams, 'alphaPreference' | 'alphaConfidence' | 'beta'>

const has = (blocks: Record<string, TreeNode>, id: string): boolean => Object.hasOwn(blocks, id)

/** The node for an ID known to be in the tree. */
function at(blocks: Record<string, TreeNode>, id: string): TreeNode {
  const n = blocks[id]
  if (n === undefined) throw new Error(`block tree: missing node ${id}`)
  return n
}

export function createTree(lastAccepted: BlockRef): BlockTree {
  const root: TreeNode = {
    id: lastAccepted.id,
    parentId: null,
    height: lastAccepted.height,
    children: [],
    sb: null,
    shouldFalter: false,
  }
  return {
    lastAccepted: { id: lastAccepted.id, height: lastAccepted.height },
    blocks: { [root.id]: root },
    preference: root.id,
  }
}

export function add(tree: BlockTree, blk: NewBlock): AddResult {
  if (has(tree.blocks, blk.id)) return { ok: false, error: ERR_DUPLICATE_ADD }
  if (!has(tree.blocks, blk.parentId)) return { ok: false, error: ERR_UNKNOWN_PARENT_BLOCK }
  const parent = at(tree.blocks, blk.parentId)
  if (blk.height !== parent.height + 1) return { ok: false, error: ERR_BAD_HEIGHT }
  const node: TreeNode = {
    id: blk.id,
    parentId: blk.parentId,
    height: blk.height,
    children: [],
    sb: null,
    shouldFalter: false,
  }
  const newParent: TreeNode = {
    ...parent,
    children: [...parent.children, blk.id],
    sb: parent.sb ?? newSnowflake(blk.id),
  }
  return {
    ok: true,
    tree: {
      lastAccepted: tree.lastAccepted,
      blocks: { ...tree.blocks, [parent.id]: newParent, [node.id]: node },
      preference: tree.preference === parent.id ? blk.id : tree.preference,
    },
  }
}

export const preference = (tree: BlockTree): string => tree.preference

export const numProcessing = (tree: BlockTree): number => Object.keys(tree.blocks).length - 1

export const isProcessing = (tree: BlockTree, id: string): boolean =>
  id !== tree.lastAccepted.id && has(tree.blocks, id)

export const isDecided = (tree: BlockTree, height: number): boolean => height <= tree.lastAccepted.height

interface StackEntry {
  parentId: string
  votes: Map<string, number>
}

/** Kahn traversal leaves-first; returns the nodes whose children's votes total at least αp, root-most last. */
function pushVotes(
  blocks: Record<string, TreeNode>,
  lastAcceptedId: string,
  votes: Record<string, number>,
  alphaP: number,
): StackEntry[] {
  const kahn = new Map<string, { inDegree: number; votes: Map<string, number> }>()
  const leaves = new Set<string>()
  const get = (id: string) => {
    let k = kahn.get(id)
    if (!k) {
      k = { inDegree: 0, votes: new Map() }
      kahn.set(id, k)
    }
    return k
  }
  for (const [id, n] of Object.entries(votes)) {
    if (n <= 0 || id === lastAcceptedId || !has(blocks, id)) continue
    let cur = at(blocks, id).parentId as string
    const seen = kahn.has(cur)
    const k = get(cur)
    k.votes.set(id, (k.votes.get(id) ?? 0) + n)
    if (seen) continue
    leaves.add(cur)
    while (cur !== lastAcceptedId) {
      cur = at(blocks, cur).parentId as string
      const seenUp = kahn.has(cur)
      get(cur).inDegree++
      leaves.delete(cur)
      if (seenUp) break
    }
  }
  const queue = [...leaves]
  const stack: StackEntry[] = []
  while (queue.length > 0) {
    const id = queue.shift() as string
    const k = kahn.get(id) as { inDegree: number; votes: Map<string, number> }
    let total = 0
    for (const n of k.votes.values()) total += n
    if (total >= alphaP) stack.push({ parentId: id, votes: k.votes })
    if (id === lastAcceptedId) continue
    const up = at(blocks, id).parentId as string
    const pk = get(up)
    pk.votes.set(id, (pk.votes.get(id) ?? 0) + total)
    pk.inDegree--
    if (pk.inDegree === 0) queue.push(up)
  }
  return stack
}

/** The most voted child, the current preference winning ties. */
function topChoice(votes: Map<string, number>, current: string): [string, number] {
  let best = current
  let bestCount = votes.get(current) ?? 0
  for (const [id, n] of votes) {
    if (n > bestCount) {
      best = id
      bestCount = n
    }
  }
  return [best, bestCount]
}

/**
 * Applies one poll's votes (block ID → stake count). Votes for unknown, rejected or decided blocks are
 * dropped. Only the instance owned by the last accepted block accepts; acceptance cascades down the
 * vote stack within the same poll.
 */
export function recordPoll(tree: BlockTree, votes: Record<string, number>, params: PollParams): PollResult {
  const blocks: Record<string, TreeNode> = {}
  for (const [id, n] of Object.entries(tree.blocks)) blocks[id] = { ...n, children: [...n.children] }
  let lastAccepted = { ...tree.lastAccepted }
  const accepted: string[] = []
  const rejected: string[] = []

  let total = 0
  for (const n of Object.values(votes)) total += n
  const stack = total >= params.alphaPreference ? pushVotes(blocks, lastAccepted.id, votes, params.alphaPreference) : []

  if (stack.length === 0) {
    at(blocks, lastAccepted.id).shouldFalter = true
    return { tree: { lastAccepted, blocks, preference: tree.preference }, accepted, rejected }
  }

  const rejectTransitively = (ids: string[]): void => {
    const queue = [...ids]
    while (queue.length > 0) {
      const id = queue.shift() as string
      const node = blocks[id]
      if (!node) continue
      delete blocks[id]
      rejected.push(id)
      queue.push(...node.children)
    }
  }

  let onPref = true
  let newPref = lastAccepted.id
  while (stack.length > 0) {
    const v = stack.pop() as StackEntry
    if (!has(blocks, v.parentId)) break
    const node = at(blocks, v.parentId)
    const sb0 = node.sb as SnowflakeState<string>
    const falter = node.shouldFalter
    let sb = falter ? recordUnsuccessfulPoll(sb0) : sb0
    node.shouldFalter = false
    const [choice, count] = topChoice(v.votes, sb.preference)
    sb = recordSnowflakePoll(sb, count, choice, params)
    node.sb = sb

    if (sb.finalized && v.parentId === lastAccepted.id) {
      const child = at(blocks, sb.preference)
      accepted.push(child.id)
      lastAccepted = { id: child.id, height: child.height }
      rejectTransitively(node.children.filter((c) => c !== child.id))
      delete blocks[v.parentId]
    }

    if (onPref) newPref = sb.preference
    const next = stack.at(-1)?.parentId ?? null
    onPref = onPref && next === sb.preference
    for (const c of node.children) {
      if (has(blocks, c) && (falter || c !== next)) at(blocks, c).shouldFalter = true
    }
  }

  let pref = has(blocks, newPref) ? newPref : lastAccepted.id
  for (let sb = at(blocks, pref).sb; sb !== null; sb = at(blocks, pref).sb) pref = sb.preference
  return { tree: { lastAccepted, blocks, preference: pref }, accepted, rejected }
}
