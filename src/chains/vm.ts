/**
 * The chain VM interface: what a chain runs, shaped like the reference's Snowman VMs (snow/engine/snowman/block
 * `ChainVM` and `common.VM`). Firn's EVM is one VM behind it (src/chains/evm/chain-vm.ts); plugin VMs are
 * JavaScript modules in `--plugin-dir` whose default export is a {@link VmFactory}. Consensus wraps any VM the way
 * proposervm does (src/chains/snowman/signed-blocks.ts: the proposer's signature and window around the VM's own
 * blocks); the chain actor drives it; the HTTP layer only routes to the handlers it hands over.
 *
 * A VM never imports src/api or src/network: it gets what it needs in its {@link ChainVmContext}.
 */
import type { AbstractLevel, AbstractSublevel } from 'abstract-level'
import type { Observable } from 'rxjs'
import type { EthHandlers } from '../rpc/eth-types.js'
import type { RpcService } from '../rpc/service.js'
import type { ChainSharedMemory } from './shared-memory/shared-memory.js'

/**
 * The chain's own store: a sublevel of the node's LevelDB (the `abstract-level` API: get, put, del, batch,
 * iterator, sublevel), bytes keys and values by default. Nothing else writes under it.
 */
// biome-ignore lint/suspicious/noExplicitAny: a sublevel's parent type is any level; keys and values are bytes
export type ChainDatabase = AbstractLevel<any, Uint8Array, Uint8Array>

/**
 * A write that goes in the accepted block's own batch: a put into one of the chain's sublevels (the proposer's
 * signature), or (a VM's own, e.g. shared memory's) a put or delete in another sublevel of the node's database.
 */
export type ExtraWrite =
  // biome-ignore lint/suspicious/noExplicitAny: any sublevel of the node's database
  | { type?: 'put'; sublevel: AbstractSublevel<any, any, Uint8Array, Uint8Array>; key: Uint8Array; value: Uint8Array }
  // biome-ignore lint/suspicious/noExplicitAny: as above
  | { type: 'del'; sublevel: AbstractSublevel<any, any, Uint8Array, Uint8Array>; key: Uint8Array }

/** A VM's log: the chain's logger (its name is the chain's alias). */
export interface VmLogger {
  debug(msg: string, fields?: Record<string, unknown>): void
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
}

/** App messages to other validators of the chain (the app protocol), as the reference's `AppSender`. */
export interface AppSender {
  /** one request to one node; resolves with its answer, rejects with `AppError` (code, message) or a failure */
  request(nodeId: string, bytes: Uint8Array): Promise<Uint8Array>
  /** fire and forget to each connected node of `nodeIds` */
  gossip(nodeIds: readonly string[], bytes: Uint8Array): void
  /** the validators connected now (NodeIDs) */
  connected(): string[]
  /** the chain's validators and their stake (weights as bigint) */
  validators(): readonly { nodeId: string; weight: bigint }[]
}

/** An app request handler's refusal: reaches the requester as an AppError with this code and message. */
export class AppError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
    this.name = 'AppError'
  }
}

export interface ChainVmContext {
  networkId: number
  /** CB58 chain ID, and its primary alias (its declared name, `C`, or the ID itself) */
  chainId: string
  alias: string
  /** this node's NodeID */
  nodeId: string
  /** the chain's own store */
  db: ChainDatabase
  /** the chain's directory for files (a keystore, ...): `<data-dir>/chainData/<alias>` */
  dataDir: string
  log: VmLogger
  /** the chain's genesis, as declared (a JSON value; the EVM's is the reference's C-chain genesis JSON) */
  genesis: unknown
  /** the chain's config file's text (`<chain-config-dir>/<alias or ID>/config.json`); '' when there is none */
  config: string
  /** `--dev` (or `--dev-speed`): a VM may build faster than its production rules */
  dev: boolean
  /** app messages to the chain's other validators */
  app: AppSender
  /** the chain's view of the node's shared memory: atomic UTXOs between chains (the reference's SharedMemory) */
  sharedMemory?: ChainSharedMemory
  /** an alias or CB58 chain ID -> the chain ID (CB58); throws `there is no ID with alias: <a>` (the reference's BCLookup) */
  lookupChain?: (alias: string) => string
  /** the network's AVAX asset ID and X-chain ID (CB58), as the reference's snow.Context carries them */
  avaxAssetId?: string
  xChainId?: string
}

/** A block as the VM knows it: parsed, built or fetched. */
export interface VmBlock {
  /** the consensus ID: 0x-prefixed lowercase hex of 32 bytes */
  readonly id: string
  readonly parentId: string
  readonly height: number
  /** the block's time, unix ms */
  readonly timestampMs: number
  /** the block's bytes (consensus wraps them in Firn's signed container) */
  readonly bytes: Uint8Array
  /** the transactions the block holds, when the VM counts them (the dashboard's tx rate); optional for plugins */
  readonly txCount?: number
  /** checks the block against its parent (executes it); throws with the reason */
  verify(): Promise<void>
  /** the block is final: apply it; `extra` writes go in the same batch as the block (the proposer's signature) */
  accept(extra?: readonly ExtraWrite[]): Promise<void>
  /** the block lost: forget it */
  reject(): Promise<void>
}

/** One JSON-RPC endpoint a VM serves under `/ext/bc/<chain>`: geth's dialect or the node APIs' (gorilla). */
export type VmHandler =
  | { kind: 'eth'; handlers: EthHandlers; limits?: EthLimits }
  | { kind: 'jsonrpc'; services: RpcService[]; underscoreNames?: boolean }

/** The EVM's server limits (its chain config keys), for the eth dialect. */
export interface EthLimits {
  batchRequestLimit?: number
  batchResponseMaxSize?: number
  apiMaxDurationMs?: number
  httpBodyLimit?: number
  /** coreth's CPU budget of a WebSocket connection (ws-cpu-refill-rate, ws-cpu-max-stored), ms */
  wsCpuRefillRateMs?: number
  wsCpuMaxStoredMs?: number
  /** open /ws connections in all and per client IP (0 = no cap) */
  wsMaxConnections?: number
  wsMaxConnectionsPerIp?: number
  /** eth_subscribe subscriptions over all /ws connections, in all and per client IP (0 = no cap) */
  wsMaxSubscriptions?: number
  wsMaxSubscriptionsPerIp?: number
}

export interface ChainVm {
  /** opens the chain at its last accepted block (from genesis on first start) */
  initialize(ctx: ChainVmContext): Promise<void>
  /** a block on the preferred block with what waits; undefined when there is nothing to build */
  buildBlock(): Promise<VmBlock | undefined>
  /** throws when the bytes are not a block of this chain */
  parseBlock(bytes: Uint8Array): Promise<VmBlock>
  /** a processing or accepted block */
  getBlock(id: string): Promise<VmBlock | undefined>
  /** the block new blocks build on */
  setPreference(id: string): void
  /** the chain's phase (the reference's SetState): gossip and the like run only in normal operation */
  setState?(state: 'bootstrapping' | 'normalOp'): void
  lastAccepted(): { id: string; height: number }
  /** the accepted block at `height`, if any */
  acceptedIdAt(height: number): Promise<string | undefined>
  /**
   * Optional: when a child of `parentId` (a processing or the last accepted block) may be built at the earliest,
   * unix ms. The builders (Snowman's proposer-slot builder, a lone validator's producer) wait for it before they
   * build; without it a block may follow its parent at once. The EVM answers with its ACP-226 minimum delay and
   * ACP-176 capacity refill.
   */
  nextBuildTimeMs?(parentId: string): number
  /** emits whenever work arrives to build (the reference's PendingTxs) */
  readonly pending$: Observable<void>
  /** work waits to be built now */
  hasPending(): boolean
  /** app messages of other validators (throw AppError to answer with one) */
  appRequest?(from: string, bytes: Uint8Array): Promise<Uint8Array>
  appGossip?(from: string, bytes: Uint8Array): void
  /** what `/ext/health` reports for the chain (JSON-safe); throws when unhealthy */
  health(): Promise<unknown>
  /** the handlers it serves, by path under `/ext/bc/<chain>`: '/rpc', '/ws', '/admin', '/kv' ... */
  createHandlers(): Promise<Record<string, VmHandler>>
  shutdown(): Promise<void>
}

/** A plugin module's default export (and the built-in EVM's): makes one VM per chain that runs it. */
export interface VmFactory {
  /** `v1.2.3`, what `info.getNodeVersion` reports in `vmVersions` */
  version: string
  /** more names for the VM; the first is its primary alias (`vmVersions`' key), else its ID is */
  aliases?: string[]
  /** a new VM, not initialized: no IO here (loading a plugin calls it once to check what it makes, then drops it) */
  createVM(): ChainVm | Promise<ChainVm>
}

const CHAIN_VM_METHODS = [
  'initialize',
  'buildBlock',
  'parseBlock',
  'getBlock',
  'setPreference',
  'lastAccepted',
  'acceptedIdAt',
  'hasPending',
  'health',
  'createHandlers',
  'shutdown',
] as const

/** Why `vm` does not implement {@link ChainVm}, or null when it does (a plugin's createVM() result is checked). */
export function chainVmProblem(vm: unknown): string | null {
  if (typeof vm !== 'object' || vm === null) return 'createVM() did not return an object'
  const missing = CHAIN_VM_METHODS.filter((m) => typeof (vm as Record<string, unknown>)[m] !== 'function')
  if (missing.length > 0) return `the VM has no ${missing.join(', ')} method${missing.length > 1 ? 's' : ''}`
  const pending = (vm as { pending$?: { subscribe?: unknown } }).pending$
  if (typeof pending?.subscribe !== 'function') return 'the VM has no pending$ Observable'
  return null
}
