/**
 * The `eth-filter` namespace's polling half (coreth eth/filters/api.go + filter.go): eth_getLogs,
 * eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs,
 * eth_uninstallFilter, with geth's criteria decoding (`FilterCriteria.UnmarshalJSON`) and coreth's range rules
 * and texts. Filters fire on accepted blocks (backend.accepted$) and on txs becoming executable in the pool
 * (backend.pendingTx$); ids are geth's (0x + 16 random bytes, leading zeros stripped).
 *
 * Coreth behaviour kept: log filters apply numeric fromBlock/toBlock to new logs; a log matches only if it has at
 * least as many topics as the criteria has positions; eth_newFilter checks `exceed max topics` only with
 * allow-unfinalized-queries (coreth's SubscribeLogs), otherwise a bad range gives
 * `invalid from and to block combination: from > to`; eth_getFilterLogs works for log filters only.
 *
 * Firn's limits (coreth has none): at most `max-filters` (10,000) installed filters (`too many filters`), and at
 * most `max-filters-per-ip` (1,000) installed by one client IP (`too many filters from this client: ...`),
 * so one client cannot take every slot; each filter buffers at
 * most 10,000 items between polls (older ones are dropped); eth_getLogs and eth_getFilterLogs return at most
 * 100,000 logs (`query returned more than 100000 results`). A filter not polled with eth_getFilterChanges for
 * 5 minutes is removed by a sweep that runs every minute on an unref'd timer.
 * Criteria decoding and matching live in filter-criteria.ts (re-exported here).
 */
import { randomBytes } from 'node:crypto'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { Subscription } from 'rxjs'
import { ClientQuota, clientKey } from '../../../rpc/client-quota.js'
import { checkArity, goJsonKind, invalidArgument } from '../../../rpc/eth-args.js'
import type { EthMethod } from '../../../rpc/eth-types.js'
import type { AcceptedEvent } from '../exec/chain.js'
import { type FoundLog, TooManyLogsError } from '../store/logs.js'
import type { EthBackend } from './backend.js'
import {
  addressTopicMatch,
  BlockNum,
  blockLogs,
  bloomMatch,
  checkLogCriteria,
  criteriaMatch,
  type FilterCriteria,
  FilterError,
  MAX_ADDRESSES,
  MAX_TOPICS,
  parseFilterCriteria,
} from './filter-criteria.js'
import { rpcLog, rpcTransaction } from './format.js'
import { hex, parseBool } from './hexutil.js'

export {
  acceptedLogs,
  BlockNum,
  blockLogs,
  checkLogCriteria,
  criteriaMatch,
  type FilterCriteria,
  FilterError,
  MAX_ADDRESSES,
  MAX_TOPICS,
  parseFilterCriteria,
} from './filter-criteria.js'

export const MAX_FILTERS = 10_000
export const MAX_FILTERS_PER_CLIENT = 1000
export const MAX_FILTER_ITEMS = 10_000
export const MAX_LOGS = 100_000
export const FILTER_TTL_MS = 5 * 60_000
export const FILTER_SWEEP_MS = 60_000

const tooMany = (limit: number) => new TooManyLogsError(`query returned more than ${limit} results`)

/** coreth's Filter.Logs (block-hash or range filter) with Firn's result cap. */
export async function queryLogs(backend: EthBackend, c: FilterCriteria, limit = MAX_LOGS): Promise<FoundLog[]> {
  if (c.blockHash !== undefined) {
    const block = await backend.resolveBlock({ kind: 'hash', hash: c.blockHash, requireCanonical: false })
    if (block === null) throw new Error(FilterError.unknownBlock)
    if (!bloomMatch(block.header.bloom, c)) return []
    const receipts = (await backend.core.getReceipts(block.hash)) ?? []
    const logs = blockLogs(block.hash, block.header.number, receipts).filter((l) => addressTopicMatch(l, c))
    if (logs.length > limit) throw tooMany(limit)
    return logs
  }
  let begin = c.fromBlock ?? BlockNum.latest
  let end = c.toBlock ?? BlockNum.latest
  if (!backend.config.allowUnfinalizedQueries) {
    const lastAccepted = backend.lastAccepted().header.number
    if (begin >= 0n && begin > lastAccepted)
      throw new Error(`requested from block ${begin} after last accepted block ${lastAccepted}`)
    if (end >= 0n && end > lastAccepted)
      throw new Error(`requested to block ${end} after last accepted block ${lastAccepted}`)
  }
  const beginPending = begin === BlockNum.pending
  const endPending = end === BlockNum.pending
  const endSet = end >= 0n
  if (beginPending && !endPending) throw new Error(FilterError.invalidBlockRange)
  if (beginPending && endPending) return []
  const resolve = (n: bigint): bigint => {
    if (n === BlockNum.latest || n === BlockNum.pending) return backend.latest().header.number
    if (n === BlockNum.finalized || n === BlockNum.safe) return backend.lastAccepted().header.number
    return n
  }
  begin = resolve(begin)
  end = resolve(end)
  if (endSet && end < begin) throw new Error(`begin block ${begin} is greater than end block ${end}`)
  const maxBlocks = BigInt(backend.config.apiMaxBlocksPerRequest)
  if (maxBlocks > 0n && end - begin >= maxBlocks)
    throw new Error(`requested too many blocks from ${begin} to ${end}, maximum is set to ${maxBlocks}`)
  // throws TooManyLogsError (`query returned more than <limit> results`)
  const logs = await backend.core.getLogs(
    { fromBlock: begin, toBlock: end, addresses: c.addresses, topics: c.topics },
    limit,
  )
  // the store lets trailing wildcard positions pass logs with fewer topics; geth does not
  return logs.filter((l) => c.topics.length <= l.topics.length)
}

/** geth's rpc.NewID. */
export function newFilterId(): string {
  const id = randomBytes(16).toString('hex').replace(/^0+/, '')
  return `0x${id === '' ? '0' : id}`
}

/** `owner`: the client (IP address, src/rpc/client-quota.ts) that installed it */
type Installed = { owner: string } & (
  | { kind: 'logs'; crit: FilterCriteria; items: FoundLog[]; lastPoll: number }
  | { kind: 'blocks'; items: Uint8Array[]; lastPoll: number }
  | { kind: 'pendingTxs'; fullTx: boolean; items: (string | TypedTransaction)[]; lastPoll: number }
)

export interface FilterSystemOptions {
  /** a filter not polled for this long is removed (default 5 minutes) */
  ttlMs?: number
  /** how often expired filters are removed (default 1 minute); 0 = no timer (call `sweep`) */
  sweepIntervalMs?: number
  /** ms clock (default backend.now) */
  now?: () => number
  /** installed filters in all (default 10,000) and per client IP (default 1,000); 0 = no cap */
  maxFilters?: number
  maxFiltersPerClient?: number
  maxItems?: number
}

/** The installed filters of one chain's JSON-RPC service. */
export class FilterSystem {
  readonly #backend: EthBackend
  readonly #filters = new Map<string, Installed>()
  readonly #subs: Subscription[] = []
  readonly #ttl: number
  readonly #now: () => number
  readonly #quota: ClientQuota
  readonly #maxItems: number
  #timer: NodeJS.Timeout | undefined

  constructor(backend: EthBackend, opts: FilterSystemOptions = {}) {
    this.#backend = backend
    this.#ttl = opts.ttlMs ?? FILTER_TTL_MS
    this.#now = opts.now ?? (() => backend.now())
    this.#quota = new ClientQuota(opts.maxFilters ?? MAX_FILTERS, opts.maxFiltersPerClient ?? MAX_FILTERS_PER_CLIENT)
    this.#maxItems = opts.maxItems ?? MAX_FILTER_ITEMS
    this.#subs.push(backend.accepted$.subscribe((ev) => this.#onAccepted(ev)))
    this.#subs.push(backend.pendingTx$.subscribe((hash) => this.#onPendingTx(hash)))
    const every = opts.sweepIntervalMs ?? FILTER_SWEEP_MS
    if (every > 0) {
      this.#timer = setInterval(() => this.sweep(), every)
      this.#timer.unref()
    }
  }

  get size(): number {
    return this.#filters.size
  }

  /** eth_newFilter; `owner` is the client (default: one shared client) */
  newLogFilter(crit: FilterCriteria, owner = 'unknown'): string {
    checkLogCriteria(this.#backend.config.allowUnfinalizedQueries, crit)
    return this.#install({ owner, kind: 'logs', crit, items: [], lastPoll: this.#now() })
  }

  /** eth_newBlockFilter */
  newBlockFilter(owner = 'unknown'): string {
    return this.#install({ owner, kind: 'blocks', items: [], lastPoll: this.#now() })
  }

  /** eth_newPendingTransactionFilter */
  newPendingTxFilter(fullTx: boolean, owner = 'unknown'): string {
    return this.#install({ owner, kind: 'pendingTxs', fullTx, items: [], lastPoll: this.#now() })
  }

  /** eth_getFilterChanges: what arrived since the last poll (hashes, txs or logs); resets the expiry. */
  changes(id: string): unknown[] {
    const f = this.#filters.get(id)
    if (f === undefined) throw new Error(FilterError.notFound)
    f.lastPoll = this.#now()
    switch (f.kind) {
      case 'blocks': {
        const out = f.items.map(hex)
        f.items = []
        return out
      }
      case 'pendingTxs': {
        const out = f.items.map((t) => (typeof t === 'string' ? t : rpcTransaction(t)))
        f.items = []
        return out
      }
      case 'logs': {
        const out = f.items.map((l) => rpcLog(l, false))
        f.items = []
        return out
      }
    }
  }

  /** The criteria of a log filter (eth_getFilterLogs); `filter not found` for any other id. */
  criteria(id: string): FilterCriteria {
    const f = this.#filters.get(id)
    if (f === undefined || f.kind !== 'logs') throw new Error(FilterError.notFound)
    return f.crit
  }

  /** eth_uninstallFilter */
  uninstall(id: string): boolean {
    return this.#remove(id)
  }

  #remove(id: string): boolean {
    const f = this.#filters.get(id)
    if (f === undefined) return false
    this.#filters.delete(id)
    this.#quota.release(f.owner)
    return true
  }

  /** Remove filters not polled within the TTL; returns how many. */
  sweep(): number {
    const deadline = this.#now() - this.#ttl
    let n = 0
    for (const [id, f] of this.#filters) {
      if (f.lastPoll <= deadline) {
        this.#remove(id)
        n++
      }
    }
    return n
  }

  close(): void {
    for (const s of this.#subs.splice(0)) s.unsubscribe()
    if (this.#timer !== undefined) clearInterval(this.#timer)
    this.#timer = undefined
    for (const id of [...this.#filters.keys()]) this.#remove(id)
  }

  #install(f: Installed): string {
    const refused = this.#quota.take(f.owner)
    if (refused === 'total') throw new Error(FilterError.tooManyFilters)
    if (refused === 'client') {
      throw new Error(
        `too many filters from this client: the limit is ${this.#quota.perClient} per IP address (max-filters-per-ip)`,
      )
    }
    let id = newFilterId()
    while (this.#filters.has(id)) id = newFilterId()
    this.#filters.set(id, f)
    return id
  }

  #append<T>(items: T[], add: readonly T[]): T[] {
    for (const x of add) items.push(x)
    const over = items.length - this.#maxItems
    if (over > 0) items.splice(0, over)
    return items
  }

  #onAccepted(ev: AcceptedEvent): void {
    let all: FoundLog[] | undefined
    for (const f of this.#filters.values()) {
      if (f.kind === 'blocks') this.#append(f.items, [ev.hash])
      else if (f.kind === 'logs') {
        if (!bloomMatch(ev.header.bloom, f.crit)) continue
        all ??= blockLogs(ev.hash, ev.header.number, ev.receipts)
        const crit = f.crit
        const matched = all.filter((l) => criteriaMatch(l, crit))
        if (matched.length > 0) this.#append(f.items, matched)
      }
    }
  }

  #onPendingTx(hash: string): void {
    let tx: TypedTransaction | undefined | null = null
    for (const f of this.#filters.values()) {
      if (f.kind !== 'pendingTxs') continue
      if (!f.fullTx) {
        this.#append(f.items, [hash])
        continue
      }
      if (tx === null) tx = this.#backend.pool.get(hash)
      if (tx !== undefined) this.#append(f.items, [tx])
    }
  }
}

/** rpc.ID (a Go string: null decodes to ""). */
function filterId(v: unknown): string {
  if (v === null) return ''
  if (typeof v !== 'string')
    throw invalidArgument(0, `json: cannot unmarshal ${goJsonKind(v)} into Go value of type rpc.ID`)
  return v
}

/** The eth-filter namespace's methods over `filters`. */
export function filterMethods(backend: EthBackend, filters: FilterSystem): Array<[string, EthMethod]> {
  return [
    [
      'eth_getLogs',
      async (params) => {
        const crit = parseFilterCriteria(params[0], 0)
        checkArity(params, 1, 1)
        if (crit.topics.length > MAX_TOPICS) throw new Error(FilterError.exceedMaxTopics)
        if (crit.addresses.length > MAX_ADDRESSES) throw new Error(FilterError.exceedMaxAddresses)
        if (crit.blockHash === undefined) {
          const begin = crit.fromBlock ?? BlockNum.latest
          const end = crit.toBlock ?? BlockNum.latest
          if (begin > 0n && end > 0n && begin > end) throw new Error(FilterError.invalidBlockRange)
        }
        return (await queryLogs(backend, crit)).map((l) => rpcLog(l, false))
      },
    ],
    [
      'eth_newFilter',
      (params, ctx) => {
        const crit = parseFilterCriteria(params[0], 0)
        checkArity(params, 1, 1)
        return filters.newLogFilter(crit, clientKey(ctx.remoteAddress))
      },
    ],
    [
      'eth_newBlockFilter',
      (params, ctx) => {
        checkArity(params, 0, 0)
        return filters.newBlockFilter(clientKey(ctx.remoteAddress))
      },
    ],
    [
      'eth_newPendingTransactionFilter',
      (params, ctx) => {
        const v = params[0]
        const fullTx = v === undefined || v === null ? false : parseBool(v, 0)
        checkArity(params, 0, 1)
        return filters.newPendingTxFilter(fullTx, clientKey(ctx.remoteAddress))
      },
    ],
    [
      'eth_getFilterChanges',
      (params) => {
        const id = params.length > 0 ? filterId(params[0]) : ''
        checkArity(params, 1, 1)
        return filters.changes(id)
      },
    ],
    [
      'eth_getFilterLogs',
      async (params) => {
        const id = params.length > 0 ? filterId(params[0]) : ''
        checkArity(params, 1, 1)
        const crit = filters.criteria(id)
        return (await queryLogs(backend, crit)).map((l) => rpcLog(l, false))
      },
    ],
    [
      'eth_uninstallFilter',
      (params) => {
        const id = params.length > 0 ? filterId(params[0]) : ''
        checkArity(params, 1, 1)
        return filters.uninstall(id)
      },
    ],
  ]
}
