/**
 * eth_sendRawTransaction's decoding with geth's texts (types.Transaction.UnmarshalBinary over the rlp package):
 * the envelope (`typed transaction too short`, `transaction type not supported`) and the RLP structure of the
 * legacy, access-list and dynamic-fee layouts, field by field (`rlp: too few elements for types.LegacyTx`,
 * `rlp: non-canonical integer (leading zero bytes) for uint64, decoding into (types.LegacyTx).Nonce`, ...).
 * Only well-formed input reaches ethereumjs' decoder; values it refuses after that (bad signature values, another
 * chain's id) are the pool's `invalid sender` in geth.
 */
import type { Common } from '@ethereumjs/common'
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx'
import { presetEncoding } from '../exec/tx-sender.js'

class RlpError extends Error {}

const E = {
  canonInt: 'non-canonical integer (leading zero bytes)',
  canonSize: 'non-canonical size information',
  expectedList: 'expected input list',
  expectedString: 'expected input string or byte',
  uintOverflow: 'input string too long',
  tooMany: 'input list has too many elements',
} as const
type StreamErr = (typeof E)[keyof typeof E]

/** A decode error with geth's context path. */
class DecodeError extends RlpError {
  constructor(
    readonly msg: string,
    readonly typ: string,
    readonly ctx: string[] = [],
  ) {
    super(msg)
  }
  text(): string {
    const ctx = this.ctx.length > 0 ? `, decoding into ${[...this.ctx].reverse().join('')}` : ''
    return `rlp: ${this.msg} for ${this.typ}${ctx}`
  }
}

const plain = (text: string) => new RlpError(`rlp: ${text}`)

interface Item {
  kind: 'byte' | 'string' | 'list'
  /** content start and end */
  start: number
  end: number
}

/** Read one item's header at `pos` within `[.., limit)` (Stream.readKind with geth's checks). */
function readItem(b: Uint8Array, pos: number, limit: number): Item | StreamErr {
  const check = (end: number) => {
    if (end > b.length) throw plain('value size exceeds available input length')
    if (end > limit) throw plain('element is larger than containing list')
  }
  const p = b[pos]!
  const sized = (lenOfLen: number, kind: 'string' | 'list'): Item | StreamErr => {
    if (pos + 1 + lenOfLen > b.length) throw new RlpError('unexpected EOF')
    if (b[pos + 1] === 0) return E.canonSize
    let size = 0
    for (let i = 0; i < lenOfLen; i++) size = size * 256 + b[pos + 1 + i]!
    if (size < 56) return E.canonSize
    const start = pos + 1 + lenOfLen
    check(start + size)
    return { kind, start, end: start + size }
  }
  if (p < 0x80) return { kind: 'byte', start: pos, end: pos + 1 }
  if (p < 0xb8) {
    const start = pos + 1
    const end = start + p - 0x80
    check(end)
    if (p === 0x81 && b[start]! < 0x80) return E.canonSize
    return { kind: 'string', start, end }
  }
  if (p < 0xc0) return sized(p - 0xb7, 'string')
  if (p < 0xf8) {
    const start = pos + 1
    const end = start + p - 0xc0
    check(end)
    return { kind: 'list', start, end }
  }
  return sized(p - 0xf7, 'list')
}

/** A cursor over a list's contents. */
class ListReader {
  constructor(
    readonly b: Uint8Array,
    public pos: number,
    readonly end: number,
  ) {}
  atEnd(): boolean {
    return this.pos >= this.end
  }
  /** the next item, or a stream error to wrap with the decoding type */
  next(): Item | StreamErr {
    const item = readItem(this.b, this.pos, this.end)
    if (typeof item !== 'string') this.pos = item.end
    return item
  }
}

type FieldDecoder = (r: ListReader) => void

const wrap = (err: StreamErr, typ: string): DecodeError => new DecodeError(err, typ)

function stringItem(r: ListReader, typ: string): Item {
  const item = r.next()
  if (typeof item === 'string') throw wrap(item, typ)
  if (item.kind === 'list') throw wrap(E.expectedString, typ)
  return item
}

const uint64: FieldDecoder = (r) => {
  const item = stringItem(r, 'uint64')
  const len = item.end - item.start
  if (item.kind === 'string' && len > 8) throw wrap(E.uintOverflow, 'uint64')
  if (len > 0 && r.b[item.start] === 0) throw wrap(E.canonInt, 'uint64')
}

const bigInt: FieldDecoder = (r) => {
  const item = stringItem(r, '*big.Int')
  if (item.end > item.start && r.b[item.start] === 0) throw wrap(E.canonInt, '*big.Int')
}

const bytes: FieldDecoder = (r) => {
  stringItem(r, '[]uint8')
}

function fixed(size: number, typ: string, nilOk: boolean): FieldDecoder {
  return (r) => {
    const item = stringItem(r, typ)
    const len = item.end - item.start
    if (nilOk && item.kind === 'string' && len === 0) return
    if (len < size) throw new DecodeError('input string too short', typ)
    if (len > size) throw new DecodeError('input string too long', typ)
  }
}

function list(typ: string, decodeContents: (r: ListReader) => void): FieldDecoder {
  return (r) => {
    const item = r.next()
    if (typeof item === 'string') throw wrap(item, typ)
    if (item.kind !== 'list') throw wrap(E.expectedList, typ)
    decodeContents(new ListReader(r.b, item.start, item.end))
  }
}

function struct(typ: string, fields: [string, FieldDecoder][]): FieldDecoder {
  return list(typ, (r) => {
    for (const [name, decode] of fields) {
      if (r.atEnd()) throw new DecodeError('too few elements', typ)
      try {
        decode(r)
      } catch (err) {
        if (err instanceof DecodeError) err.ctx.push(`.${name}`)
        throw err
      }
    }
    if (!r.atEnd()) throw new DecodeError(E.tooMany, typ)
  })
}

function slice(typ: string, elem: FieldDecoder): FieldDecoder {
  return list(typ, (r) => {
    for (let i = 0; !r.atEnd(); i++) {
      try {
        elem(r)
      } catch (err) {
        if (err instanceof DecodeError) err.ctx.push(`[${i}]`)
        throw err
      }
    }
  })
}

const address = fixed(20, 'common.Address', false)
const to = fixed(20, 'common.Address', true)
const accessList = slice(
  'types.AccessList',
  struct('types.AccessTuple', [
    ['Address', address],
    ['StorageKeys', slice('[]common.Hash', fixed(32, 'common.Hash', false))],
  ]),
)
const sig: [string, FieldDecoder][] = [
  ['V', bigInt],
  ['R', bigInt],
  ['S', bigInt],
]

const LAYOUTS: Record<number, [string, [string, FieldDecoder][]]> = {
  0: [
    'types.LegacyTx',
    [['Nonce', uint64], ['GasPrice', bigInt], ['Gas', uint64], ['To', to], ['Value', bigInt], ['Data', bytes], ...sig],
  ],
  1: [
    'types.AccessListTx',
    [
      ['ChainID', bigInt],
      ['Nonce', uint64],
      ['GasPrice', bigInt],
      ['Gas', uint64],
      ['To', to],
      ['Value', bigInt],
      ['Data', bytes],
      ['AccessList', accessList],
      ...sig,
    ],
  ],
  2: [
    'types.DynamicFeeTx',
    [
      ['ChainID', bigInt],
      ['Nonce', uint64],
      ['GasTipCap', bigInt],
      ['GasFeeCap', bigInt],
      ['Gas', uint64],
      ['To', to],
      ['Value', bigInt],
      ['Data', bytes],
      ['AccessList', accessList],
      ...sig,
    ],
  ],
}

/** rlp.DecodeBytes of one struct: the whole input must be exactly one list. */
function decodeBytes(b: Uint8Array, typ: number): void {
  const [name, fields] = LAYOUTS[typ]!
  const top = readItem(b, 0, b.length)
  if (typeof top === 'string') throw wrap(top, name)
  if (top.kind !== 'list') throw wrap(E.expectedList, name)
  const r = new ListReader(b, 0, top.end)
  try {
    struct(name, fields)(r)
  } catch (err) {
    if (err instanceof DecodeError && err.ctx.length > 0) err.ctx.push(`(${name})`)
    throw err
  }
  if (top.end < b.length) throw plain('input contains more than one value')
}

/** Transaction.UnmarshalBinary: throws geth's decoding texts; refused values become `invalid sender`. */
export function decodeRawTransaction(raw: Uint8Array, common: Common): TypedTransaction {
  try {
    if (raw.length > 0 && raw[0]! > 0x7f) decodeBytes(raw, 0)
    else {
      if (raw.length <= 1) throw new Error('typed transaction too short')
      const type = raw[0]!
      // blob txs (3) decode in geth but the pool never takes them; unknown types fail here
      if (type === 0 || LAYOUTS[type] === undefined) throw new Error('transaction type not supported')
      decodeBytes(raw.subarray(1), type)
    }
  } catch (err) {
    if (err instanceof DecodeError) throw new Error(err.text())
    throw err
  }
  let tx: TypedTransaction
  try {
    tx = createTxFromRLP(raw, { common })
  } catch {
    throw new Error('invalid sender')
  }
  // the strict decode above makes `raw` the tx's one encoding: ethereumjs need not encode it again
  presetEncoding(tx, raw)
  return tx
}
