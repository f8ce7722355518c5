/** Shared memory between chains and its UTXO index (see shared-memory.ts). */
export { type ChainIdLike, sharedId } from './keys.js'
export { seedOnce } from './seed.js'
export {
  type BatchTarget,
  type ChainedBatchLike,
  type ChainSharedMemory,
  type Element,
  type IndexedResult,
  type Requests,
  type RequestsByPeer,
  SharedMemory,
  type SharedMemoryOp,
} from './shared-memory.js'
export { type AtomicUtxoPage, clampUtxoLimit, getAtomicUtxos, MAX_UTXOS_TO_FETCH } from './utxo-page.js'
