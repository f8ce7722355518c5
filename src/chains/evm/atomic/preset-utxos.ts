/**
 * The atomic UTXOs the local presets (`--dev`, the local network) put in shared memory at genesis, as if the X chain
 * had exported them to the C chain: DEV_X_UTXO_COUNT outputs of DEV_X_UTXO_AMOUNT nAVAX each, in the network's AVAX
 * asset, owned by the well-known test key (EWOQ) alone, so that an import X -> C works on a fresh `make run`.
 *
 * Their transaction ID is SHA-256 of `firn/dev-x-utxos/v1` (a made-up export: no X chain runs here); the outputs
 * are indexes 0..count-1. Key = UTXO ID, value = UTXO bytes, traits = the owner address, as an export's elements.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import type { Element } from '../../shared-memory/shared-memory.js'
import { encodeUtxo } from './codec.js'
import { fromHex, toHex } from './hex.js'
import { utxoIdOf } from './ids.js'
import type { Hex } from './types.js'

export const DEV_X_UTXO_COUNT = 5
/** 1,000 AVAX each, in nAVAX */
export const DEV_X_UTXO_AMOUNT = 1_000n * 1_000_000_000n
export const DEV_X_UTXO_TX_ID: Hex = toHex(sha256(new TextEncoder().encode('firn/dev-x-utxos/v1')))

/** The shared-memory elements of the preset UTXOs owned by `owner` (a 20-byte short address). */
export function presetXUtxos(avaxAssetId: Hex, owner: Hex): Element[] {
  return Array.from({ length: DEV_X_UTXO_COUNT }, (_, outputIndex) => ({
    key: fromHex(utxoIdOf(DEV_X_UTXO_TX_ID, outputIndex), 32, 'UTXO ID'),
    value: encodeUtxo({
      txId: DEV_X_UTXO_TX_ID,
      outputIndex,
      assetId: avaxAssetId,
      output: { amount: DEV_X_UTXO_AMOUNT, locktime: 0n, threshold: 1, addresses: [owner] },
    }),
    traits: [fromHex(owner, 20, 'address')],
  }))
}
