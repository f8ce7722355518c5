/**
 * The atomic transactions as plain values (JSON-safe but for the bigint amounts): byte strings are `0x` +
 * lower-case hex (IDs 32 bytes, addresses 20, signatures 65), so values compare and sort as the reference's bytes
 * do. Field order is the wire order (src/chains/evm/atomic/codec.ts); json.ts gives the API's view.
 */

/** `0x` + lower-case hex */
export type Hex = string

/** The reference's linear codec version and type IDs, as the C-chain atomic codec registers them. */
export const CODEC_VERSION = 0
export const TypeId = {
  importTx: 0,
  exportTx: 1,
  transferInput: 5,
  transferOutput: 7,
  credential: 9,
  input: 10,
  outputOwners: 11,
} as const

/** secp256k1fx.OutputOwners */
export interface OutputOwners {
  locktime: bigint
  threshold: number
  /** 20-byte short addresses */
  addresses: Hex[]
}

/** secp256k1fx.TransferOutput (type 7): an amount in nAVAX and its owners */
export interface TransferOutput extends OutputOwners {
  amount: bigint
}

/** secp256k1fx.TransferInput (type 5) */
export interface TransferInput {
  amount: bigint
  sigIndices: number[]
}

/** avax.TransferableInput: the UTXO it spends, its asset and the secp256k1fx input */
export interface TransferableInput {
  txId: Hex
  outputIndex: number
  assetId: Hex
  input: TransferInput
}

/** avax.TransferableOutput */
export interface TransferableOutput {
  assetId: Hex
  output: TransferOutput
}

/** EVMOutput: credits `amount` nAVAX (x 1e9 wei) to an EVM address */
export interface EvmOutput {
  address: Hex
  amount: bigint
  assetId: Hex
}

/** EVMInput: debits `amount` nAVAX from an EVM address at its nonce */
export interface EvmInput {
  address: Hex
  amount: bigint
  assetId: Hex
  nonce: bigint
}

/** UnsignedImportTx (type 0) */
export interface UnsignedImportTx {
  type: 'import'
  networkId: number
  blockchainId: Hex
  sourceChain: Hex
  importedInputs: TransferableInput[]
  outputs: EvmOutput[]
}

/** UnsignedExportTx (type 1) */
export interface UnsignedExportTx {
  type: 'export'
  networkId: number
  blockchainId: Hex
  destinationChain: Hex
  inputs: EvmInput[]
  exportedOutputs: TransferableOutput[]
}

export type UnsignedAtomicTx = UnsignedImportTx | UnsignedExportTx

/** secp256k1fx.Credential (type 9): 65-byte r ‖ s ‖ v signatures */
export interface Credential {
  signatures: Hex[]
}

/** atomic.Tx: the unsigned tx and one credential per input */
export interface AtomicTx {
  unsigned: UnsignedAtomicTx
  credentials: Credential[]
}

/** avax.UTXO with a TransferOutput: what an export puts in shared memory and getUTXOs returns */
export interface Utxo {
  txId: Hex
  outputIndex: number
  assetId: Hex
  output: TransferOutput
}
