/**
 * State views and proofs. A view is a state manager at a given root over its own throw-away node layer: reads
 * go to the database (and to unaccepted parents' layers), writes (eth_call, estimateGas) stay in memory and are
 * dropped with the view, so a view never touches the writer's state and never waits for it.
 */
import type { Common } from '@ethereumjs/common'
import type { Proof } from '@ethereumjs/statemanager'
import { getMerkleStateProof } from '@ethereumjs/statemanager'
import { type Address, bytesToHex, equalsBytes, KECCAK256_RLP } from '@ethereumjs/util'
import { trieReads } from './account-reads.js'
import { normaliseStorageKey } from './account-rlp.js'
import { NodeLayer, type NodeStore } from './node-layer.js'
import { AvaStateManager } from './state-manager.js'

/** The root must exist (in the store or in `parent`); otherwise the error `missing trie node <root>`. */
export async function openStateView(
  common: Common,
  store: NodeStore,
  root: Uint8Array,
  parent?: NodeLayer,
): Promise<AvaStateManager> {
  const layer = new NodeLayer(store, parent)
  if (!equalsBytes(root, KECCAK256_RLP) && (await layer.get(bytesToHex(root).slice(2))) === undefined) {
    throw new Error(`missing trie node ${bytesToHex(root)}`)
  }
  return new AvaStateManager(common, layer, root, trieReads(store))
}

/** EIP-1186 proof. Storage proofs follow coreth: the path of the raw key, the value of the normalised key. */
export async function getProof(sm: AvaStateManager, address: Address, slots: Uint8Array[]): Promise<Proof> {
  return getMerkleStateProof(sm, address, slots)
}

export { normaliseStorageKey }
