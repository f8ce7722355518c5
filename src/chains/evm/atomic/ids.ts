/**
 * The atomic IDs of the reference: tx ID = SHA-256(signed bytes); UTXO ID (input ID, the shared-memory key) =
 * SHA-256(u64 output index ‖ tx ID), printed as CB58; `txID:index` as `UTXOID.String()`; an export input's
 * conflict ID = u64 nonce ‖ u32 20 ‖ address.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { idToString } from '../../../identity/ids.js'
import { decodeTxSplit, encodeTx, encodeUnsignedTx } from './codec.js'
import { fromHex, toHex } from './hex.js'
import type { AtomicTx, EvmInput, Hex, TransferableInput, UnsignedAtomicTx } from './types.js'

/** SHA-256 of the signed bytes, as Hex. */
export const txIdOf = (signedBytes: Uint8Array): Hex => toHex(sha256(signedBytes))

/** A 32-byte Hex ID as CB58 (`ids.ID.String()`). */
export const idCb58 = (id: Hex): string => idToString(fromHex(id, 32, 'ID'))

/** `ids.ID.Prefix(outputIndex)`: SHA-256(u64 BE output index ‖ tx ID), as Hex. */
export function utxoIdOf(txId: Hex, outputIndex: number): Hex {
  const buf = new Uint8Array(40)
  new DataView(buf.buffer).setBigUint64(0, BigInt(outputIndex))
  buf.set(fromHex(txId, 32, 'txID'), 8)
  return toHex(sha256(buf))
}

/** `avax.UTXOID.String()`: `<cb58 txID>:<index>`. */
export const utxoIdText = (txId: Hex, outputIndex: number): string => `${idCb58(txId)}:${outputIndex}`

/** An export input's conflict ID (`InputUTXOs`): u64 nonce ‖ u32 20 ‖ address[20]. */
export function exportInputIdOf(input: EvmInput): Hex {
  const buf = new Uint8Array(32)
  const view = new DataView(buf.buffer)
  view.setBigUint64(0, input.nonce)
  view.setUint32(8, 20)
  buf.set(fromHex(input.address, 20, 'EVM input address'), 12)
  return toHex(buf)
}

/** The input IDs a tx consumes (`InputUTXOs`): UTXO IDs for an import, conflict IDs for an export. */
export function inputIdsOf(tx: UnsignedAtomicTx): Hex[] {
  return tx.type === 'import'
    ? tx.importedInputs.map((i: TransferableInput) => utxoIdOf(i.txId, i.outputIndex))
    : tx.inputs.map(exportInputIdOf)
}

/** A decoded signed tx with its bytes and ID. */
export interface DecodedTx {
  tx: AtomicTx
  /** SHA-256 of the signed bytes */
  id: Hex
  signedBytes: Uint8Array
  /** the prefix of the signed bytes that is signed */
  unsignedBytes: Uint8Array
}

/** Signed bytes -> the tx, its ID and its unsigned bytes (codec errors as decodeTx). */
export function decodeSignedTx(signedBytes: Uint8Array): DecodedTx {
  const { tx, unsignedLength } = decodeTxSplit(signedBytes)
  return { tx, id: txIdOf(signedBytes), signedBytes, unsignedBytes: signedBytes.slice(0, unsignedLength) }
}

/** A tx's bytes and ID from its value (a tx of a `blockExtraData` batch, a tx just signed). */
export function decodedOf(tx: AtomicTx): DecodedTx {
  const signedBytes = encodeTx(tx)
  return { tx, id: txIdOf(signedBytes), signedBytes, unsignedBytes: encodeUnsignedTx(tx.unsigned) }
}
