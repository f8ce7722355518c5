/**
 * Decoding the C chain's JSON-RPC arguments the way geth's types decode them (common/hexutil, common.Address,
 * rpc.BlockNumber, rpc.BlockNumberOrHash, ethapi.TransactionArgs), with Go's error texts, and the hex encoders
 * every result uses. A positional argument error reads `invalid argument <i>: json: cannot unmarshal <why> into
 * Go value of type <T>`; a field of an object argument `... into Go struct field <S>.<f> of type <T>`.
 */
import { goJsonKind, invalidArgument } from '../../../rpc/eth-args.js'
import { prefixedHex } from '../../../runtime/hex.js'

export const HexError = {
  empty: 'empty hex string',
  syntax: 'invalid hex string',
  missingPrefix: 'hex string without 0x prefix',
  oddLength: 'hex string of odd length',
  emptyNumber: 'hex string "0x"',
  leadingZero: 'hex number with leading zero digits',
  uint64Range: 'hex number > 64 bits',
  big256Range: 'hex number > 256 bits',
} as const

/** A decoding failure before geth's `invalid argument i:` prefix is added. */
export class ArgError extends Error {}

/** Where a value sits: a positional argument (`type`) or a field of a struct argument. */
export interface Place {
  type: string
  struct?: string
  field?: string
}

const typeError = (why: string, at: Place): ArgError =>
  new ArgError(
    at.struct === undefined
      ? `json: cannot unmarshal ${why} into Go value of type ${at.type}`
      : `json: cannot unmarshal ${why} into Go struct field ${at.struct}.${at.field} of type ${at.type}`,
  )

const HEX_DIGITS = /^[0-9a-fA-F]*$/

/** Encoders: hex quantity (no leading zeros) and hex bytes. */
export const qty = (n: bigint | number): string => `0x${n.toString(16)}`
export const hex = prefixedHex

/** hexutil's checkNumberText on a JSON string's text; empty means zero (as Big/Uint64 UnmarshalText). */
function numberText(s: string, bits: 64 | 256): bigint | string {
  if (s.length === 0) return 0n
  if (!(s.startsWith('0x') || s.startsWith('0X'))) return HexError.missingPrefix
  const digits = s.slice(2)
  if (digits.length === 0) return HexError.emptyNumber
  if (digits.length > 1 && digits[0] === '0') return HexError.leadingZero
  if (digits.length > bits / 4) return bits === 64 ? HexError.uint64Range : HexError.big256Range
  if (!HEX_DIGITS.test(digits)) return HexError.syntax
  return BigInt(`0x${digits}`)
}

function quantityAt(v: unknown, at: Place, bits: 64 | 256): bigint {
  if (typeof v !== 'string') throw typeError('non-string', at)
  const r = numberText(v, bits)
  if (typeof r === 'string') throw typeError(r, at)
  return r
}

function bytesAt(v: unknown, at: Place, size?: number): Uint8Array {
  if (typeof v !== 'string') throw typeError('non-string', at)
  let digits = v
  if (v.startsWith('0x') || v.startsWith('0X')) digits = v.slice(2)
  else if (v.length > 0) throw typeError(HexError.missingPrefix, at)
  if (digits.length % 2 === 1) throw typeError(HexError.oddLength, at)
  if (size !== undefined && digits.length !== size * 2)
    throw typeError(`hex string has length ${digits.length}, want ${size * 2} for ${at.type}`, at)
  if (!HEX_DIGITS.test(digits)) throw typeError(HexError.syntax, at)
  return Uint8Array.from(Buffer.from(digits, 'hex'))
}

/** Wrap an ArgError as geth's `invalid argument i: ...` (-32602); other errors pass through. */
export function atArgument<T>(index: number, decode: () => T): T {
  try {
    return decode()
  } catch (err) {
    if (err instanceof ArgError) throw invalidArgument(index, err.message)
    throw err
  }
}

export const parseBig = (v: unknown, i: number): bigint =>
  atArgument(i, () => quantityAt(v, { type: '*hexutil.Big' }, 256))
export const parseUint64 = (v: unknown, i: number): bigint =>
  atArgument(i, () => quantityAt(v, { type: 'hexutil.Uint64' }, 64))
/** hexutil.Uint (indexes): as Uint64, with its own type name in errors. */
export const parseUint = (v: unknown, i: number): bigint =>
  atArgument(i, () => quantityAt(v, { type: 'hexutil.Uint' }, 64))
export const parseBytes = (v: unknown, i: number): Uint8Array =>
  atArgument(i, () => bytesAt(v, { type: 'hexutil.Bytes' }))
export const parseAddress = (v: unknown, i: number): Uint8Array =>
  atArgument(i, () => bytesAt(v, { type: 'common.Address' }, 20))
export const parseHash = (v: unknown, i: number): Uint8Array =>
  atArgument(i, () => bytesAt(v, { type: 'common.Hash' }, 32))

/** A storage key as geth's eth_getStorageAt/getProof take it: any hex up to 32 bytes, left-padded. */
export function parseStorageKey(v: unknown, i: number): Uint8Array {
  return atArgument(i, () => {
    if (typeof v !== 'string') throw typeError(goJsonKind(v), { type: 'string' })
    let digits = v.startsWith('0x') || v.startsWith('0X') ? v.slice(2) : v
    if (digits.length > 64) throw new ArgError('hex string too long, want at most 32 bytes')
    if (digits.length % 2 === 1) digits = `0${digits}`
    if (!HEX_DIGITS.test(digits)) throw new ArgError(`invalid hex string`)
    return Uint8Array.from(Buffer.from(digits.padStart(64, '0'), 'hex'))
  })
}

export const parseBool = (v: unknown, i: number): boolean =>
  atArgument(i, () => {
    if (typeof v !== 'boolean') throw typeError(goJsonKind(v), { type: 'bool' })
    return v
  })

/** The named block tags (coreth: earliest = 0; accepted and finalized are the same). */
export type BlockTag = 'earliest' | 'latest' | 'pending' | 'accepted' | 'finalized' | 'safe'
const TAGS = new Set<string>(['earliest', 'latest', 'pending', 'accepted', 'finalized', 'safe'])

export type BlockSelector =
  | { kind: 'tag'; tag: BlockTag }
  | { kind: 'number'; number: bigint }
  | { kind: 'hash'; hash: Uint8Array; requireCanonical: boolean }

const MAX_INT64 = (1n << 63n) - 1n

/** rpc.BlockNumber: a tag or a hex number that fits int64. */
export function parseBlockNumber(v: unknown, i: number): BlockSelector {
  return atArgument(i, () => {
    let s = typeof v === 'string' ? v : JSON.stringify(v)
    s = s.trim()
    if (TAGS.has(s)) return { kind: 'tag', tag: s as BlockTag }
    const n = decodeUint64(s)
    if (n > MAX_INT64) throw new ArgError('block number larger than int64')
    return { kind: 'number', number: n }
  })
}

/** hexutil.DecodeUint64 (no JSON wrapping). */
function decodeUint64(s: string): bigint {
  if (s.length === 0) throw new ArgError(HexError.empty)
  const r = numberText(s, 64)
  if (typeof r === 'string') throw new ArgError(r)
  return r
}

/** rpc.BlockNumberOrHash: a tag, a hex number, a 32-byte hash, or `{blockNumber|blockHash, requireCanonical}`. */
export function parseBlockNumberOrHash(v: unknown, i: number): BlockSelector {
  return atArgument(i, () => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>
      const struct = 'rpc.erased'
      const hasNumber = o.blockNumber !== undefined && o.blockNumber !== null
      const hasHash = o.blockHash !== undefined && o.blockHash !== null
      let sel: BlockSelector | undefined
      if (hasNumber) sel = parseBlockNumber(o.blockNumber, i)
      let hash: Uint8Array | undefined
      if (hasHash) hash = bytesAt(o.blockHash, { type: 'common.Hash', struct, field: 'blockHash' }, 32)
      const rc = o.requireCanonical
      if (rc !== undefined && rc !== null && typeof rc !== 'boolean')
        throw typeError(goJsonKind(rc), { type: 'bool', struct, field: 'requireCanonical' })
      if (hasNumber && hasHash)
        throw new ArgError('cannot specify both BlockHash and BlockNumber, choose one or the other')
      if (hash !== undefined) return { kind: 'hash', hash, requireCanonical: rc === true }
      if (sel !== undefined) return sel
      throw new ArgError('invalid arguments; neither block nor hash specified')
    }
    if (typeof v !== 'string') throw typeError(goJsonKind(v), { type: 'string' })
    if (TAGS.has(v)) return { kind: 'tag', tag: v as BlockTag }
    if (v.length === 66) {
      return { kind: 'hash', hash: bytesAt(v, { type: 'common.Hash' }, 32), requireCanonical: false }
    }
    const n = decodeUint64(v)
    if (n > MAX_INT64) throw new ArgError('blocknumber too high')
    return { kind: 'number', number: n }
  })
}

/** ethapi.TransactionArgs (eth_call, estimateGas, sendTransaction, createAccessList, traceCall). */
export interface TxArgs {
  from?: Uint8Array
  to?: Uint8Array
  gas?: bigint
  gasPrice?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  value?: bigint
  nonce?: bigint
  /** `input`, or `data` when only it is set */
  data?: Uint8Array
  accessList?: { address: Uint8Array; storageKeys: Uint8Array[] }[]
  chainId?: bigint
}

const ARGS_STRUCT = 'TransactionArgs'

export function parseTxArgs(v: unknown, i: number): TxArgs {
  return atArgument(i, () => {
    if (v === null || typeof v !== 'object' || Array.isArray(v))
      throw typeError(goJsonKind(v), { type: 'ethapi.TransactionArgs' })
    const o = v as Record<string, unknown>
    const field = (name: string, type: string): Place => ({ type, struct: ARGS_STRUCT, field: name })
    const has = (k: string) => o[k] !== undefined && o[k] !== null
    const out: TxArgs = {}
    if (has('from')) out.from = bytesAt(o.from, field('from', 'common.Address'), 20)
    if (has('to')) out.to = bytesAt(o.to, field('to', 'common.Address'), 20)
    if (has('gas')) out.gas = quantityAt(o.gas, field('gas', 'hexutil.Uint64'), 64)
    if (has('gasPrice')) out.gasPrice = quantityAt(o.gasPrice, field('gasPrice', '*hexutil.Big'), 256)
    if (has('maxFeePerGas')) out.maxFeePerGas = quantityAt(o.maxFeePerGas, field('maxFeePerGas', '*hexutil.Big'), 256)
    if (has('maxPriorityFeePerGas'))
      out.maxPriorityFeePerGas = quantityAt(o.maxPriorityFeePerGas, field('maxPriorityFeePerGas', '*hexutil.Big'), 256)
    if (has('value')) out.value = quantityAt(o.value, field('value', '*hexutil.Big'), 256)
    if (has('nonce')) out.nonce = quantityAt(o.nonce, field('nonce', 'hexutil.Uint64'), 64)
    if (has('chainId')) out.chainId = quantityAt(o.chainId, field('chainId', '*hexutil.Big'), 256)
    const data = has('data') ? bytesAt(o.data, field('data', 'hexutil.Bytes')) : undefined
    const input = has('input') ? bytesAt(o.input, field('input', 'hexutil.Bytes')) : undefined
    if (data !== undefined && input !== undefined && Buffer.compare(data, input) !== 0)
      throw new ArgError(
        'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
      )
    const payload = input ?? data
    if (payload !== undefined) out.data = payload
    if (has('accessList')) out.accessList = accessListAt(o.accessList)
    return out
  })
}

function accessListAt(v: unknown): NonNullable<TxArgs['accessList']> {
  const place: Place = { type: 'types.AccessList', struct: ARGS_STRUCT, field: 'accessList' }
  if (!Array.isArray(v)) throw typeError(goJsonKind(v), place)
  return v.map((item) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item))
      throw typeError(goJsonKind(item), { type: 'types.AccessTuple', struct: ARGS_STRUCT, field: 'accessList' })
    const t = item as Record<string, unknown>
    const at = (f: string, type: string): Place => ({ type, struct: 'AccessTuple', field: f })
    const keys = t.storageKeys ?? []
    if (!Array.isArray(keys)) throw typeError(goJsonKind(keys), at('storageKeys', '[]common.Hash'))
    return {
      address: bytesAt(t.address ?? '', at('address', 'common.Address'), 20),
      storageKeys: keys.map((k) => bytesAt(k, at('storageKeys', 'common.Hash'), 32)),
    }
  })
}

/** Go's JSON type name of a value, re-exported for callers that build their own texts. */
export { goJsonKind }
