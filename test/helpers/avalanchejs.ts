/**
 * avalanchejs 5.2.0 with types: its .d.ts files import each other without file extensions, which TypeScript's
 * NodeNext resolution (this repo's) does not follow, so the package's exports type as missing. The runtime
 * module is fine; this file gives the parts Firn's tests use their types and re-exports them.
 */
import * as loaded from '@avalabs/avalanchejs'

export interface Id {
  toBytes(): Uint8Array
  toString(): string
}
export interface Int {
  value(): number
}
export interface BigIntPr {
  value(): bigint
}
export interface Address {
  toBytes(): Uint8Array
}
export interface OutputOwners {
  readonly locktime: BigIntPr
  readonly threshold: Int
  readonly addrs: Address[]
}
export interface TransferOutput {
  readonly amt: BigIntPr
  readonly outputOwners: OutputOwners
}
export interface UtxoId {
  readonly txID: Id
  readonly outputIdx: Int
  ID(): string
}
export interface Codec {
  readonly _codec?: never
}
export interface Utxo {
  readonly utxoId: UtxoId
  readonly assetId: Id
  readonly output: unknown
  toBytes(codec: Codec): Uint8Array
  /** the UTXO ID (input ID) as CB58 */
  ID(): string
}
export interface Credential {
  getSignatures(): string[]
}
export interface SignedTx {
  readonly unsignedTx: unknown
  getCredentials(): Credential[]
  toBytes(): Uint8Array
}
export interface TransferableInput {
  readonly utxoID: UtxoId
  readonly assetId: Id
  amount(): bigint
  sigIndicies(): number[]
}
export interface TransferableOutput {
  readonly assetId: Id
  readonly output: unknown
}
export interface EvmOutput {
  readonly address: Address
  readonly amount: BigIntPr
  readonly assetId: Id
}
export interface EvmInput extends EvmOutput {
  readonly nonce: BigIntPr
}
export interface ImportTx {
  readonly networkId: Int
  readonly blockchainId: Id
  readonly sourceChain: Id
  readonly importedInputs: TransferableInput[]
  readonly Outs: EvmOutput[]
}
export interface ExportTx {
  readonly networkId: Int
  readonly blockchainId: Id
  readonly destinationChain: Id
  readonly ins: EvmInput[]
  readonly exportedOutputs: TransferableOutput[]
}
export interface UnsignedTx {
  /** the unsigned bytes (codec version first): what the credentials sign and the gas counts */
  toBytes(): Uint8Array
  /** the ImportTx or ExportTx */
  getTx(): unknown
  getSignedTx(): SignedTx
}
/** avalanchejs's Context (the fields its EVM builders read) */
export interface Context {
  networkID: number
  hrp: string
  xBlockchainID: string
  pBlockchainID: string
  cBlockchainID: string
  avaxAssetID: string
  baseTxFee: bigint
  createAssetTxFee: bigint
  /** the P chain's dynamic fee config (getContextFromURI reads it with platform.getFeeConfig) */
  platformFeeConfig?: {
    maxCapacity: bigint
    maxPerSecond: bigint
    targetPerSecond: bigint
    minPrice: bigint
    excessConversionConstant: bigint
  }
}
export interface Manager {
  getDefaultCodec(): Codec
  unpack(bytes: Uint8Array, type: unknown): unknown
}

type Ctor<A extends unknown[], T> = new (...args: A) => T

/** `evm.EVMApi`: the C chain's `/ext/bc/C/avax` calls (its paths are C's) and `eth_baseFee` at /ext/bc/C/rpc */
export interface EVMApi {
  getUTXOs(input: {
    addresses: string[]
    sourceChain: string
    limit?: number
    startIndex?: { address: string; utxo: string }
  }): Promise<{ utxos: Utxo[]; numFetched: number | string; endIndex: { address: string; utxo: string } }>
  issueSignedTx(tx: SignedTx): Promise<{ txID: string }>
  getAtomicTxStatus(txID: string): Promise<{ status: string; blockHeight?: string }>
  /** wei */
  getBaseFee(): Promise<bigint>
}

export interface Avalanchejs {
  Context: { getContextFromURI(baseURL?: string, assetDescription?: string): Promise<Context> }
  Id: { fromHex(hex: string): Id; fromString(cb58: string): Id }
  Int: Ctor<[number], Int>
  BigIntPr: Ctor<[bigint], BigIntPr>
  Address: Ctor<[Uint8Array], Address>
  OutputOwners: Ctor<[BigIntPr, Int, Address[]], OutputOwners>
  TransferOutput: Ctor<[BigIntPr, OutputOwners], TransferOutput>
  Utxo: Ctor<[UtxoId, Id, TransferOutput], Utxo>
  avaxSerial: { UTXOID: Ctor<[Id, Int], UtxoId>; SignedTx: unknown }
  evmSerial: { ImportTx: Ctor<never[], ImportTx>; ExportTx: Ctor<never[], ExportTx> }
  evm: {
    EVMApi: Ctor<[baseURL?: string], EVMApi>
    newImportTxFromBaseFee(
      context: Context,
      toAddress: Uint8Array,
      fromAddresses: Uint8Array[],
      utxos: Utxo[],
      sourceChain: string,
      baseFee: bigint,
    ): UnsignedTx
    newExportTxFromBaseFee(
      context: Context,
      baseFee: bigint,
      amount: bigint,
      destinationChain: string,
      fromAddress: Uint8Array,
      toAddresses: Uint8Array[],
      nonce: bigint,
    ): UnsignedTx
  }
  secp256k1: {
    /** the compressed public key */
    getPublicKey(privateKey: Uint8Array): Uint8Array
    /** the 20-byte short address of a compressed public key */
    publicKeyBytesToAddress(publicKey: Uint8Array): Uint8Array
    publicKeyToEthAddress(publicKey: Uint8Array): Uint8Array
  }
  addTxSignatures(args: { unsignedTx: UnsignedTx; privateKeys: Uint8Array[] }): Promise<void>
  utils: {
    getManagerForVM(vm: 'EVM'): Manager
    format(chainAlias: string, hrp: string, addr: Uint8Array): string
    parse(address: string): [string, string, Uint8Array]
    hexToBuffer(hex: string): Uint8Array
    bufferToHex(bytes: Uint8Array): string
    /** the bytes and the last 4 bytes of their SHA-256 */
    addChecksum(bytes: Uint8Array): Uint8Array
  }
}

export const ajs = loaded as unknown as Avalanchejs

/** avalanchejs's `Context.getContextFromURI(url)`: the info, X and P calls a wallet makes first */
export const getContextFromURI = (url: string): Promise<Context> => ajs.Context.getContextFromURI(url)
