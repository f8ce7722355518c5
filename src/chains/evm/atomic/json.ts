/**
 * The API's JSON view of atomic values, in the reference's field names: IDs as CB58, EVM addresses as `0x` hex,
 * owner addresses as CB58 short IDs or as the caller formats them (`X-local1...`), signatures as `0x` hex, and
 * 64-bit numbers as decimal strings (the gorilla APIs' integers). Plain JSON, no bigint.
 */
import { shortIdToString } from '../../../identity/ids.js'
import { fromHex } from './hex.js'
import { idCb58 } from './ids.js'
import type { AtomicTx, Hex, OutputOwners, TransferOutput, UnsignedAtomicTx, Utxo } from './types.js'

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** How owner addresses are written; default: CB58 short IDs (the reference without a chain context). */
export type OwnerFormat = (shortAddr: Hex) => string

const cb58Short: OwnerFormat = (a) => shortIdToString(fromHex(a, 20, 'address'))

function ownersJson(o: OutputOwners, fmt: OwnerFormat): { [key: string]: Json } {
  return { addresses: o.addresses.map(fmt), locktime: o.locktime.toString(), threshold: o.threshold }
}

const transferOutputJson = (o: TransferOutput, fmt: OwnerFormat): Json => ({
  ...ownersJson(o, fmt),
  amount: o.amount.toString(),
})

export function unsignedTxJson(tx: UnsignedAtomicTx, fmt: OwnerFormat = cb58Short): Json {
  const head = { networkID: tx.networkId, blockchainID: idCb58(tx.blockchainId) }
  if (tx.type === 'import') {
    return {
      ...head,
      sourceChain: idCb58(tx.sourceChain),
      importedInputs: tx.importedInputs.map((i) => ({
        txID: idCb58(i.txId),
        outputIndex: i.outputIndex,
        assetID: idCb58(i.assetId),
        input: { amount: i.input.amount.toString(), signatureIndices: [...i.input.sigIndices] },
      })),
      outputs: tx.outputs.map((o) => ({ address: o.address, amount: o.amount.toString(), assetID: idCb58(o.assetId) })),
    }
  }
  return {
    ...head,
    destinationChain: idCb58(tx.destinationChain),
    inputs: tx.inputs.map((i) => ({
      address: i.address,
      amount: i.amount.toString(),
      assetID: idCb58(i.assetId),
      nonce: i.nonce.toString(),
    })),
    exportedOutputs: tx.exportedOutputs.map((o) => ({
      assetID: idCb58(o.assetId),
      output: transferOutputJson(o.output, fmt),
    })),
  }
}

/** A signed tx: `{unsignedTx, credentials, id?}` (`id` when the caller passes the tx ID). */
export function txJson(tx: AtomicTx, id?: Hex, fmt: OwnerFormat = cb58Short): Json {
  const out: { [key: string]: Json } = {
    unsignedTx: unsignedTxJson(tx.unsigned, fmt),
    credentials: tx.credentials.map((c) => ({ signatures: [...c.signatures] })),
  }
  if (id !== undefined) out.id = idCb58(id)
  return out
}

export function utxoJson(utxo: Utxo, fmt: OwnerFormat = cb58Short): Json {
  return {
    txID: idCb58(utxo.txId),
    outputIndex: utxo.outputIndex,
    assetID: idCb58(utxo.assetId),
    output: transferOutputJson(utxo.output, fmt),
  }
}
