/**
 * The C-chain header and block RLP (reference/cchain.md 5.1): an Ethereum header with `extDataHash` between nonce and
 * baseFee, and an optional tail baseFee, extDataGasUsed, blockGasCost, blobGasUsed, excessBlobGas, parentBeaconRoot,
 * timeMilliseconds, minDelayExcess. Block RLP = [header, txs, uncles, version u32 (0), extData].
 */
import { RLP } from '@ethereumjs/rlp'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { fastKeccak256 } from './exec/native-crypto.js'

export interface AvaHeader {
  parentHash: Uint8Array
  uncleHash: Uint8Array
  coinbase: Uint8Array
  stateRoot: Uint8Array
  txRoot: Uint8Array
  receiptRoot: Uint8Array
  bloom: Uint8Array
  difficulty: bigint
  number: bigint
  gasLimit: bigint
  gasUsed: bigint
  time: bigint
  extra: Uint8Array
  mixDigest: Uint8Array
  nonce: Uint8Array
  extDataHash: Uint8Array
  baseFee?: bigint
  extDataGasUsed?: bigint
  blockGasCost?: bigint
  blobGasUsed?: bigint
  excessBlobGas?: bigint
  parentBeaconRoot?: Uint8Array
  timeMilliseconds?: bigint
  minDelayExcess?: bigint
}

/** keccak256(RLP of the empty byte string) = the empty trie root, 0x56e8…b421. */
export const EMPTY_EXT_DATA_HASH: Uint8Array = keccak_256(RLP.encode(new Uint8Array(0)))

/** The header's `extDataHash` of a block's extData: keccak256 of its RLP string. */
export const extDataHashOf = (extData: Uint8Array): Uint8Array => fastKeccak256(RLP.encode(extData))
/** The coinbase every C-chain block must carry ("BlackholeAddr"). */
export const BLACKHOLE: Uint8Array = Uint8Array.from([1, ...new Array<number>(19).fill(0)])

/** Limit on an encoded block or header handed to the decoders (a caller controls these bytes). */
export const MAX_BLOCK_RLP_BYTES = 64 * 1024 * 1024

const U64_MAX = (1n << 64n) - 1n
const U256_MAX = (1n << 256n) - 1n

type Kind = 'hash' | 'address' | 'bloom' | 'nonce' | 'bytes' | 'u64' | 'big'

const BASE_FIELDS: readonly [keyof AvaHeader, Kind][] = [
  ['parentHash', 'hash'],
  ['uncleHash', 'hash'],
  ['coinbase', 'address'],
  ['stateRoot', 'hash'],
  ['txRoot', 'hash'],
  ['receiptRoot', 'hash'],
  ['bloom', 'bloom'],
  ['difficulty', 'big'],
  ['number', 'big'],
  ['gasLimit', 'u64'],
  ['gasUsed', 'u64'],
  ['time', 'u64'],
  ['extra', 'bytes'],
  ['mixDigest', 'hash'],
  ['nonce', 'nonce'],
  ['extDataHash', 'hash'],
]

const OPTIONAL_FIELDS: readonly [keyof AvaHeader, Kind][] = [
  ['baseFee', 'big'],
  ['extDataGasUsed', 'big'],
  ['blockGasCost', 'big'],
  ['blobGasUsed', 'u64'],
  ['excessBlobGas', 'u64'],
  ['parentBeaconRoot', 'hash'],
  ['timeMilliseconds', 'u64'],
  ['minDelayExcess', 'u64'],
]

const FIXED_LENGTH: Partial<Record<Kind, number>> = { hash: 32, address: 20, bloom: 256, nonce: 8 }

function checkValue(name: string, kind: Kind, v: unknown): Uint8Array | bigint {
  if (kind === 'u64' || kind === 'big') {
    if (typeof v !== 'bigint' || v < 0n || v > (kind === 'u64' ? U64_MAX : U256_MAX)) {
      throw new Error(`invalid header field ${name}: out of range`)
    }
    return v
  }
  if (!(v instanceof Uint8Array)) throw new Error(`invalid header field ${name}: not bytes`)
  const want = FIXED_LENGTH[kind]
  if (want !== undefined && v.length !== want) {
    throw new Error(`invalid header field ${name}: length ${v.length}, want ${want}`)
  }
  return v
}

/** The header's RLP list items (bigints are left for RLP to encode minimally). */
function headerItems(h: AvaHeader): (Uint8Array | bigint)[] {
  const items = BASE_FIELDS.map(([name, kind]) => checkValue(name, kind, h[name]))
  // The optional tail stops at the first absent field (geth would write zero values for absent fields before a
  // present one; no valid C-chain header has such a gap).
  for (const [name, kind] of OPTIONAL_FIELDS) {
    const v = h[name]
    if (v === undefined) break
    items.push(checkValue(name, kind, v))
  }
  return items
}

export function encodeHeader(h: AvaHeader): Uint8Array {
  return RLP.encode(headerItems(h))
}

/** keccak256 of the header's RLP (native keccak: the builder hashes a header several times per block) */
export function headerHash(h: AvaHeader): Uint8Array {
  return fastKeccak256(encodeHeader(h))
}

function decodeValue(name: string, kind: Kind, item: Uint8Array | unknown[]): Uint8Array | bigint {
  if (!(item instanceof Uint8Array)) throw new Error(`invalid header field ${name}: expected bytes, got a list`)
  if (kind === 'u64' || kind === 'big') {
    if (item.length > 0 && item[0] === 0) throw new Error(`invalid header field ${name}: non-canonical integer`)
    if (item.length > (kind === 'u64' ? 8 : 32)) throw new Error(`invalid header field ${name}: integer too large`)
    let n = 0n
    for (const b of item) n = (n << 8n) | BigInt(b)
    return n
  }
  const want = FIXED_LENGTH[kind]
  if (want !== undefined && item.length !== want) {
    throw new Error(`invalid header field ${name}: length ${item.length}, want ${want}`)
  }
  return item
}

function headerFromItems(items: unknown): AvaHeader {
  if (!Array.isArray(items)) throw new Error('invalid header: expected an RLP list')
  const max = BASE_FIELDS.length + OPTIONAL_FIELDS.length
  if (items.length < BASE_FIELDS.length || items.length > max) {
    throw new Error(`invalid header: ${items.length} fields, want ${BASE_FIELDS.length} to ${max}`)
  }
  const out: Record<string, Uint8Array | bigint> = {}
  const all = [...BASE_FIELDS, ...OPTIONAL_FIELDS]
  items.forEach((item, i) => {
    const [name, kind] = all[i]!
    out[name] = decodeValue(name, kind, item as Uint8Array | unknown[])
  })
  return out as unknown as AvaHeader
}

function decodeRlp(rlp: Uint8Array, what: string): unknown {
  if (!(rlp instanceof Uint8Array)) throw new Error(`invalid ${what} RLP: not bytes`)
  if (rlp.length > MAX_BLOCK_RLP_BYTES) throw new Error(`invalid ${what} RLP: ${rlp.length} bytes is too large`)
  try {
    return RLP.decode(rlp)
  } catch (e) {
    throw new Error(`invalid ${what} RLP: ${(e as Error).message}`)
  }
}

export function decodeHeader(rlp: Uint8Array): AvaHeader {
  return headerFromItems(decodeRlp(rlp, 'header'))
}

/** The RLP list header for a payload of `len` bytes. */
function listPrefix(len: number): Uint8Array {
  if (len < 56) return Uint8Array.of(0xc0 + len)
  const lenBytes: number[] = []
  for (let n = len; n > 0; n = Math.floor(n / 256)) lenBytes.unshift(n % 256)
  return Uint8Array.of(0xf7 + lenBytes.length, ...lenBytes)
}

/** An RLP list of already-encoded items. */
function rawList(encoded: Uint8Array[]): Uint8Array {
  const len = encoded.reduce((s, e) => s + e.length, 0)
  const prefix = listPrefix(len)
  const out = new Uint8Array(prefix.length + len)
  out.set(prefix, 0)
  let at = prefix.length
  for (const e of encoded) {
    out.set(e, at)
    at += e.length
  }
  return out
}

/** A tx as it sits in the block body: a legacy tx (an RLP list) inline, a typed tx as a byte string (EIP-2718). */
function txItem(tx: Uint8Array): Uint8Array {
  if (tx.length === 0) throw new Error('invalid transaction: empty')
  return tx[0]! >= 0xc0 ? tx : RLP.encode(tx)
}

export function encodeBlock(h: AvaHeader, txs: Uint8Array[], extData: Uint8Array): Uint8Array {
  return rawList([encodeHeader(h), rawList(txs.map(txItem)), RLP.encode([]), RLP.encode(0), RLP.encode(extData)])
}

export function decodeBlock(rlp: Uint8Array): { header: AvaHeader; txs: Uint8Array[]; extData: Uint8Array } {
  const items = decodeRlp(rlp, 'block')
  if (!Array.isArray(items) || items.length !== 5) throw new Error('invalid block: expected a list of 5 items')
  const [rawHeader, rawTxs, uncles, version, extData] = items as unknown[]
  const header = headerFromItems(rawHeader)
  if (!Array.isArray(rawTxs)) throw new Error('invalid block: transactions are not a list')
  if (!Array.isArray(uncles) || uncles.length !== 0) throw new Error('invalid block: uncles must be an empty list')
  if (!(version instanceof Uint8Array) || version.length !== 0) throw new Error('invalid block: version must be 0')
  if (!(extData instanceof Uint8Array)) throw new Error('invalid block: extData is not bytes')
  const txs = rawTxs.map((tx: unknown) => {
    if (Array.isArray(tx)) return RLP.encode(tx as Uint8Array[])
    if (!(tx instanceof Uint8Array) || tx.length === 0 || tx[0]! >= 0x80) {
      throw new Error('invalid block: malformed transaction')
    }
    return tx
  })
  return { header, txs, extData }
}
