/**
 * The pool's upkeep after adds and accepted blocks (geth legacypool's runReorg pieces): promote queued txs that
 * became executable, demote or drop pending txs that no longer are, keep the pending and queued totals within
 * their global limits, and evict queued txs of senders idle longer than the lifetime.
 */
import type { PoolTx } from './entry.js'
import type { AccountState, PoolState } from './state.js'

/** Promotes the executable queued txs of `addrs`; drops stale, unpayable and over-cap ones. Returns the promoted. */
export function promoteExecutables(
  s: PoolState,
  addrs: Iterable<string>,
  accounts: ReadonlyMap<string, AccountState>,
  gasLimit: bigint,
): PoolTx[] {
  const promoted: PoolTx[] = []
  for (const addr of addrs) {
    const list = s.queue.get(addr)
    const account = accounts.get(addr)
    if (list === undefined || account === undefined) continue
    for (const tx of list.forward(account.nonce)) s.untrack(tx)
    for (const tx of list.filter(account.balance, gasLimit).removed) s.untrack(tx)
    for (const tx of list.ready(s.pendingNonce(addr, account.nonce))) {
      if (s.promote(tx)) promoted.push(tx)
    }
    if (!s.locals.has(addr)) {
      for (const tx of list.cap(s.config.accountQueue)) s.untrack(tx)
    }
    if (list.size === 0) {
      s.queue.delete(addr)
      s.beats.delete(addr)
    }
  }
  return promoted
}

/** After a block: drops included (low nonce) and unpayable pending txs, queues again what lost its predecessor. */
export function demoteUnexecutables(s: PoolState, accounts: ReadonlyMap<string, AccountState>, gasLimit: bigint): void {
  for (const [addr, list] of [...s.pending]) {
    const account = accounts.get(addr)
    if (account === undefined) continue
    for (const tx of list.forward(account.nonce)) s.untrack(tx)
    const { removed, invalids } = list.filter(account.balance, gasLimit)
    for (const tx of removed) s.untrack(tx)
    for (const tx of invalids) s.requeue(tx)
    if (list.size > 0 && !list.has(account.nonce)) {
      for (const tx of list.cap(0)) s.requeue(tx)
    }
    if (list.size === 0) s.pending.delete(addr)
  }
}

/** Resets every pending sender's virtual nonce to just past its last pending tx. */
export function resetPendingNonces(s: PoolState): void {
  s.pendingNonces.clear()
  for (const [addr, list] of s.pending) {
    const last = list.last()
    if (last !== undefined) s.pendingNonces.set(addr, last.nonce + 1n)
  }
}

/**
 * Above `globalSlots` pending txs: trims the senders holding more than `accountSlots` (never locals), the biggest
 * first, evening them out one tx at a time, down to `accountSlots` each at most.
 */
export function truncatePending(s: PoolState): void {
  const { globalSlots, accountSlots } = s.config
  let pending = 0
  for (const list of s.pending.values()) pending += list.size
  if (pending <= globalSlots) return
  const spammers = [...s.pending]
    .filter(([addr, list]) => !s.locals.has(addr) && list.size > accountSlots)
    .sort((a, b) => b[1].size - a[1].size)
    .map(([addr]) => addr)
  const dropLast = (addr: string) => {
    const list = s.pending.get(addr)
    if (list === undefined) return
    for (const tx of list.cap(list.size - 1)) {
      s.untrack(tx)
      s.lowerPendingNonce(addr, tx.nonce)
    }
    pending--
  }
  const size = (addr: string | undefined) => (addr === undefined ? 0 : (s.pending.get(addr)?.size ?? 0))
  const offenders: string[] = []
  for (const offender of spammers) {
    if (pending <= globalSlots) break
    offenders.push(offender)
    if (offenders.length < 2) continue
    const threshold = size(offender)
    while (pending > globalSlots && size(offenders[offenders.length - 2]) > threshold) {
      for (const addr of offenders.slice(0, -1)) dropLast(addr)
    }
  }
  if (pending > globalSlots && offenders.length > 0) {
    while (pending > globalSlots && size(offenders[offenders.length - 1]) > accountSlots) {
      for (const addr of offenders) dropLast(addr)
    }
  }
}

/** Above `globalQueue` queued txs: drops whole queues (or their highest nonces) of the longest-idle remote senders. */
export function truncateQueue(s: PoolState): void {
  let queued = 0
  for (const list of s.queue.values()) queued += list.size
  if (queued <= s.config.globalQueue) return
  const byAge = [...s.queue.keys()]
    .filter((addr) => !s.locals.has(addr))
    .sort((a, b) => (s.beats.get(a) ?? 0) - (s.beats.get(b) ?? 0))
  let drop = queued - s.config.globalQueue
  for (const addr of byAge) {
    if (drop <= 0) break
    const txs = s.queue.get(addr)?.flatten() ?? []
    if (txs.length <= drop) {
      for (const tx of txs) s.remove(tx.hash)
      drop -= txs.length
      continue
    }
    for (let i = txs.length - 1; i >= 0 && drop > 0; i--, drop--) s.remove(txs[i]!.hash)
  }
}

/** Drops the queued txs of remote senders idle for longer than the lifetime. Returns how many went. */
export function evictExpired(s: PoolState): number {
  const now = s.now()
  let evicted = 0
  for (const addr of [...s.queue.keys()]) {
    if (s.locals.has(addr)) continue
    if (now - (s.beats.get(addr) ?? now) > s.config.lifetimeMs) {
      for (const tx of s.queue.get(addr)?.flatten() ?? []) {
        s.remove(tx.hash)
        evicted++
      }
    }
  }
  return evicted
}
