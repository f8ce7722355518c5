/**
 * The C-chain atomic codec byte for byte (the reference's linear codec, version 0, max blob 256 KiB): signed and
 * unsigned import/export transactions, UTXOs and the AP5+ batch of `blockExtraData`. Decoding never trusts a count
 * (elements are read one by one from the bytes there are) and fails with the reference's texts
 * (`couldn't unpack codec version`, `unknown codec version`, `couldn't unmarshal interface: unknown type ID 3`,
 * `trailing buffer space: read 230 provided 231`, `byte array exceeds maximum length: N > 262144`, ...).
 */
import { codecError } from './errors.js'
import { fromHex, toHex } from './hex.js'
import { Reader, Writer } from './packer.js'
import {
  type AtomicTx,
  CODEC_VERSION,
  type Credential,
  type EvmInput,
  type EvmOutput,
  type Hex,
  type TransferableInput,
  type TransferableOutput,
  type TransferOutput,
  TypeId,
  type UnsignedAtomicTx,
  type Utxo,
} from './types.js'

/** The codec manager's maximum blob size (256 KiB). */
export const MAX_CODEC_SIZE = 256 * 1024

/** The registered types by ID, named as Go prints them in `does not implement interface` errors. */
const REGISTERED: Record<number, string> = {
  [TypeId.importTx]: '*atomic.UnsignedImportTx',
  [TypeId.exportTx]: '*atomic.UnsignedExportTx',
  [TypeId.transferInput]: '*secp256k1fx.TransferInput',
  [TypeId.transferOutput]: '*secp256k1fx.TransferOutput',
  [TypeId.credential]: '*secp256k1fx.Credential',
  [TypeId.input]: '*secp256k1fx.Input',
  [TypeId.outputOwners]: '*secp256k1fx.OutputOwners',
}

/** The registered types implementing verify.Verifiable, which Go would take as a credential. */
const VERIFIABLE: readonly number[] = [
  TypeId.transferInput,
  TypeId.transferOutput,
  TypeId.credential,
  TypeId.input,
  TypeId.outputOwners,
]

/** An interface field's type ID, checked as the linear codec checks it. */
function typeId(r: Reader, iface: string, accepted: readonly number[]): number {
  const id = r.u32('interface')
  const name = REGISTERED[id]
  if (name === undefined) throw codecError(`couldn't unmarshal interface: unknown type ID ${id}`)
  if (!accepted.includes(id))
    throw codecError(`couldn't unmarshal interface: ${name} does not implement interface ${iface}`)
  return id
}

// ---- reading

const id32 = (r: Reader): Hex => toHex(r.fixed(32))
const addr20 = (r: Reader): Hex => toHex(r.fixed(20))

function readTransferOutput(r: Reader): TransferOutput {
  const amount = r.u64()
  const locktime = r.u64()
  const threshold = r.u32()
  const addresses = r.slice(addr20)
  return { amount, locktime, threshold, addresses }
}

function readTransferableInput(r: Reader): TransferableInput {
  const txId = id32(r)
  const outputIndex = r.u32()
  const assetId = id32(r)
  typeId(r, 'avax.TransferableIn', [TypeId.transferInput])
  const amount = r.u64()
  const sigIndices = r.slice((x) => x.u32())
  return { txId, outputIndex, assetId, input: { amount, sigIndices } }
}

function readTransferableOutput(r: Reader): TransferableOutput {
  const assetId = id32(r)
  typeId(r, 'avax.TransferableOut', [TypeId.transferOutput])
  return { assetId, output: readTransferOutput(r) }
}

function readEvmOutput(r: Reader): EvmOutput {
  const address = addr20(r)
  const amount = r.u64()
  const assetId = id32(r)
  return { address, amount, assetId }
}

function readEvmInput(r: Reader): EvmInput {
  const address = addr20(r)
  const amount = r.u64()
  const assetId = id32(r)
  const nonce = r.u64()
  return { address, amount, assetId, nonce }
}

function readUnsigned(r: Reader): UnsignedAtomicTx {
  const type = typeId(r, 'atomic.UnsignedAtomicTx', [TypeId.importTx, TypeId.exportTx])
  const networkId = r.u32()
  const blockchainId = id32(r)
  const otherChain = id32(r)
  if (type === TypeId.importTx) {
    const importedInputs = r.slice(readTransferableInput)
    const outputs = r.slice(readEvmOutput)
    return { type: 'import', networkId, blockchainId, sourceChain: otherChain, importedInputs, outputs }
  }
  const inputs = r.slice(readEvmInput)
  const exportedOutputs = r.slice(readTransferableOutput)
  return { type: 'export', networkId, blockchainId, destinationChain: otherChain, inputs, exportedOutputs }
}

function readCredential(r: Reader): Credential {
  const id = typeId(r, 'verify.Verifiable', VERIFIABLE)
  // Go decodes any verify.Verifiable here and refuses it only in verification; Firn refuses it while decoding.
  if (id !== TypeId.credential) throw codecError(`credential type ${REGISTERED[id]} is not supported`)
  return { signatures: r.slice((x) => toHex(x.fixed(65))) }
}

function readTx(r: Reader): { tx: AtomicTx; unsignedEnd: number } {
  const unsigned = readUnsigned(r)
  const unsignedEnd = r.offset
  const credentials = r.slice(readCredential)
  return { tx: { unsigned, credentials }, unsignedEnd }
}

/** The manager's frame: size cap, version, the value, no trailing bytes. */
function unmarshal<T>(bytes: Uint8Array, read: (r: Reader) => T): T {
  if (bytes.length > MAX_CODEC_SIZE) {
    throw codecError(`byte array exceeds maximum length: ${bytes.length} > ${MAX_CODEC_SIZE}`)
  }
  const r = new Reader(bytes)
  if (bytes.length < 2) throw codecError("couldn't unpack codec version")
  if (r.u16() !== CODEC_VERSION) throw codecError('unknown codec version')
  const value = read(r)
  if (r.offset !== bytes.length) throw codecError(`trailing buffer space: read ${r.offset} provided ${bytes.length}`)
  return value
}

/** Signed tx bytes -> the tx and the length of its unsigned prefix (the signed bytes start with the unsigned). */
export function decodeTxSplit(bytes: Uint8Array): { tx: AtomicTx; unsignedLength: number } {
  const { tx, unsignedEnd } = unmarshal(bytes, readTx)
  return { tx, unsignedLength: unsignedEnd }
}

/** Signed tx bytes -> the tx. */
export const decodeTx = (bytes: Uint8Array): AtomicTx => decodeTxSplit(bytes).tx

/** Unsigned tx bytes (version + type ID + fields) -> the unsigned tx. */
export const decodeUnsignedTx = (bytes: Uint8Array): UnsignedAtomicTx => unmarshal(bytes, readUnsigned)

/** UTXO bytes (shared memory, getUTXOs) -> the UTXO; its output must be a TransferOutput (type 7). */
export function decodeUtxo(bytes: Uint8Array): Utxo {
  return unmarshal(bytes, (r) => {
    const txId = id32(r)
    const outputIndex = r.u32()
    const assetId = id32(r)
    typeId(r, 'verify.State', [TypeId.transferOutput])
    return { txId, outputIndex, assetId, output: readTransferOutput(r) }
  })
}

/**
 * AP5+ `blockExtraData` (version + u32 count + txs) -> the txs; empty bytes are no txs. Each tx's signed bytes
 * (and so its ID) are `encodeTx(tx)`, as the reference re-marshals each one.
 */
export function decodeTxBatch(bytes: Uint8Array): AtomicTx[] {
  if (bytes.length === 0) return []
  let txs: AtomicTx[]
  try {
    txs = unmarshal(bytes, (r) => r.slice((x) => readTx(x).tx))
  } catch (err) {
    throw codecError(`failed to unmarshal atomic tx (AP5) due to ${(err as Error).message}`)
  }
  if (txs.length === 0) throw codecError('cannot build a block with non-empty extra data and zero atomic transactions')
  return txs
}

// ---- writing

function u32(v: number, field: string): number {
  if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw codecError(`${field} must be a uint32`)
  return v
}

function u64(v: bigint, field: string): bigint {
  if (typeof v !== 'bigint' || v < 0n || v > 0xffffffffffffffffn) throw codecError(`${field} must be a uint64`)
  return v
}

function writeTransferOutput(w: Writer, out: TransferOutput): void {
  w.u64(u64(out.amount, 'output amount'))
  w.u64(u64(out.locktime, 'output locktime'))
  w.u32(u32(out.threshold, 'output threshold'))
  w.slice(out.addresses, (x, a) => x.fixed(fromHex(a, 20, 'output address')))
}

function writeUnsignedFields(w: Writer, tx: UnsignedAtomicTx): void {
  w.u32(tx.type === 'import' ? TypeId.importTx : TypeId.exportTx)
  w.u32(u32(tx.networkId, 'networkID'))
  w.fixed(fromHex(tx.blockchainId, 32, 'blockchainID'))
  if (tx.type === 'import') {
    w.fixed(fromHex(tx.sourceChain, 32, 'sourceChain'))
    w.slice(tx.importedInputs, (x, input) => {
      x.fixed(fromHex(input.txId, 32, 'input txID'))
      x.u32(u32(input.outputIndex, 'input outputIndex'))
      x.fixed(fromHex(input.assetId, 32, 'input assetID'))
      x.u32(TypeId.transferInput)
      x.u64(u64(input.input.amount, 'input amount'))
      x.slice(input.input.sigIndices, (y, i) => y.u32(u32(i, 'signature index')))
    })
    w.slice(tx.outputs, (x, out) => {
      x.fixed(fromHex(out.address, 20, 'EVM output address'))
      x.u64(u64(out.amount, 'EVM output amount'))
      x.fixed(fromHex(out.assetId, 32, 'EVM output assetID'))
    })
    return
  }
  w.fixed(fromHex(tx.destinationChain, 32, 'destinationChain'))
  w.slice(tx.inputs, (x, input) => {
    x.fixed(fromHex(input.address, 20, 'EVM input address'))
    x.u64(u64(input.amount, 'EVM input amount'))
    x.fixed(fromHex(input.assetId, 32, 'EVM input assetID'))
    x.u64(u64(input.nonce, 'EVM input nonce'))
  })
  w.slice(tx.exportedOutputs, (x, out) => {
    x.fixed(fromHex(out.assetId, 32, 'output assetID'))
    x.u32(TypeId.transferOutput)
    writeTransferOutput(x, out.output)
  })
}

function writeCredentials(w: Writer, credentials: readonly Credential[]): void {
  w.slice(credentials, (x, c) => {
    x.u32(TypeId.credential)
    x.slice(c.signatures, (y, s) => y.fixed(fromHex(s, 65, 'signature')))
  })
}

function finish(w: Writer): Uint8Array {
  // the reference's packer refuses to grow past the manager's maximum size
  if (w.length > MAX_CODEC_SIZE) throw codecError('size is larger than limit')
  return w.bytes()
}

/** The unsigned bytes: what is signed (SHA-256) and what the fee's byte gas counts. */
export function encodeUnsignedTx(tx: UnsignedAtomicTx): Uint8Array {
  const w = new Writer()
  w.u16(CODEC_VERSION)
  writeUnsignedFields(w, tx)
  return finish(w)
}

/** The signed bytes: the unsigned bytes followed by the credentials. */
export function encodeTx(tx: AtomicTx): Uint8Array {
  const w = new Writer()
  w.u16(CODEC_VERSION)
  writeUnsignedFields(w, tx.unsigned)
  writeCredentials(w, tx.credentials)
  return finish(w)
}

/** A TransferOutput's codec bytes without version or type ID (how exported outputs sort after their asset). */
export function encodeTransferOutputBody(out: TransferOutput): Uint8Array {
  const w = new Writer()
  writeTransferOutput(w, out)
  return w.bytes()
}

/** UTXO bytes: version, UTXO ID (txID, output index), asset, type 7, the TransferOutput. */
export function encodeUtxo(utxo: Utxo): Uint8Array {
  const w = new Writer()
  w.u16(CODEC_VERSION)
  w.fixed(fromHex(utxo.txId, 32, 'UTXO txID'))
  w.u32(u32(utxo.outputIndex, 'UTXO outputIndex'))
  w.fixed(fromHex(utxo.assetId, 32, 'UTXO assetID'))
  w.u32(TypeId.transferOutput)
  writeTransferOutput(w, utxo.output)
  return finish(w)
}

/** AP5+ `blockExtraData`: version, u32 count, then each tx (type ID, fields, credentials). */
export function encodeTxBatch(txs: readonly AtomicTx[]): Uint8Array {
  const w = new Writer()
  w.u16(CODEC_VERSION)
  w.slice(txs, (x, tx) => {
    writeUnsignedFields(x, tx.unsigned)
    writeCredentials(x, tx.credentials)
  })
  return finish(w)
}
