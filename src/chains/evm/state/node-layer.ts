/**
 * Where the state tries keep their nodes: a layer of nodes written by one (not yet accepted) block, over the
 * layer of its parent block, over the accepted nodes in the database. Tries write only into the top layer; the
 * executor puts a layer's nodes in the same level batch as its block when the block is accepted, and drops the
 * layer when the block is rejected. Node keys are content hashes, so a lookup down the chain is always sound.
 */
import type { BatchDBOp, DB, EncodingOpts } from '@ethereumjs/util'
import { unprefixedHexToBytes } from '@ethereumjs/util'
import type { AbstractSublevel } from 'abstract-level'

// biome-ignore lint/suspicious/noExplicitAny: the parent database's type does not matter to a sublevel user
export type NodeStore = AbstractSublevel<any, any, Uint8Array, Uint8Array>

export class NodeLayer implements DB<string, Uint8Array> {
  /** nodes written into this layer, by unprefixed hex key */
  readonly writes = new Map<string, Uint8Array>()
  /** false once the layer is read-only (a view, or a block whose execution has finished) */
  writable: boolean

  constructor(
    readonly store: NodeStore,
    /** the parent block's layer while that block is not accepted yet */
    public parent: NodeLayer | undefined = undefined,
    writable = true,
  ) {
    this.writable = writable
  }

  async get(key: string, _opts?: EncodingOpts): Promise<Uint8Array | undefined> {
    for (let layer: NodeLayer | undefined = this; layer !== undefined; layer = layer.parent) {
      const hit = layer.writes.get(key)
      if (hit !== undefined) return hit
    }
    return this.store.get(unprefixedHexToBytes(key))
  }

  async put(key: string, value: Uint8Array, _opts?: EncodingOpts): Promise<void> {
    if (!this.writable) throw new Error('state view is read-only')
    this.writes.set(key, value)
  }

  /** Nodes are never deleted by a trie (node pruning is off); pruning works on accepted roots instead. */
  async del(_key: string, _opts?: EncodingOpts): Promise<void> {}

  async batch(ops: BatchDBOp<string, Uint8Array>[]): Promise<void> {
    for (const op of ops) if (op.type === 'put') await this.put(op.key, op.value)
  }

  /** Storage tries are shallow copies of the account trie: they must write into the same layer. */
  shallowCopy(): DB<string, Uint8Array> {
    return this
  }

  async open(): Promise<void> {}

  /** The level batch operations that persist this layer's nodes. */
  batchOps(): { type: 'put'; sublevel: NodeStore; key: Uint8Array; value: Uint8Array }[] {
    const ops: { type: 'put'; sublevel: NodeStore; key: Uint8Array; value: Uint8Array }[] = []
    for (const [key, value] of this.writes)
      ops.push({ type: 'put', sublevel: this.store, key: unprefixedHexToBytes(key), value })
    return ops
  }
}
