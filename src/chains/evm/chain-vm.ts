/**
 * Firn's EVM as a chain VM (src/chains/vm.ts): `EvmVm` (core + pool + chain rules) behind the interface every
 * chain runs, with its Ethereum API as its handlers and its tx gossip as its app messages.
 *
 * - initialize: the chain config text parsed with the reference's keys, defaults and Go decoding texts (the node
 *   reads `<chain-config-dir>/<chain>/config.json`), its `log-level` applied, the `eth-apis` checked, the preset
 *   resolved from the genesis (chain-genesis.ts), the chain opened on `ctx.db`, the keystore under
 *   `ctx.dataDir/keystore` unless `keystore-directory` says otherwise, the tx gossiper over `ctx.app`.
 * - blocks: `EvmBlock` (chain-block.ts); a build that holds no tx is dropped (`undefined`: nothing to build).
 * - `nextBuildTimeMs(parentId)`: the ACP-226 minimum delay and the ACP-176 capacity refill (the builders respect it).
 * - handlers: `/rpc` and `/ws` (geth's dialect, the config's server limits), `/admin` when `admin-api-enabled`.
 * - gossip runs in normal operation only (`setState`), and stops at shutdown.
 *
 * What the node wires in (tx admission through the chain actor, the chain's profiler actor, the log levels) comes
 * in as options, per chain if a function of the chain's context.
 */
import { join } from 'node:path'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { defer, map, merge, type Observable } from 'rxjs'
import type { AnyActorRef } from 'xstate'
import { SEMVER } from '../../config/version.js'
import type { LogLevel } from '../../log/levels.js'
import type { AskStatsSink } from '../../runtime/ask.js'
import type { ChainVm, ChainVmContext, VmBlock, VmFactory, VmHandler } from '../vm.js'
import { parseEvmLogLevel } from './api/admin.js'
import { checkServiceNames, DEV_EXTRA_SERVICES, type ServiceName } from './api/apis.js'
import { type AtomicTxApi, atomicServices } from './api/atomic.js'
import type { SubmitTransaction } from './api/backend.js'
import { createEvmHandlers, type EvmHandlers } from './api/handlers.js'
import type { AtomicBackend } from './atomic/backend.js'
import { atomicFactory } from './atomic/context.js'
import type { DecodedTx } from './atomic/ids.js'
import { AlreadyKnownError } from './atomic/mempool.js'
import { EvmBlock } from './chain-block.js'
import { type EvmPresetFromGenesis, resolveEvmPreset } from './chain-genesis.js'
import { DEFAULT_ETH_APIS } from './config/keys.js'
import { type EvmConfig, evmConfigToVmConfig, parseEvmConfig, resolveEthApis } from './config.js'
import { AtomicGossiper } from './gossip/atomic.js'
import { TxGossiper } from './gossip/gossiper.js'
import type { TxGossipConfig } from './gossip/types.js'
import { ATOMIC_TX_GOSSIP_HANDLER_ID, splitHandlerPrefix } from './gossip/wire.js'
import { decodeBlock } from './header.js'
import { Keystore } from './keystore/keystore.js'
import type { ChainDb } from './store/chain-store.js'
import { EvmVm } from './vm.js'

export interface EvmChainVmOptions {
  /** the EVM genesis JSON -> preset parser; a preset genesis (`presetGenesis`) needs none */
  presetFromGenesis?: EvmPresetFromGenesis
  /** the tx admission behind eth_sendRawTransaction and the keystore's sends (the chain actor's
   * `chain.submitTxs`, src/node/tx-admission.ts); the pool's own when absent */
  submitTransaction?: SubmitTransaction
  /** the same for `avax.issueTx` (an atomic tx into the atomic mempool); `admitAtomicTx` when absent */
  submitAtomicTx?: (d: DecodedTx) => Promise<unknown>
  /** the chain admin API's profiler actor (`profiler:<alias>`) */
  profiler?: () => AnyActorRef | undefined
  askStats?: AskStatsSink
  /** sets the chain logger's levels: the config's `log-level` at start, the admin API's setLogLevel later */
  setLogLevels?: (levels: { logLevel: LogLevel; displayLevel?: LogLevel }) => void
  /** the `--dev` extra services (default: `ctx.dev`; `--dev-speed` takes the timing without them) */
  devServices?: boolean
  /** `web3_clientVersion` (default `v<SEMVER>`) */
  clientVersion?: string
  now?: () => number
  gossip?: Partial<TxGossipConfig>
}

/** Options for every chain, or per chain (resolved at `initialize`). */
export type EvmChainVmOptionsFor = EvmChainVmOptions | ((ctx: ChainVmContext) => EvmChainVmOptions)

/** a block ID as the interface spells it: 0x and 32 bytes of lowercase hex */
const BLOCK_ID = /^0x[0-9a-f]{64}$/

interface Opened {
  ctx: ChainVmContext
  opts: EvmChainVmOptions
  evm: EvmVm
  config: EvmConfig
  services: Set<ServiceName>
  keystore: Keystore
  gossiper: TxGossiper
  atomicGossiper: AtomicGossiper | undefined
  evictTimer: NodeJS.Timeout
}

export class EvmChainVm implements ChainVm {
  #opened: Opened | undefined
  #handlers: EvmHandlers | undefined
  #closed = false
  /** txs that became executable in the pool (subscribe after initialize) */
  readonly pending$: Observable<void> = defer(() => {
    const { evm } = this.#open()
    return evm.atomic === undefined ? evm.pendingTx$ : merge(evm.pendingTx$, evm.atomic.mempool.added$)
  }).pipe(map(() => undefined))

  constructor(private readonly options: EvmChainVmOptionsFor = {}) {}

  /** the open EVM (after initialize): its pool, core and RPC backend */
  get evm(): EvmVm {
    return this.#open().evm
  }

  /** the parsed chain config (after initialize) */
  get config(): EvmConfig {
    return this.#open().config
  }

  #open(): Opened {
    if (this.#opened === undefined) throw new Error('the EVM is not initialized')
    return this.#opened
  }

  async initialize(ctx: ChainVmContext): Promise<void> {
    if (this.#opened !== undefined) throw new Error('the EVM is already initialized')
    const opts = typeof this.options === 'function' ? this.options(ctx) : this.options
    const config = parseEvmConfig(ctx.config, { networkId: ctx.networkId })
    opts.setLogLevels?.({ logLevel: parseEvmLogLevel(config.logLevel) })
    const names = resolveEthApis(config.ethApis)
    const isDefaultList =
      config.ethApis.length === DEFAULT_ETH_APIS.length && DEFAULT_ETH_APIS.every((n) => names.has(n))
    if ((opts.devServices ?? ctx.dev) && isDefaultList) for (const n of DEV_EXTRA_SERVICES) names.add(n)
    const services = checkServiceNames(names)
    const preset = resolveEvmPreset(ctx.genesis, { networkId: ctx.networkId, dev: ctx.dev }, opts.presetFromGenesis)
    const atomic = atomicFactory(ctx)
    const evm = await EvmVm.open({
      db: ctx.db as unknown as ChainDb,
      preset,
      config,
      clientVersion: opts.clientVersion ?? `v${SEMVER}`,
      ...(opts.now === undefined ? {} : { now: opts.now }),
      ...(atomic === undefined ? {} : { atomic }),
    })
    const tip = evm.lastAccepted()
    ctx.log.info(`${ctx.alias} chain opened`, {
      chainID: Number(preset.chainId),
      height: Number(tip.header.number),
      hash: Buffer.from(tip.hash).toString('hex'),
      pruning: config.pruningEnabled,
      services: [...services].join(','),
    })
    const keystore = new Keystore(
      config.keystoreDirectory === '' ? join(ctx.dataDir, 'keystore') : config.keystoreDirectory,
    )
    const { app } = ctx
    const transport = {
      self: ctx.nodeId,
      validators: () => app.validators(),
      connectedNodeIds: () => app.connected(),
      appGossip: (ids: readonly string[], bytes: Uint8Array) => app.gossip(ids, bytes),
      appRequest: (id: string, bytes: Uint8Array) => app.request(id, bytes),
    }
    const gossiper = new TxGossiper({
      vm: evm,
      log: ctx.log,
      transport,
      ...(opts.gossip === undefined ? {} : { config: opts.gossip }),
    })
    const atomicGossiper =
      evm.atomic === undefined
        ? undefined
        : new AtomicGossiper({ mempool: evm.atomic.mempool, admit: (d) => evm.issueAtomicTx(d, false), transport })
    const evictTimer = setInterval(() => evm.pool.evictExpired(), 60_000)
    evictTimer.unref()
    this.#opened = { ctx, opts, evm, config, services, keystore, gossiper, atomicGossiper, evictTimer }
  }

  // ---- blocks ------------------------------------------------------------------------------------------------

  async buildBlock(): Promise<VmBlock | undefined> {
    const { evm } = this.#open()
    const built = await evm.buildBlock()
    if (built.txs.length === 0 && built.atomic.length === 0) {
      await evm.rejectBlock(built.hash)
      return undefined
    }
    return new EvmBlock(evm, built.hash, built.header, built.rlp, built.txs.length)
  }

  async parseBlock(bytes: Uint8Array): Promise<VmBlock> {
    return EvmBlock.parse(this.#open().evm, bytes)
  }

  async getBlock(id: string): Promise<VmBlock | undefined> {
    const { evm } = this.#open()
    if (!BLOCK_ID.test(id)) return undefined
    const pending = evm.core.executor.pending.get(id)
    if (pending !== undefined) {
      return new EvmBlock(evm, pending.hash, pending.header, pending.rlp, pending.txs.length)
    }
    const hash = hexToBytes(id as `0x${string}`)
    const rlp = await evm.core.store.getBlock(hash)
    if (rlp === undefined) return undefined
    const { header, txs } = decodeBlock(rlp)
    return new EvmBlock(evm, hash, header, rlp, txs.length)
  }

  setPreference(id: string): void {
    this.#open().evm.setPreference(hexToBytes(id as `0x${string}`))
  }

  lastAccepted(): { id: string; height: number } {
    const { hash, header } = this.#open().evm.core.lastAccepted()
    return { id: bytesToHex(hash), height: Number(header.number) }
  }

  async acceptedIdAt(height: number): Promise<string | undefined> {
    const hash = await this.#open().evm.core.store.canonicalHash(BigInt(height))
    return hash === undefined ? undefined : bytesToHex(hash)
  }

  /** When a child of `parentId` may be built (unix ms): the ACP-226 minimum delay, the ACP-176 capacity refill. */
  nextBuildTimeMs(parentId: string): number {
    return this.#open().evm.nextBuildTime(hexToBytes(parentId as `0x${string}`))
  }

  hasPending(): boolean {
    return this.#open().evm.hasPendingTxs()
  }

  /** Admits a transaction into the pool (what the chain actor's admission runs once it said yes). */
  admitTransaction: SubmitTransaction = (tx) => this.#open().evm.submitTransaction(tx)

  /** Admits an atomic tx into the atomic mempool, as `issueTx` does: one already pending is no error. */
  admitAtomicTx = async (d: DecodedTx): Promise<void> => {
    try {
      await this.#open().evm.issueAtomicTx(d, true)
    } catch (err) {
      if (!(err instanceof AlreadyKnownError)) throw err
    }
  }

  // ---- phases and app messages -------------------------------------------------------------------------------

  setState(state: 'bootstrapping' | 'normalOp'): void {
    const { gossiper, atomicGossiper, evm } = this.#open()
    if (evm.atomic !== undefined) evm.atomic.bootstrapped = state === 'normalOp'
    if (state === 'normalOp' && !this.#closed) {
      gossiper.start()
      atomicGossiper?.start()
    } else {
      gossiper.stop()
      atomicGossiper?.stop()
    }
  }

  appRequest(from: string, bytes: Uint8Array): Promise<Uint8Array> {
    return this.#open().gossiper.onAppRequest(from, bytes)
  }

  /** handler 1 is atomic tx gossip (when the chain takes atomic txs); the rest is the EVM tx gossiper's */
  appGossip(from: string, bytes: Uint8Array): void {
    const { gossiper, atomicGossiper } = this.#open()
    if (atomicGossiper !== undefined) {
      let split: { handlerId: bigint; payload: Uint8Array } | undefined
      try {
        split = splitHandlerPrefix(bytes)
      } catch {
        split = undefined
      }
      if (split?.handlerId === ATOMIC_TX_GOSSIP_HANDLER_ID) {
        atomicGossiper.onPush(from, split.payload)
        return
      }
    }
    gossiper.onAppGossip(from, bytes)
  }

  /** the gossiper's counters, for tests and logs */
  get gossiper(): TxGossiper {
    return this.#open().gossiper
  }

  // ---- node ----------------------------------------------------------------------------------------------------

  async health(): Promise<unknown> {
    const { evm } = this.#open()
    const { hash, header } = evm.core.lastAccepted()
    const pool = evm.pool.stats()
    return {
      lastAccepted: {
        id: bytesToHex(hash),
        height: Number(header.number),
        ageSeconds: Math.max(0, Math.floor(evm.now() / 1000) - Number(header.time)),
      },
      pool: { pending: pool.pending, queued: pool.queued },
      ...(evm.atomic === undefined
        ? {}
        : { atomicMempool: { pending: evm.atomic.mempool.pendingCount, size: evm.atomic.mempool.size } }),
      processing: evm.core.executor.pending.size,
    }
  }

  async createHandlers(): Promise<Record<string, VmHandler>> {
    const { opts, evm, config, services, keystore } = this.#open()
    this.#handlers ??= createEvmHandlers({
      backend: evm,
      keystore,
      services,
      submitTransaction: opts.submitTransaction,
      admin: config.adminApiEnabled
        ? {
            profiler: () => opts.profiler?.(),
            setLogLevel: (level) => opts.setLogLevels?.({ logLevel: level, displayLevel: level }),
            vmConfig: () => evmConfigToVmConfig(config),
            ...(opts.askStats === undefined ? {} : { askStats: opts.askStats }),
          }
        : undefined,
    })
    const h = this.#handlers
    const limits = {
      batchRequestLimit: config.batchRequestLimit,
      batchResponseMaxSize: config.batchResponseMaxSize,
      apiMaxDurationMs: config.apiMaxDurationMs,
      httpBodyLimit: config.httpBodyLimit,
      wsCpuRefillRateMs: config.wsCpuRefillRateMs,
      wsCpuMaxStoredMs: config.wsCpuMaxStoredMs,
      wsMaxConnections: config.wsMaxConnections,
      wsMaxConnectionsPerIp: config.wsMaxConnectionsPerIp,
      wsMaxSubscriptions: config.wsMaxSubscriptions,
      wsMaxSubscriptionsPerIp: config.wsMaxSubscriptionsPerIp,
    }
    const { ctx } = this.#open()
    // the native-token API, where the node shares memory with the chain (`avax.*` at /avax, `native.*` at /native)
    const atomic =
      ctx.sharedMemory === undefined || ctx.lookupChain === undefined
        ? undefined
        : atomicServices({
            networkId: ctx.networkId,
            chainId: ctx.chainId,
            alias: ctx.alias,
            memory: ctx.sharedMemory,
            lookupChain: ctx.lookupChain,
            version: `v${SEMVER}`,
            ...(evm.atomic === undefined
              ? {}
              : { txs: atomicTxApi(evm, evm.atomic, opts.submitAtomicTx ?? this.admitAtomicTx) }),
          })
    return {
      '/rpc': { kind: 'eth', handlers: h.rpc, limits },
      '/ws': { kind: 'eth', handlers: h.rpc, limits },
      ...(h.admin === undefined ? {} : { '/admin': { kind: 'jsonrpc', services: h.admin, underscoreNames: true } }),
      ...(atomic === undefined
        ? {}
        : {
            '/avax': { kind: 'jsonrpc', services: [atomic.avax] },
            '/native': { kind: 'jsonrpc', services: [atomic.native] },
          }),
    }
  }

  async shutdown(): Promise<void> {
    if (this.#closed || this.#opened === undefined) return
    this.#closed = true
    const { evictTimer, gossiper, atomicGossiper, keystore, evm } = this.#opened
    clearInterval(evictTimer)
    gossiper.stop()
    atomicGossiper?.stop()
    this.#handlers?.close()
    keystore.close()
    evm.close()
  }
}

/** The API's view of the chain's atomic txs. */
function atomicTxApi(evm: EvmVm, atomic: AtomicBackend, submit: (d: DecodedTx) => Promise<unknown>): AtomicTxApi {
  const processing = () => evm.core.executor.pending.values()
  return {
    issue: async (d) => {
      await submit(d)
    },
    status: (id) => atomic.status(id, evm.core.lastAccepted().header.number, processing()),
    find: (id) => atomic.find(id, processing()),
  }
}

/** The built-in EVM's factory (`evm`), as a plugin's default export would be. */
export function evmVmFactory(options: EvmChainVmOptionsFor = {}): VmFactory {
  return { version: `v${SEMVER}`, aliases: ['evm'], createVM: () => new EvmChainVm(options) }
}
