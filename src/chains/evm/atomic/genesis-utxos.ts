/**
 * The shared-memory elements of the genesis file's `atomicUtxos` (src/chains/genesis/atomic-utxos.ts), grouped by
 * chain pair. Entry `i` (its index in the list) makes `count` outputs of one made-up export whose tx ID is
 *
 *   SHA-256( UTF-8("firn/genesis-atomic-utxos/v1") ‖ u32 big-endian i )
 *
 * at output indexes 0..count-1 (so the UTXO IDs are those of avax's UTXOID: SHA-256(u64 index ‖ tx ID)), each
 * `amount` nAVAX of the network's AVAX asset, `locktime`, threshold 1, the entry's address alone. Key = UTXO ID,
 * value = UTXO bytes, traits = the owner address, as an export's elements (preset-utxos.ts does the same).
 */
import { sha256 } from '@noble/hashes/sha2.js'
import type { GenesisAtomicUtxos } from '../../genesis/atomic-utxos.js'
import type { Element } from '../../shared-memory/shared-memory.js'
import { encodeUtxo } from './codec.js'
import { fromHex, toHex } from './hex.js'
import { utxoIdOf } from './ids.js'
import type { Hex } from './types.js'

export const GENESIS_UTXO_TX_DOMAIN = 'firn/genesis-atomic-utxos/v1'

/** The made-up tx ID of entry `index`. */
export function genesisUtxoTxId(index: number): Hex {
  const domain = new TextEncoder().encode(GENESIS_UTXO_TX_DOMAIN)
  const bytes = new Uint8Array(domain.length + 4)
  bytes.set(domain)
  new DataView(bytes.buffer).setUint32(domain.length, index)
  return toHex(sha256(bytes))
}

export interface GenesisUtxoGroup {
  /** CB58 */
  sourceChain: string
  /** CB58 */
  destinationChain: string
  elements: Element[]
}

/** The elements of every entry, one group per (source, destination) pair in order of first appearance. */
export function genesisUtxoElements(entries: readonly GenesisAtomicUtxos[], avaxAssetId: Hex): GenesisUtxoGroup[] {
  const groups = new Map<string, GenesisUtxoGroup>()
  entries.forEach((entry, index) => {
    const pair = `${entry.sourceChain}>${entry.destinationChain}`
    let group = groups.get(pair)
    if (group === undefined) {
      group = { sourceChain: entry.sourceChain, destinationChain: entry.destinationChain, elements: [] }
      groups.set(pair, group)
    }
    const txId = genesisUtxoTxId(index)
    const owner = fromHex(entry.address, 20, 'address')
    const output = {
      amount: BigInt(entry.amount),
      locktime: BigInt(entry.locktime),
      threshold: 1,
      addresses: [entry.address.toLowerCase()],
    }
    for (let outputIndex = 0; outputIndex < entry.count; outputIndex++) {
      group.elements.push({
        key: fromHex(utxoIdOf(txId, outputIndex), 32, 'UTXO ID'),
        value: encodeUtxo({ txId, outputIndex, assetId: avaxAssetId, output }),
        traits: [owner],
      })
    }
  })
  return [...groups.values()]
}
