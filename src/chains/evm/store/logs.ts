/**
 * eth_getLogs over accepted blocks: a block's bloom (kept per number) rules blocks out before its receipts are
 * read; then the logs are matched exactly. Topic positions follow geth: [] or null matches anything, a list
 * matches any of its members.
 */

import { keccak_256 } from '@noble/hashes/sha3.js'
import { FirnError } from '../../../runtime/errors.js'
import type { ChainStore } from './chain-store.js'
import type { StoredLog } from './receipt.js'

export interface LogFilter {
  fromBlock: bigint
  toBlock: bigint
  /** any of these addresses; empty = any address */
  addresses: Uint8Array[]
  /** per position: null/empty = any, else any of the listed topics */
  topics: (Uint8Array[] | null)[]
}

export interface FoundLog extends StoredLog {
  blockHash: Uint8Array
  blockNumber: bigint
  txHash: Uint8Array
  txIndex: number
  /** index of the log in its block */
  logIndex: number
}

export class TooManyLogsError extends FirnError {}

export function bloomContains(bloom: Uint8Array, item: Uint8Array): boolean {
  const h = keccak_256(item)
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i]! << 8) | h[i + 1]!) & 2047
    const byte = bloom[255 - (bit >> 3)] ?? 0
    if ((byte & (1 << (bit & 7))) === 0) return false
  }
  return true
}

function equals(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function bloomMatches(bloom: Uint8Array, f: LogFilter): boolean {
  if (f.addresses.length > 0 && !f.addresses.some((a) => bloomContains(bloom, a))) return false
  return f.topics.every((alts) => alts === null || alts.length === 0 || alts.some((t) => bloomContains(bloom, t)))
}

export function logMatches(log: StoredLog, f: LogFilter): boolean {
  if (f.addresses.length > 0 && !f.addresses.some((a) => equals(a, log.address))) return false
  // geth: a log with fewer topics than the filter has positions never matches, wildcards or not
  if (f.topics.length > log.topics.length) return false
  return f.topics.every((alts, i) => {
    if (alts === null || alts.length === 0) return true
    const topic = log.topics[i]
    return topic !== undefined && alts.some((t) => equals(t, topic))
  })
}

/** Logs of canonical blocks fromBlock..toBlock (inclusive) matching `f`; throws TooManyLogsError past `limit`. */
export async function getLogs(store: ChainStore, f: LogFilter, limit: number): Promise<FoundLog[]> {
  const out: FoundLog[] = []
  for (let n = f.fromBlock; n <= f.toBlock; n++) {
    const bloom = await store.getBloom(n)
    if (bloom === undefined || !bloomMatches(bloom, f)) continue
    const hash = await store.canonicalHash(n)
    const receipts = hash === undefined ? undefined : await store.getReceipts(hash)
    if (hash === undefined || receipts === undefined) continue
    let logIndex = 0
    receipts.forEach((r, txIndex) => {
      for (const log of r.logs) {
        if (logMatches(log, f)) {
          if (out.length >= limit) throw new TooManyLogsError(`query returned more than ${limit} results`)
          out.push({ ...log, blockHash: hash, blockNumber: n, txHash: r.txHash, txIndex, logIndex })
        }
        logIndex++
      }
    })
  }
  return out
}
