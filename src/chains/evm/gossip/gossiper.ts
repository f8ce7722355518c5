/**
 * EVM mempool gossip as coreth runs it (reference section 6), on handler 0 of the p2p SDK:
 * - push: the txs submitted locally that became pending and were not pushed yet, in messages of at most 20 KiB,
 *   to the validators holding the top 90 % of stake plus up to 100 sampled connected validators; at most one such
 *   push per 100 ms as coreth's ticker, but on the leading edge (a tx queued 100 ms after the last push goes out on
 *   the next turn); every 100 ms, txs pending and last pushed >= 30 s ago go again (one message) to 10 validators.
 *   "Local" = every tx the pool announces as pending that did not come in by gossip.
 * - pull: every 1 s, if this node validates, an AppRequest to one random connected validator carrying a bloom
 *   filter of the pool's pending and queued hashes; the answer's txs enter the pool as remote txs.
 * - serving: pull requests only from validators (-3), at most 3600 per peer per hour (-4), bad bytes -1;
 *   answered with <= 20 KiB of pending txs the requester's filter does not hold.
 * Gossip from non-validators is dropped; received txs are never pushed on. Nothing runs until `start`
 * (the lead starts it at normal operation); before that requests get -2 "unregistered handler".
 */
import { randomBytes as cryptoRandomBytes } from 'node:crypto'
import { bytesToHex } from '@ethereumjs/util'
import { sha256 } from '@noble/hashes/sha2.js'
import { keccak_256 } from '@noble/hashes/sha3.js'
import type { Subscription } from 'rxjs'
import { BloomFilter, type RandomBytes } from '../../../../protocols/peers/bloom.js'
import type { VmLogger as Logger } from '../../vm.js'
import { TxAdmission } from './admission.js'
import { type GossipCandidate, knownTxsFilter, selectUnknown } from './pull.js'
import { connectedValidators, isValidator, pushTargets, sample } from './targets.js'
import { SlidingWindowThrottler } from './throttler.js'
import {
  DEFAULT_TX_GOSSIP_CONFIG,
  emptyStats,
  type GossipTransport,
  type GossipVm,
  type TxGossipConfig,
  type TxGossipStats,
} from './types.js'
import {
  AppRequestError,
  appError,
  batchBySize,
  decodePullRequest,
  decodePullResponse,
  decodePushGossip,
  encodedItemSize,
  encodePullRequest,
  encodePullResponse,
  encodePushGossip,
  splitHandlerPrefix,
  TX_GOSSIP_HANDLER_ID,
  withHandlerPrefix,
} from './wire.js'

export interface TxGossiperDeps {
  vm: GossipVm
  transport: GossipTransport
  log: Logger
  /** ms clock for regossip ages and the pull throttle (default Date.now) */
  now?: () => number
  /** uniform [0, 1) for peer sampling (default Math.random) */
  random?: () => number
  /** bloom seeds and salts (default crypto.randomBytes) */
  randomBytes?: RandomBytes
  config?: Partial<TxGossipConfig>
}

interface Outgoing {
  hash: string
  bytes: Uint8Array
}

export class TxGossiper {
  readonly config: Readonly<TxGossipConfig>
  readonly #vm: GossipVm
  readonly #transport: GossipTransport
  readonly #log: Logger
  readonly #now: () => number
  readonly #random: () => number
  readonly #randomBytes: RandomBytes
  readonly #throttler: SlidingWindowThrottler
  readonly #admission: TxAdmission
  readonly #stats = emptyStats()
  /** local txs waiting for their first push (insertion order) */
  readonly #toPush = new Set<string>()
  /** pushed txs and when they were last pushed, oldest first */
  readonly #pushed = new Map<string, number>()
  #started = false
  #subscription: Subscription | undefined
  #acceptedSub: { unsubscribe(): void } | undefined
  #timers: ReturnType<typeof setInterval>[] = []
  /** the next first-push, when one is scheduled */
  #freshTimer: ReturnType<typeof setTimeout> | undefined
  /** when the last first-push went out (ms, `now`) */
  #lastFreshAt = Number.NEGATIVE_INFINITY
  #pulling = false

  constructor(deps: TxGossiperDeps) {
    this.config = { ...DEFAULT_TX_GOSSIP_CONFIG, ...deps.config }
    this.#vm = deps.vm
    this.#transport = deps.transport
    this.#log = deps.log
    this.#now = deps.now ?? Date.now
    this.#random = deps.random ?? Math.random
    this.#randomBytes = deps.randomBytes ?? ((n) => new Uint8Array(cryptoRandomBytes(n)))
    this.#throttler = new SlidingWindowThrottler(this.config.throttlePeriodMs, this.config.throttleLimit, this.#now)
    this.#admission = new TxAdmission(
      deps.vm.pool,
      deps.vm.core.common,
      this.#stats,
      deps.log,
      this.config.maxAdmissionBacklog,
    )
  }

  get started(): boolean {
    return this.#started
  }

  /** A snapshot of the counters. */
  stats(): TxGossipStats {
    return { ...this.#stats }
  }

  /** Starts the timers; local txs already pending are queued for their first push. */
  start(): void {
    if (this.#started) return
    this.#started = true
    const pool = this.#vm.pool
    for (const txs of pool.content().pending.values()) for (const { hash } of txs) this.#queueLocal(hash)
    this.#subscription = pool.newPendingHashes.subscribe((hash) => this.#queueLocal(hash))
    this.#acceptedSub = this.#vm.accepted$?.subscribe((e) =>
      this.#admission.markIncluded(e.txs.map((raw) => bytesToHex(keccak_256(raw)))),
    )
    const { pushIntervalMs, pullIntervalMs } = this.config
    if (pushIntervalMs > 0) this.#timers.push(setInterval(() => this.#tick(), pushIntervalMs))
    this.#pushSoon()
    if (pullIntervalMs > 0) this.#timers.push(setInterval(() => void this.pullNow(), pullIntervalMs))
  }

  stop(): void {
    if (!this.#started) return
    this.#started = false
    for (const t of this.#timers) clearInterval(t)
    this.#timers = []
    clearTimeout(this.#freshTimer)
    this.#freshTimer = undefined
    this.#subscription?.unsubscribe()
    this.#subscription = undefined
    this.#acceptedSub?.unsubscribe()
    this.#acceptedSub = undefined
  }

  /** Resolves once every received tx queued so far has been tried against the pool. */
  idle(): Promise<void> {
    return this.#admission.idle()
  }

  // ---- push -------------------------------------------------------------------------------------------------

  /** One push step: first pushes of queued local txs, then one regossip message of old pending ones. */
  pushNow(): void {
    this.#pushStep({ fresh: true, regossip: true })
  }

  /** The push timer: regossip; queued txs that found nobody to go to are scheduled again. */
  #tick(): void {
    this.#pushSoon()
    this.#pushStep({ fresh: false, regossip: true })
  }

  /** Schedules the first push of the queued txs: next turn, or 100 ms after the previous one. */
  #pushSoon(): void {
    const interval = this.config.pushIntervalMs
    if (!this.#started || interval <= 0 || this.#freshTimer !== undefined || this.#toPush.size === 0) return
    const wait = Math.max(0, this.#lastFreshAt + interval - this.#now())
    this.#freshTimer = setTimeout(() => {
      this.#freshTimer = undefined
      this.#pushStep({ fresh: true, regossip: false })
    }, wait)
  }

  #pushStep(what: { fresh: boolean; regossip: boolean }): void {
    if (!this.#started) return
    try {
      const now = this.#now()
      if (what.fresh) this.#pushFresh(now)
      if (what.regossip) {
        this.#regossip(now)
        this.#admission.prune()
      }
    } catch (err) {
      this.#log.error('tx push gossip failed', { err: err instanceof Error ? err.message : String(err) })
    }
  }

  #queueLocal(hash: string): void {
    if (this.#admission.remote.has(hash) || this.#pushed.has(hash) || this.#toPush.has(hash)) return
    this.#toPush.add(hash)
    if (this.#toPush.size > this.config.maxPushQueue) {
      const oldest = this.#toPush.values().next().value
      if (oldest !== undefined) this.#toPush.delete(oldest)
    }
    this.#pushSoon()
  }

  #pushFresh(now: number): void {
    if (this.#toPush.size === 0) return
    const { validators, connected, self } = this.#view()
    const targets = pushTargets(validators, connected, self, {
      percent: this.config.pushStakePercent,
      sampled: this.config.pushValidators,
      random: this.#random,
    })
    // with nobody to send to, the txs wait for the next tick
    if (targets.length === 0) return
    const out: Outgoing[] = []
    for (const hash of this.#toPush) {
      const tx = this.#admission.remote.has(hash) ? undefined : this.#vm.pool.get(hash)
      if (tx !== undefined) out.push({ hash, bytes: tx.serialize() })
    }
    this.#toPush.clear()
    if (out.length === 0) return
    this.#lastFreshAt = now
    const batches = batchBySize(out, this.config.targetMessageBytes)
    for (const batch of batches) this.#send(targets, batch, now)
    this.#stats.pushedTxs += out.length
    this.#stats.pushMessages += batches.length
    this.#log.debug(`pushed ${out.length} txs to ${targets.length} peers`, { messages: batches.length })
  }

  #regossip(now: number): void {
    const pool = this.#vm.pool
    const batch: Outgoing[] = []
    let size = 0
    for (const [hash, at] of this.#pushed) {
      if (now - at < this.config.regossipAfterMs) break
      const tx = pool.get(hash)
      if (tx === undefined) {
        this.#pushed.delete(hash)
        continue
      }
      if (pool.status(hash) !== 'pending') continue
      const bytes = tx.serialize()
      const cost = encodedItemSize(bytes)
      if (batch.length > 0 && size + cost > this.config.targetMessageBytes) break
      batch.push({ hash, bytes })
      size += cost
    }
    if (batch.length === 0) return
    const { validators, connected, self } = this.#view()
    const targets = sample(
      connectedValidators(validators, connected, self),
      this.config.regossipValidators,
      this.#random,
    )
    if (targets.length === 0) return
    this.#send(targets, batch, now)
    this.#stats.regossipedTxs += batch.length
    this.#log.debug(`regossiped ${batch.length} txs to ${targets.length} peers`)
  }

  #send(targets: readonly string[], batch: readonly Outgoing[], now: number): void {
    const bytes = withHandlerPrefix(TX_GOSSIP_HANDLER_ID, encodePushGossip(batch.map((o) => o.bytes)))
    this.#transport.appGossip(targets, bytes)
    for (const { hash } of batch) {
      this.#pushed.delete(hash)
      this.#pushed.set(hash, now)
    }
  }

  #view(): { validators: readonly { nodeId: string; weight: bigint }[]; connected: string[]; self: string } {
    const t = this.#transport
    return { validators: t.validators(), connected: t.connectedNodeIds(), self: t.self }
  }

  // ---- pull -------------------------------------------------------------------------------------------------

  /** One pull step: if we validate, ask one random connected validator for pending txs we do not know. */
  async pullNow(): Promise<void> {
    if (!this.#started || this.#pulling) return
    const { validators, connected, self } = this.#view()
    if (!isValidator(validators, self)) return
    const [peer] = sample(connectedValidators(validators, connected, self), 1, this.#random)
    if (peer === undefined) return
    this.#pulling = true
    try {
      const content = this.#vm.pool.content()
      const hashes: string[] = []
      for (const m of [content.pending, content.queued])
        for (const txs of m.values()) for (const t of txs) hashes.push(t.hash)
      const { filter, salt } = knownTxsFilter(hashes, hashes.length, sha256, this.#randomBytes)
      const request = withHandlerPrefix(TX_GOSSIP_HANDLER_ID, encodePullRequest(salt, filter.marshal()))
      this.#stats.pullRequests++
      let items: Uint8Array[]
      try {
        items = decodePullResponse(await this.#transport.appRequest(peer, request))
      } catch (err) {
        this.#stats.pullFailures++
        this.#log.debug('tx pull failed', { peer, err: describe(err) })
        return
      }
      this.#stats.pulledTxs += items.length
      this.#log.debug(`pulled ${items.length} txs`, { peer })
      if (items.length > 0) await this.#admission.admit(peer, items)
    } finally {
      this.#pulling = false
    }
  }

  // ---- inbound ----------------------------------------------------------------------------------------------

  /** AppGossip for this chain: pushed txs from validators enter the pool as remote txs. Never throws. */
  onAppGossip(from: string, bytes: Uint8Array): void {
    try {
      if (!this.#started) {
        this.#ignore(from, 'not started')
        return
      }
      const { handlerId, payload } = splitHandlerPrefix(bytes)
      if (handlerId !== TX_GOSSIP_HANDLER_ID) {
        this.#ignore(from, `unregistered handler ${handlerId}`)
        return
      }
      if (!isValidator(this.#transport.validators(), from)) {
        this.#ignore(from, 'not a validator')
        return
      }
      const items = decodePushGossip(payload)
      this.#stats.pushReceivedTxs += items.length
      if (items.length > 0) void this.#admission.admit(from, items)
    } catch (err) {
      this.#ignore(from, describe(err))
    }
  }

  /**
   * AppRequest for this chain: the pull server. Resolves to the AppResponse bytes (a PullGossipResponse) or
   * rejects with an AppRequestError (-1 bad bytes, -2 unregistered handler, -3 not a validator, -4 throttled).
   */
  async onAppRequest(from: string, bytes: Uint8Array): Promise<Uint8Array> {
    try {
      return this.#serve(from, bytes)
    } catch (err) {
      if (err instanceof AppRequestError) throw err
      this.#log.error('tx pull request failed', { from, err: describe(err) })
      throw appError('unexpected')
    }
  }

  #serve(from: string, bytes: Uint8Array): Uint8Array {
    if (!this.#started) throw appError('unregisteredHandler')
    let handlerId: bigint
    let payload: Uint8Array
    try {
      ;({ handlerId, payload } = splitHandlerPrefix(bytes))
    } catch (err) {
      return this.#badRequest(from, err)
    }
    if (handlerId !== TX_GOSSIP_HANDLER_ID) throw appError('unregisteredHandler')
    if (!isValidator(this.#transport.validators(), from)) {
      this.#stats.refusedNotValidator++
      throw appError('notValidator')
    }
    if (!this.#throttler.handle(from)) {
      this.#stats.refusedThrottled++
      throw appError('throttled')
    }
    let filter: BloomFilter
    let salt: Uint8Array
    try {
      const request = decodePullRequest(payload)
      filter = BloomFilter.parse(request.filter)
      salt = request.salt
    } catch (err) {
      return this.#badRequest(from, err)
    }
    const gossip = selectUnknown(this.#pendingCandidates(), filter, salt, sha256, this.config.targetMessageBytes)
    this.#stats.served++
    this.#stats.servedTxs += gossip.length
    return encodePullResponse(gossip)
  }

  *#pendingCandidates(): Generator<GossipCandidate> {
    for (const txs of this.#vm.pool.content().pending.values()) {
      for (const { hash, tx } of txs) yield { hash, serialize: () => tx.serialize() }
    }
  }

  #badRequest(from: string, err: unknown): never {
    this.#stats.badRequests++
    this.#log.debug('bad tx pull request', { from, err: describe(err) })
    throw appError('unexpected')
  }

  #ignore(from: string, why: string): void {
    this.#stats.ignoredGossip++
    this.#log.debug('dropping tx gossip', { from, why })
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
