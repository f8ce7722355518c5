/**
 * One input's work in the Snowman engine core (engine.ts): answering queries, registering and draining votes,
 * applying finished polls, sampling and sending queries, building, and issuing through the issuer. The step is a
 * transient view over the plain `EngineState`: it mutates the state in place and keeps nothing itself.
 */
import { add, isProcessing, numProcessing, recordPoll } from './block-tree.js'
import { Issuer, type IssuerHost } from './engine-issuer.js'
import { chitsFor, enoughConnectedStake, pickFrontierTarget, weightsOf } from './engine-support.js'
import {
  type EngineEffect,
  type EngineInput,
  type EngineState,
  MAX_ANCESTOR_WALK,
  MAX_DEFERRED_QUERIES,
  type QueryInput,
  type WaitingVote,
} from './engine-types.js'
import { addPoll, dropIn, type PollParams, voteIn } from './poll.js'
import { nextRandom } from './prng.js'
import { boundedHas, boundedSet, get, has } from './records.js'
import { distinct, sampleStake } from './sampler.js'
import type { AcceptedRef, Chits, EngineBlock, Weighted } from './types.js'

/** The peers connected (and not benched) as the core keeps them. */
export function connectedRecord(ids: readonly string[]): Record<string, true> {
  const out: Record<string, true> = {}
  for (const id of ids) out[id] = true
  return out
}

/**
 * One input's work over the state; lives for one `handle` call. It is the issuer's host, and its callbacks are
 * bound methods (no closures made per input: under tsx every function expression costs a `__name` call).
 */
export class EngineStep implements IssuerHost {
  readonly #s: EngineState
  readonly #issuer: Issuer
  readonly #out: EngineEffect[] = []
  /** votes whose blocks are all issued or abandoned, in order; drained before `handle` returns */
  readonly #ready: WaitingVote[] = []
  /** the poll thresholds, and the processing parent for counting votes transitively (made on first use) */
  #pollParams: PollParams | undefined
  #weights: Weighted[] | undefined

  constructor(s: EngineState) {
    this.#s = s
    this.#issuer = new Issuer(s.issuer, this)
  }

  // ---- IssuerHost ----

  lastAccepted(): AcceptedRef {
    return this.#s.tree.lastAccepted
  }

  isProcessing(id: string): boolean {
    return isProcessing(this.#s.tree, id)
  }

  isAccepted(id: string): boolean {
    return boundedHas(this.#s.acceptedIds, id)
  }

  emit(e: EngineEffect): void {
    this.#out.push(e)
  }

  resolved(id: string): void {
    this.#resolve(id)
  }

  get #numProcessing(): number {
    return numProcessing(this.#s.tree)
  }

  handle(input: EngineInput): EngineEffect[] {
    const s = this.#s
    switch (input.type) {
      case 'query':
        s.deferredQueries.push(input)
        break
      case 'chits':
        this.#onChits(input.from, input.requestId, input.chits)
        break
      case 'queryFailed':
        this.#onQueryFailed(input.from, input.requestId)
        break
      case 'put':
        this.#issuer.onPut(input.from, input.block, input.blockId)
        break
      case 'getFailed':
        this.#issuer.onGetFailed(input.from, input.blockId)
        break
      case 'verified':
        this.#onVerified(input.blockId, input.ok)
        break
      case 'built':
        s.building = false
        this.#onBuilt(input.block)
        break
      case 'buildFailed':
        s.building = false
        break
      case 'pendingTxs':
        s.pendingBuild++
        break
      case 'tick':
        this.#onTick()
        break
      case 'connectivityChanged':
        s.connected = connectedRecord(input.connected)
        if (this.#numProcessing > 0) this.#repoll()
        break
      case 'validatorsChanged':
        s.validators = input.validators
        break
    }
    this.#answerQueries()
    this.#drainVotes()
    this.#tryBuild()
    return this.#out
  }

  // ---- connectivity, validators, randomness ----

  /** self counts as connected; benched peers are not in `connected` */
  isConnected(nodeId: string): boolean {
    return nodeId === this.#s.self || has(this.#s.connected, nodeId)
  }

  random(): number {
    return nextRandom(this.#s)
  }

  /** a processing block's processing parent (undefined at the last accepted block) */
  parentOf(id: string): string | undefined {
    const parent = get(this.#s.processing, id)?.parentId
    return parent !== undefined && has(this.#s.processing, parent) ? parent : undefined
  }

  #params(): PollParams {
    const { params } = this.#s
    this.#pollParams ??= {
      alphaPreference: params.alphaPreference,
      alphaConfidence: params.alphaConfidence,
      parentOf: this.parentOf.bind(this),
    }
    return this.#pollParams
  }

  #validators(): Weighted[] {
    this.#weights ??= weightsOf(this.#s.validators)
    return this.#weights
  }

  // ---- queries and votes ----

  /** Answers the held queries in order while no verification is out (or too many wait). */
  #answerQueries(): void {
    const s = this.#s
    let answered = 0
    const q = s.deferredQueries
    while (answered < q.length && (this.#issuer.verifying === 0 || q.length - answered > MAX_DEFERRED_QUERIES)) {
      this.#onQuery(q[answered] as QueryInput)
      answered++
    }
    if (answered > 0) s.deferredQueries = q.slice(answered)
  }

  #onQuery(q: QueryInput): void {
    const chits = chitsFor(this.#s.tree, this.#s.acceptedAt, q.requestedHeight)
    this.#out.push({ type: 'chits', to: q.from, inboundId: q.inboundId, chits })
    if (q.block !== undefined) this.#issuer.issueFrom(q.from, q.block)
    else if (q.blockId !== undefined) this.#issuer.issueId(q.from, q.blockId)
  }

  #onChits(from: string, requestId: number, chits: Chits): void {
    boundedSet(this.#s.frontiers, from, { id: chits.acceptedId, height: chits.acceptedHeight })
    this.#issuer.issueId(from, chits.preferredId)
    if (chits.preferredIdAtHeight !== chits.preferredId) this.#issuer.issueId(from, chits.preferredIdAtHeight)
    const options =
      chits.preferredIdAtHeight === chits.preferredId
        ? [chits.preferredId]
        : [chits.preferredId, chits.preferredIdAtHeight]
    this.#registerVote(from, requestId, options)
  }

  #onQueryFailed(from: string, requestId: number): void {
    if (requestId === 0) return
    const f = get(this.#s.frontiers.items, from)
    if (f !== undefined) {
      this.#onChits(from, requestId, {
        preferredId: f.id,
        preferredIdAtHeight: f.id,
        acceptedId: f.id,
        acceptedHeight: f.height,
      })
    } else {
      this.#registerVote(from, requestId, [])
    }
  }

  /** Registers `from`'s answer to poll `requestId` once; it votes when its candidates are issued or abandoned. */
  #registerVote(from: string, requestId: number, options: string[]): void {
    const s = this.#s
    if (requestId === 0 || s.waiting.some((w) => w.requestId === requestId && w.from === from)) return
    const entry = s.polls.polls.find((e) => e.requestId === requestId)
    if (entry === undefined || !Object.hasOwn(entry.poll.outstanding, from)) return
    // options are distinct: [preferredId] or [preferredId, preferredIdAtHeight] with the two different
    const deps = options.filter((id) => this.#issuer.isAwaited(id))
    const v: WaitingVote = { requestId, from, options, deps }
    s.waiting.push(v)
    if (deps.length === 0) this.#ready.push(v)
  }

  /** A block was issued (entered the tree, was decided) or abandoned: votes waiting for it may proceed. */
  #resolve(id: string): void {
    for (const v of this.#s.waiting) {
      const i = v.deps.indexOf(id)
      if (i < 0) continue
      v.deps.splice(i, 1)
      if (v.deps.length === 0) this.#ready.push(v)
    }
  }

  #drainVotes(): void {
    const s = this.#s
    while (this.#ready.length > 0) {
      const v = this.#ready.shift() as WaitingVote
      s.waiting.splice(s.waiting.indexOf(v), 1)
      let choice: string | undefined
      for (const opt of v.options) {
        choice = this.#processingAncestor(opt)
        if (choice !== undefined) break
      }
      const p = this.#params()
      const upd =
        choice !== undefined ? voteIn(s.polls, v.requestId, v.from, choice, p) : dropIn(s.polls, v.requestId, v.from, p)
      s.polls = upd.set
      this.#applyResults(upd.results)
    }
  }

  /** `id` if processing, else its nearest processing ancestor through known-but-unissued blocks. */
  #processingAncestor(id: string): string | undefined {
    let cur = id
    for (let i = 0; i < MAX_ANCESTOR_WALK; i++) {
      if (isProcessing(this.#s.tree, cur)) return cur
      const b = this.#issuer.known(cur)
      if (b === undefined) return undefined
      cur = b.parentId
    }
    return undefined
  }

  #applyResults(results: Array<Record<string, number>>): void {
    if (results.length === 0) return
    const s = this.#s
    for (const r of results) {
      const res = recordPoll(s.tree, r, s.params)
      s.tree = res.tree
      for (const id of res.accepted) {
        const b = get(s.processing, id)
        delete s.processing[id]
        if (b !== undefined) {
          boundedSet(s.acceptedAt, String(b.height), id)
          boundedSet(s.acceptedIds, id, b.height)
        }
        this.#out.push({ type: 'accept', blockId: id })
      }
      for (const id of res.rejected) {
        delete s.processing[id]
        this.#out.push({ type: 'reject', blockId: id })
      }
      if (res.accepted.length > 0 || res.rejected.length > 0) this.#issuer.prune(new Set(res.rejected))
    }
    this.#notePreference()
    if (this.#numProcessing > 0) this.#repoll()
  }

  #repoll(): void {
    for (let n = this.#s.polls.polls.length; n < this.#s.params.concurrentRepolls; n++) {
      if (!this.#sendQuery(this.#s.tree.preference, undefined)) return
    }
  }

  /** Samples K stake units and sends a push (own block) or pull query; false when skipped. */
  #sendQuery(blockId: string, push: EngineBlock | undefined): boolean {
    const s = this.#s
    const validators = this.#validators()
    if (!enoughConnectedStake(s.params, validators, s.self, this.isConnected.bind(this))) return false
    const sample = sampleStake(validators, s.params.k, this.random.bind(this))
    if (!sample.ok) return false
    const requestId = ++s.requestId
    s.polls = addPoll(s.polls, requestId, sample.nodeIds)
    const to = distinct(sample.nodeIds)
    const requestedHeight = s.tree.lastAccepted.height + 1
    this.#out.push(
      push !== undefined
        ? { type: 'pushQuery', to, requestId, block: push, requestedHeight }
        : { type: 'pullQuery', to, requestId, blockId, requestedHeight },
    )
    return true
  }

  #onTick(): void {
    if (this.#numProcessing > 0) {
      this.#repoll()
      return
    }
    const s = this.#s
    const target = pickFrontierTarget(this.#validators(), s.self, this.isConnected.bind(this), this.random.bind(this))
    if (target === undefined) return
    const requestedHeight = s.tree.lastAccepted.height + 1
    this.#out.push({ type: 'pullQuery', to: [target], requestId: 0, blockId: s.tree.preference, requestedHeight })
  }

  #notePreference(): void {
    const s = this.#s
    if (s.tree.preference === s.vmPreference) return
    s.vmPreference = s.tree.preference
    this.#out.push({ type: 'setPreference', blockId: s.vmPreference })
  }

  #tryBuild(): void {
    const s = this.#s
    if (s.pendingBuild > 0 && !s.building && this.#numProcessing < s.params.optimalProcessing) {
      s.pendingBuild--
      s.building = true
      this.#out.push({ type: 'build' })
    }
  }

  // ---- issuance ----

  #onVerified(id: string, ok: boolean): void {
    const b = this.#issuer.onVerified(id, ok)
    if (b !== undefined) this.#addToTree(b, undefined)
  }

  #onBuilt(block: EngineBlock): void {
    if (has(this.#s.processing, block.id) || this.#issuer.isPending(block.id)) return
    this.#addToTree(block, block)
  }

  /** Adds a verified block (built locally when `push` is set); one the tree cannot take is rejected. */
  #addToTree(b: EngineBlock, push: EngineBlock | undefined): void {
    const s = this.#s
    const r = this.#issuer.canChildOf(b.parentId) ? add(s.tree, b) : undefined
    if (r === undefined || !r.ok) {
      // verified by the VM, so it must hear a decision
      this.#out.push({ type: 'reject', blockId: b.id })
      this.#issuer.abandon(b.id)
      return
    }
    s.tree = r.tree
    s.processing[b.id] = b
    this.#notePreference()
    if (s.tree.preference === b.id) this.#sendQuery(b.id, push)
    this.#resolve(b.id)
    this.#issuer.deliverChildren(b)
    if (this.#numProcessing > 0) this.#repoll()
  }
}
