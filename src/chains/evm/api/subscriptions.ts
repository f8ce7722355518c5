/**
 * The `eth-filter` namespace's WebSocket subscriptions (coreth eth/filters/api.go, reference cchain.md 3.6):
 * newHeads (the header JSON of each accepted block), logs (geth's criteria; numeric fromBlock/toBlock bound the
 * logs as coreth's filterLogs does), newPendingTransactions (optional bool fullTx: hashes or the pool tx as a
 * pending RPC transaction) and newAcceptedTransactions (optional fullTx, given as a bool as coreth decodes it
 * or as `{"fullTx":bool}` as the reference documents it: each tx of each accepted block).
 *
 * Arguments are numbered after the subscription name, as geth does (`invalid argument 1: ...`). Results are
 * pushed synchronously from the backend's streams; nothing is buffered here (the connection drops a slow
 * subscriber itself).
 */
import { createTxFromBlockBodyData, type TypedTransaction } from '@ethereumjs/tx'
import { filter, map, mergeMap, type Observable, share } from 'rxjs'
import { checkArity, goJsonKind, invalidArgument } from '../../../rpc/eth-args.js'
import type { SubscriptionStart, SubscriptionTable } from '../../../rpc/eth-types.js'
import { headerJson } from '../rules/header-json.js'
import type { EthBackend } from './backend.js'
import { acceptedLogs, checkLogCriteria, parseFilterCriteria } from './filter-criteria.js'
import { rpcLog, rpcTransaction } from './format.js'
import { hex, parseBool } from './hexutil.js'

/** Subscribe `push` to `source$`; the stop function unsubscribes. */
function run(source$: Observable<unknown>, push: (result: unknown) => void): () => void {
  const sub = source$.subscribe({ next: push })
  return () => sub.unsubscribe()
}

/** `*bool` (coreth) or `{"fullTx": bool}` (reference docs) at argument `index`; absent or null = false. */
function fullTxOption(v: unknown, index: number, allowObject: boolean): boolean {
  if (v === undefined || v === null) return false
  if (allowObject && typeof v === 'object' && !Array.isArray(v)) {
    const f = (v as Record<string, unknown>).fullTx
    if (f === undefined || f === null) return false
    if (typeof f !== 'boolean')
      throw invalidArgument(index, `json: cannot unmarshal ${goJsonKind(f)} into Go value of type bool`)
    return f
  }
  return parseBool(v, index)
}

export function ethSubscriptions(backend: EthBackend): SubscriptionTable {
  // one header JSON per block for every newHeads subscriber (the server encodes a shared result once)
  const heads$ = backend.accepted$.pipe(
    map((ev) => headerJson(ev.header, ev.hash)),
    share(),
  )
  const newHeads: SubscriptionStart = (params, push) => {
    checkArity(params, 0, 0, 1)
    return run(heads$, push)
  }

  const logs: SubscriptionStart = (params, push) => {
    const crit = parseFilterCriteria(params[0], 1)
    checkArity(params, 1, 1, 1)
    checkLogCriteria(backend.config.allowUnfinalizedQueries, crit)
    return run(
      backend.accepted$.pipe(
        mergeMap((ev) => acceptedLogs(ev, crit)),
        map((l) => rpcLog(l, false)),
      ),
      push,
    )
  }

  const newPendingTransactions: SubscriptionStart = (params, push) => {
    const fullTx = fullTxOption(params[0], 1, false)
    checkArity(params, 0, 1, 1)
    if (!fullTx) return run(backend.pendingTx$, push)
    return run(
      backend.pendingTx$.pipe(
        map((hash) => backend.pool.get(hash)),
        filter((tx): tx is TypedTransaction => tx !== undefined),
        map((tx) => rpcTransaction(tx)),
      ),
      push,
    )
  }

  const newAcceptedTransactions: SubscriptionStart = (params, push) => {
    const fullTx = fullTxOption(params[0], 1, true)
    checkArity(params, 0, 1, 1)
    if (!fullTx) return run(backend.accepted$.pipe(mergeMap((ev) => ev.receipts.map((r) => hex(r.txHash)))), push)
    const common = backend.core.common
    return run(
      backend.accepted$.pipe(
        mergeMap((ev) => ev.txs),
        map((raw) => rpcTransaction(createTxFromBlockBodyData(raw, { common }))),
      ),
      push,
    )
  }

  return { newHeads, logs, newPendingTransactions, newAcceptedTransactions }
}
