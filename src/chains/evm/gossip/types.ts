/**
 * The shapes EVM tx gossip works with: the transport it sends through (the lead adapts the network's AppRequest /
 * AppGossip for the C chain to it), the narrow view of the VM and its pool it needs, its settings (the
 * reference's coreth defaults) and its counters.
 */
import type { Common } from '@ethereumjs/common'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { Observable } from 'rxjs'
import type { TxStatus } from '../txpool/pool.js'

export interface GossipTransport {
  /** this node's NodeID */
  readonly self: string
  /** the validator set (self included when it validates); weight 0 counts as not a validator */
  validators(): readonly { nodeId: string; weight: bigint }[]
  /** handshaken peers, not self */
  connectedNodeIds(): string[]
  /** AppGossip of `bytes` (app_bytes, handler prefix included) to each of `nodeIds` */
  appGossip(nodeIds: readonly string[], bytes: Uint8Array): void
  /** AppRequest; resolves to the AppResponse bytes, rejects on timeout or AppError (AppRequestError) */
  appRequest(nodeId: string, bytes: Uint8Array): Promise<Uint8Array>
}

/** What gossip reads and writes of the tx pool (TxPool fits). */
export interface GossipPool {
  readonly newPendingHashes: Observable<string>
  has(hash: string): boolean
  get(hash: string): TypedTransaction | undefined
  status(hash: string): TxStatus
  content(): {
    pending: ReadonlyMap<string, readonly { hash: string; tx: TypedTransaction }[]>
    queued: ReadonlyMap<string, readonly { hash: string; tx: TypedTransaction }[]>
  }
  stats(): { pending: number; queued: number }
  add(tx: TypedTransaction, opts?: { local?: boolean }): Promise<string>
}

/** What gossip needs of the VM (EvmVm fits): its pool and the chain's Common for decoding txs. */
export interface GossipVm {
  readonly pool: GossipPool
  readonly core: { readonly common: Common }
  /** accepted blocks' serialized txs: gossip of a tx already in a block is dropped before sender recovery */
  readonly accepted$?: { subscribe(f: (e: { txs: Uint8Array[] }) => void): { unsubscribe(): void } }
}

export interface TxGossipConfig {
  /** push new local txs this often (ms); 0 = no timer (pushNow only) */
  pushIntervalMs: number
  /** pull this often (ms) while we validate; 0 = no timer (pullNow only) */
  pullIntervalMs: number
  /** txs still pending that were last pushed this long ago are pushed again (ms) */
  regossipAfterMs: number
  /** push to the validators holding this share of stake (percent) ... */
  pushStakePercent: number
  /** ... plus up to this many other sampled connected validators */
  pushValidators: number
  /** regossip goes to this many sampled connected validators */
  regossipValidators: number
  /** encoded size cap of a push message, a regossip message and a pull answer (bytes) */
  targetMessageBytes: number
  /** the pull server's per-peer limit: this many requests per period */
  throttleLimit: number
  throttlePeriodMs: number
  /** received txs waiting to enter the pool; more are dropped */
  maxAdmissionBacklog: number
  /** local txs waiting for their first push; the oldest are forgotten beyond this */
  maxPushQueue: number
}

/** coreth's defaults (reference section 6). */
export const DEFAULT_TX_GOSSIP_CONFIG: Readonly<TxGossipConfig> = {
  pushIntervalMs: 100,
  pullIntervalMs: 1_000,
  regossipAfterMs: 30_000,
  pushStakePercent: 90,
  pushValidators: 100,
  regossipValidators: 10,
  targetMessageBytes: 20 * 1024,
  throttleLimit: 3_600,
  throttlePeriodMs: 3_600_000,
  maxAdmissionBacklog: 8_192,
  maxPushQueue: 65_536,
}

export interface TxGossipStats {
  /** first pushes: txs and messages */
  pushedTxs: number
  pushMessages: number
  regossipedTxs: number
  /** pull requests sent, failed (timeout, AppError, bad answer) and txs received in answers */
  pullRequests: number
  pullFailures: number
  pulledTxs: number
  /** txs received in push gossip (from validators) */
  pushReceivedTxs: number
  /** received txs: into the pool, already there, refused by the pool, undecodable, dropped (backlog full) */
  added: number
  alreadyKnown: number
  rejected: number
  invalid: number
  dropped: number
  /** pull server: answered, txs sent, refused as not a validator, throttled, bad requests */
  served: number
  servedTxs: number
  refusedNotValidator: number
  refusedThrottled: number
  badRequests: number
  /** AppGossip dropped: bad bytes, other handler, from a non-validator, while stopped */
  ignoredGossip: number
}

export function emptyStats(): TxGossipStats {
  return {
    pushedTxs: 0,
    pushMessages: 0,
    regossipedTxs: 0,
    pullRequests: 0,
    pullFailures: 0,
    pulledTxs: 0,
    pushReceivedTxs: 0,
    added: 0,
    alreadyKnown: 0,
    rejected: 0,
    invalid: 0,
    dropped: 0,
    served: 0,
    servedTxs: 0,
    refusedNotValidator: 0,
    refusedThrottled: 0,
    badRequests: 0,
    ignoredGossip: 0,
  }
}
