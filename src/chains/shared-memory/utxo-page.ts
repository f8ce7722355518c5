/**
 * One page of `avax.getUTXOs` over shared memory: the reference's avax.GetAtomicUTXOs (vms/components/avax) and
 * the limit rule of coreth's getUTXOs, with the UTXO bytes left undecoded (the codec decodes and re-encodes them).
 * The addresses are a set (given twice, scanned once); the start point is the zero address and the zero ID when
 * the call has no startIndex; the end point is the last address scanned and the last UTXO ID read, either one
 * replaced by zeros when it is missing or not of its length (as ids.ToShortID / ids.ToID failures are).
 */
import { FirnError } from '../../runtime/errors.js'
import { type ChainIdLike, hex } from './keys.js'
import type { ChainSharedMemory, SharedMemory } from './shared-memory.js'

/** coreth's maxUTXOsToFetch: a limit <= 0 or above it becomes it */
export const MAX_UTXOS_TO_FETCH = 1024

export function clampUtxoLimit(limit: number): number {
  return limit <= 0 || limit > MAX_UTXOS_TO_FETCH ? MAX_UTXOS_TO_FETCH : limit
}

export interface AtomicUtxoPage {
  /** the UTXO bytes, in page order */
  utxos: Uint8Array[]
  /** their keys in shared memory: the UTXO IDs */
  utxoIds: Uint8Array[]
  /** 20 bytes: `endIndex.address` */
  endAddress: Uint8Array
  /** 32 bytes: `endIndex.utxo` */
  endUtxoId: Uint8Array
}

/**
 * The UTXOs `source` exported to `me` owned by any of `addresses` (20 bytes each), from the start point
 * (inclusive), at most `limit` (pass it through `clampUtxoLimit` first, as the API does).
 */
export async function getAtomicUtxos(
  memory: SharedMemory,
  me: ChainIdLike,
  source: ChainIdLike,
  addresses: readonly Uint8Array[],
  startAddress: Uint8Array = new Uint8Array(20),
  startUtxoId: Uint8Array = new Uint8Array(32),
  limit: number = MAX_UTXOS_TO_FETCH,
): Promise<AtomicUtxoPage> {
  return getChainAtomicUtxos(memory.forChain(me), source, addresses, startAddress, startUtxoId, limit)
}

/** The same over one chain's view of shared memory (what a VM is given). */
export async function getChainAtomicUtxos(
  memory: Pick<ChainSharedMemory, 'indexed'>,
  source: ChainIdLike,
  addresses: readonly Uint8Array[],
  startAddress: Uint8Array = new Uint8Array(20),
  startUtxoId: Uint8Array = new Uint8Array(32),
  limit: number = MAX_UTXOS_TO_FETCH,
): Promise<AtomicUtxoPage> {
  const unique = new Map<string, Uint8Array>()
  for (const a of addresses) unique.set(hex(a), a)
  let page: Awaited<ReturnType<ChainSharedMemory['indexed']>>
  try {
    page = await memory.indexed(source, [...unique.values()], startAddress, startUtxoId, limit)
  } catch (e) {
    throw new FirnError(`error fetching atomic UTXOs: ${(e as Error).message}`)
  }
  return {
    utxos: page.values,
    utxoIds: page.keys,
    endAddress: page.lastTrait?.length === 20 ? page.lastTrait : new Uint8Array(20),
    endUtxoId: page.lastKey?.length === 32 ? page.lastKey : new Uint8Array(32),
  }
}
