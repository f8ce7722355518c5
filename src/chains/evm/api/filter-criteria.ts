/**
 * geth's log filter criteria (`FilterCriteria.UnmarshalJSON`) and coreth's matching rules: decoding of the
 * eth_getLogs / eth_newFilter / logs-subscription argument, per-log and bloom matching, the logs of one block, and
 * the checks made when a log filter or subscription is installed. Used by filters.ts and subscriptions.ts.
 */

import { goJsonKind, invalidArgument } from '../../../rpc/eth-args.js'
import type { AcceptedEvent } from '../exec/chain.js'
import { bloomContains, type FoundLog } from '../store/logs.js'
import type { StoredReceipt } from '../store/receipt.js'
import { HexError, parseBlockNumber } from './hexutil.js'

export const MAX_ADDRESSES = 1000
export const MAX_TOPICS = 4

export const FilterError = {
  invalidTopic: 'invalid topic(s)',
  notFound: 'filter not found',
  invalidBlockRange: 'invalid block range params',
  exceedMaxTopics: 'exceed max topics',
  exceedMaxAddresses: 'exceed max addresses',
  tooManyFilters: 'too many filters',
  unknownBlock: 'unknown block',
  invalidCombination: 'invalid from and to block combination: from > to',
} as const

/** rpc.BlockNumber as coreth encodes it: >= 0 a number, else a tag. */
export const BlockNum = { earliest: 0n, pending: -1n, latest: -2n, finalized: -3n, safe: -4n } as const

/** geth's FilterCriteria: block numbers as rpc.BlockNumber int64 values (tags negative). */
export interface FilterCriteria {
  blockHash?: Uint8Array
  fromBlock?: bigint
  toBlock?: bigint
  /** any of these; empty = any address */
  addresses: Uint8Array[]
  /** per position: null = any, else any of the listed topics */
  topics: (Uint8Array[] | null)[]
}

/** An error text in geth's criteria decoding, before `invalid argument i:` is added. */
class CriteriaError extends Error {}

const HEX = /^[0-9a-fA-F]*$/

/** hexutil.Decode: error text or bytes. */
function hexutilDecode(s: string): Uint8Array | string {
  if (s.length === 0) return HexError.empty
  if (!(s.startsWith('0x') || s.startsWith('0X'))) return HexError.missingPrefix
  const body = s.slice(2)
  if (!HEX.test(body)) return HexError.syntax
  if (body.length % 2 === 1) return HexError.oddLength
  return Uint8Array.from(Buffer.from(body, 'hex'))
}

function decodeFixed(s: string, size: number, what: string): Uint8Array {
  const b = hexutilDecode(s)
  if (typeof b === 'string') throw new CriteriaError(b)
  if (b.length !== size)
    throw new CriteriaError(`hex has invalid length ${b.length} after decoding; expected ${size} for ${what}`)
  return b
}

/** common.Hash as a field of geth's local `input` struct. */
function blockHashField(v: unknown): Uint8Array {
  const at = 'into Go struct field input.blockHash of type common.Hash'
  if (typeof v !== 'string') throw new CriteriaError(`json: cannot unmarshal non-string ${at}`)
  let digits = v
  if (v.startsWith('0x') || v.startsWith('0X')) digits = v.slice(2)
  else if (v.length > 0) throw new CriteriaError(`json: cannot unmarshal ${HexError.missingPrefix} ${at}`)
  if (digits.length % 2 === 1) throw new CriteriaError(`json: cannot unmarshal ${HexError.oddLength} ${at}`)
  if (digits.length !== 64)
    throw new CriteriaError(
      `json: cannot unmarshal hex string has length ${digits.length}, want 64 for common.Hash ${at}`,
    )
  if (!HEX.test(digits)) throw new CriteriaError(`json: cannot unmarshal ${HexError.syntax} ${at}`)
  return Uint8Array.from(Buffer.from(digits, 'hex'))
}

function blockNumberField(v: unknown, index: number): bigint {
  const sel = parseBlockNumber(v, index)
  if (sel.kind === 'number') return sel.number
  if (sel.kind === 'tag') {
    if (sel.tag === 'accepted') return BlockNum.finalized
    return BlockNum[sel.tag]
  }
  throw new Error('unreachable')
}

/**
 * geth's `FilterCriteria.UnmarshalJSON` on positional argument `index`: errors are -32602
 * `invalid argument <index>: <reason>`. null is the empty criteria.
 */
export function parseFilterCriteria(v: unknown, index: number): FilterCriteria {
  const out: FilterCriteria = { addresses: [], topics: [] }
  if (v === null || v === undefined) return out
  try {
    if (typeof v !== 'object' || Array.isArray(v))
      throw new CriteriaError(`json: cannot unmarshal ${goJsonKind(v)} into Go value of type filters.input`)
    let blockHash: Uint8Array | undefined
    let fromBlock: bigint | undefined
    let toBlock: bigint | undefined
    let rawAddress: unknown
    let rawTopics: unknown[] | undefined
    let saved: CriteriaError | undefined
    // Go's decoder matches field names case-insensitively, in the object's order; type mismatches of plain
    // fields are remembered and reported after the object, custom decoders' errors stop at once.
    for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
      switch (key.toLowerCase()) {
        case 'blockhash':
          blockHash = value === null ? undefined : blockHashField(value)
          break
        case 'fromblock':
          fromBlock = value === null ? undefined : blockNumberField(value, index)
          break
        case 'toblock':
          toBlock = value === null ? undefined : blockNumberField(value, index)
          break
        case 'address':
          rawAddress = value
          break
        case 'topics':
          if (value === null) rawTopics = undefined
          else if (Array.isArray(value)) rawTopics = value
          else
            saved ??= new CriteriaError(
              `json: cannot unmarshal ${goJsonKind(value)} into Go struct field input.topics of type []interface {}`,
            )
          break
      }
    }
    if (saved !== undefined) throw saved
    if (blockHash !== undefined) {
      if (fromBlock !== undefined || toBlock !== undefined)
        throw new CriteriaError('cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other')
      out.blockHash = blockHash
    } else {
      if (fromBlock !== undefined) out.fromBlock = fromBlock
      if (toBlock !== undefined) out.toBlock = toBlock
    }
    if (rawAddress !== undefined && rawAddress !== null) {
      if (Array.isArray(rawAddress)) {
        if (rawAddress.length > MAX_ADDRESSES) throw new CriteriaError(FilterError.exceedMaxAddresses)
        rawAddress.forEach((a, i) => {
          if (typeof a !== 'string') throw new CriteriaError(`non-string address at index ${i}`)
          try {
            out.addresses.push(decodeFixed(a, 20, 'address'))
          } catch (err) {
            throw new CriteriaError(`invalid address at index ${i}: ${(err as Error).message}`)
          }
        })
      } else if (typeof rawAddress === 'string') {
        try {
          out.addresses = [decodeFixed(rawAddress, 20, 'address')]
        } catch (err) {
          throw new CriteriaError(`invalid address: ${(err as Error).message}`)
        }
      } else {
        throw new CriteriaError('invalid addresses in query')
      }
    }
    for (const t of rawTopics ?? []) {
      if (t === null) out.topics.push(null)
      else if (typeof t === 'string') out.topics.push([decodeFixed(t, 32, 'topic')])
      else if (Array.isArray(t)) {
        let alts: Uint8Array[] | null = []
        for (const raw of t) {
          if (raw === null) {
            alts = null
            break
          }
          if (typeof raw !== 'string') throw new CriteriaError(FilterError.invalidTopic)
          alts.push(decodeFixed(raw, 32, 'topic'))
        }
        out.topics.push(alts === null || alts.length === 0 ? null : alts)
      } else throw new CriteriaError(FilterError.invalidTopic)
    }
    return out
  } catch (err) {
    if (err instanceof CriteriaError) throw invalidArgument(index, err.message)
    throw err
  }
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0
}

/** coreth's filterLogs for one log: block bounds (>= 0 only), addresses, then topics by position. */
export function criteriaMatch(log: FoundLog, c: FilterCriteria): boolean {
  if (c.fromBlock !== undefined && c.fromBlock >= 0n && c.fromBlock > log.blockNumber) return false
  if (c.toBlock !== undefined && c.toBlock >= 0n && c.toBlock < log.blockNumber) return false
  return addressTopicMatch(log, c)
}

export function addressTopicMatch(log: FoundLog, c: FilterCriteria): boolean {
  if (c.addresses.length > 0 && !c.addresses.some((a) => equal(a, log.address))) return false
  if (c.topics.length > log.topics.length) return false
  return c.topics.every((alts, i) => alts === null || alts.some((t) => equal(t, log.topics[i]!)))
}

export function bloomMatch(bloom: Uint8Array, c: FilterCriteria): boolean {
  if (c.addresses.length > 0 && !c.addresses.some((a) => bloomContains(bloom, a))) return false
  return c.topics.every((alts) => alts === null || alts.some((t) => bloomContains(bloom, t)))
}

/** The logs of one block, with their positions. */
export function blockLogs(hash: Uint8Array, number: bigint, receipts: readonly StoredReceipt[]): FoundLog[] {
  const out: FoundLog[] = []
  let logIndex = 0
  receipts.forEach((r, txIndex) => {
    for (const log of r.logs) {
      out.push({ ...log, blockHash: hash, blockNumber: number, txHash: r.txHash, txIndex, logIndex })
      logIndex++
    }
  })
  return out
}

/** The logs of an accepted block matching `c` (numeric bounds applied, as coreth's event system does). */
export function acceptedLogs(ev: AcceptedEvent, c: FilterCriteria): FoundLog[] {
  if (!bloomMatch(ev.header.bloom, c)) return []
  return blockLogs(ev.hash, ev.header.number, ev.receipts).filter((l) => criteriaMatch(l, c))
}

/**
 * coreth's checks when a log filter or subscription is installed: SubscribeLogs with allow-unfinalized-queries
 * (max topics and addresses, `invalid block range params`), SubscribeAcceptedLogs otherwise.
 */
export function checkLogCriteria(allowUnfinalized: boolean, c: FilterCriteria): void {
  if (allowUnfinalized) {
    if (c.topics.length > MAX_TOPICS) throw new Error(FilterError.exceedMaxTopics)
    if (c.addresses.length > MAX_ADDRESSES) throw new Error(FilterError.exceedMaxAddresses)
  }
  const from = c.fromBlock ?? BlockNum.latest
  const to = c.toBlock ?? BlockNum.latest
  const ok =
    (from === BlockNum.pending && to === BlockNum.pending) ||
    (from === BlockNum.latest && to === BlockNum.latest) ||
    (from >= 0n && to >= 0n && to >= from) ||
    (from >= BlockNum.latest && to === BlockNum.pending) ||
    (from >= 0n && to === BlockNum.latest)
  if (!ok) throw new Error(allowUnfinalized ? FilterError.invalidBlockRange : FilterError.invalidCombination)
}
