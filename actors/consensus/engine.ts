/**
 * The Snowman engine core (consensus reference 1.5, 1.6, 2.1, 7.2 "ConsensusEngine"): synchronous and
 * deterministic given `deps.random`. Inputs in, effects out, in order; no IO. It answers queries (chits first),
 * issues blocks (fetching missing ancestors, verifying through the IO layer), samples and runs polls, applies
 * finished polls in creation order to the block tree, and asks for block builds.
 * A query that arrives while blocks issued by earlier messages are being verified is answered once they are
 * (in arrival order): the reference handles a chain's messages one at a time and verifies inside the handler, so
 * its chits always reflect every earlier message. Answering at once made the proposer's first pull queries, sent
 * right behind its push query, count votes for the old preference and fail.
 */
import { add, type BlockTree, createTree, isProcessing, numProcessing, recordPoll } from './block-tree.js'
import { Issuer } from './engine-issuer.js'
import { chitsFor, enoughConnectedStake, pickFrontierTarget, voteKey, type WaitingVote } from './engine-support.js'
import {
  ACCEPTED_RING_SIZE,
  BoundedMap,
  type EngineDeps,
  type EngineEffect,
  type EngineInput,
  type EngineSnapshot,
  MAX_ANCESTOR_WALK,
  MAX_DEFERRED_QUERIES,
  MAX_KNOWN_FRONTIERS,
} from './engine-types.js'
import { addPoll, dropIn, newPollSet, type PollParams, type PollSet, voteIn } from './poll.js'
import { distinct, sampleStake } from './sampler.js'
import type { AcceptedRef, Chits, EngineBlock } from './types.js'

export * from './engine-types.js'

type QueryInput = Extract<EngineInput, { type: 'query' }>

export class Engine {
  readonly #deps: EngineDeps
  #tree: BlockTree
  /** processing blocks (the tree's nodes other than the last accepted) */
  readonly #processing = new Map<string, EngineBlock>()
  /** blocks issued but not in the tree yet, and fetches */
  readonly #issuer: Issuer
  readonly #acceptedAt = new BoundedMap<number, string>(ACCEPTED_RING_SIZE)
  readonly #acceptedIds = new BoundedMap<string, number>(ACCEPTED_RING_SIZE)
  readonly #frontiers = new BoundedMap<string, AcceptedRef>(MAX_KNOWN_FRONTIERS)
  #polls: PollSet = newPollSet()
  #requestId = 0
  readonly #waiting = new Map<string, WaitingVote>()
  #ready: WaitingVote[] = []
  /** queries waiting for the verifications before them, in arrival order */
  #deferredQueries: QueryInput[] = []
  #pendingBuild = 0
  #building = false
  /** the preference last told to the VM */
  #vmPreference: string
  #out: EngineEffect[] = []
  /** the poll thresholds, and the processing parent for counting votes transitively */
  readonly #pollParams: PollParams

  constructor(deps: EngineDeps, lastAccepted: AcceptedRef) {
    this.#deps = deps
    this.#tree = createTree(lastAccepted)
    this.#acceptedAt.set(lastAccepted.height, lastAccepted.id)
    this.#acceptedIds.set(lastAccepted.id, lastAccepted.height)
    this.#vmPreference = lastAccepted.id
    this.#pollParams = {
      alphaPreference: deps.params.alphaPreference,
      alphaConfidence: deps.params.alphaConfidence,
      parentOf: (id) => {
        const parent = this.#processing.get(id)?.parentId
        return parent !== undefined && this.#processing.has(parent) ? parent : undefined
      },
    }
    this.#issuer = new Issuer({
      lastAccepted: () => this.#tree.lastAccepted,
      isProcessing: (id) => isProcessing(this.#tree, id),
      isAccepted: (id) => this.#acceptedIds.has(id),
      emit: (e) => this.#out.push(e),
      resolved: (id) => this.#resolve(id),
    })
  }

  get preference(): string {
    return this.#tree.preference
  }

  get lastAccepted(): AcceptedRef {
    return { ...this.#tree.lastAccepted }
  }

  get numProcessing(): number {
    return numProcessing(this.#tree)
  }

  processingBlock(id: string): EngineBlock | undefined {
    return this.#processing.get(id)
  }

  handle(input: EngineInput): EngineEffect[] {
    this.#out = []
    switch (input.type) {
      case 'query':
        this.#deferredQueries.push(input)
        break
      case 'chits':
        this.#onChits(input.from, input.requestId, input.chits)
        break
      case 'queryFailed':
        this.#onQueryFailed(input.from, input.requestId)
        break
      case 'put':
        this.#issuer.onPut(input.from, this.#deps.parse(input.container), input.blockId)
        break
      case 'getFailed':
        this.#issuer.onGetFailed(input.from, input.blockId)
        break
      case 'verified':
        this.#onVerified(input.blockId, input.ok)
        break
      case 'built':
        this.#building = false
        this.#onBuilt(input.block)
        break
      case 'buildFailed':
        this.#building = false
        break
      case 'pendingTxs':
        this.#pendingBuild++
        break
      case 'tick':
        this.#onTick()
        break
      case 'connectivityChanged':
        if (this.numProcessing > 0) this.#repoll()
        break
    }
    this.#answerQueries()
    this.#drainVotes()
    this.#tryBuild()
    const out = this.#out
    this.#out = []
    return out
  }

  snapshot(): EngineSnapshot {
    return {
      lastAccepted: this.lastAccepted,
      preference: this.preference,
      numProcessing: this.numProcessing,
      polls: this.#polls.polls.map((e) => ({
        requestId: e.requestId,
        received: e.poll.received,
        remaining: e.poll.remaining,
      })),
      requestId: this.#requestId,
      pendingBuild: this.#pendingBuild,
      buildOutstanding: this.#building,
      ...this.#issuer.snapshot(),
      waitingVotes: this.#waiting.size,
      deferredQueries: this.#deferredQueries.length,
    }
  }

  // ---- queries and votes ----

  /** Answers the held queries in order while no verification is out (or too many wait). */
  #answerQueries(): void {
    let answered = 0
    const q = this.#deferredQueries
    while (answered < q.length && (this.#issuer.verifying === 0 || q.length - answered > MAX_DEFERRED_QUERIES)) {
      this.#onQuery(q[answered] as QueryInput)
      answered++
    }
    if (answered > 0) this.#deferredQueries = q.slice(answered)
  }

  #onQuery(q: QueryInput): void {
    const chits = chitsFor(this.#tree, this.#acceptedAt, q.requestedHeight)
    this.#out.push({ type: 'chits', to: q.from, inboundId: q.inboundId, chits })
    if (q.container !== undefined) {
      const blk = this.#deps.parse(q.container)
      if (blk !== undefined) this.#issuer.issueFrom(q.from, blk)
    } else if (q.blockId !== undefined) {
      this.#issuer.issueId(q.from, q.blockId)
    }
  }

  #onChits(from: string, requestId: number, chits: Chits): void {
    this.#frontiers.set(from, { id: chits.acceptedId, height: chits.acceptedHeight })
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
    const f = this.#frontiers.get(from)
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
    const key = voteKey(requestId, from)
    if (requestId === 0 || this.#waiting.has(key)) return
    const entry = this.#polls.polls.find((e) => e.requestId === requestId)
    if (entry === undefined || !Object.hasOwn(entry.poll.outstanding, from)) return
    const deps = new Set(options.filter((id) => this.#issuer.isAwaited(id)))
    const v: WaitingVote = { requestId, from, options, deps }
    this.#waiting.set(key, v)
    if (deps.size === 0) this.#ready.push(v)
  }

  /** A block was issued (entered the tree, was decided) or abandoned: votes waiting for it may proceed. */
  #resolve(id: string): void {
    for (const v of this.#waiting.values()) {
      if (v.deps.delete(id) && v.deps.size === 0) this.#ready.push(v)
    }
  }

  #drainVotes(): void {
    while (this.#ready.length > 0) {
      const v = this.#ready.shift() as WaitingVote
      this.#waiting.delete(voteKey(v.requestId, v.from))
      let choice: string | undefined
      for (const opt of v.options) {
        choice = this.#processingAncestor(opt)
        if (choice !== undefined) break
      }
      const p = this.#pollParams
      const upd =
        choice !== undefined
          ? voteIn(this.#polls, v.requestId, v.from, choice, p)
          : dropIn(this.#polls, v.requestId, v.from, p)
      this.#polls = upd.set
      this.#applyResults(upd.results)
    }
  }

  /** `id` if processing, else its nearest processing ancestor through known-but-unissued blocks. */
  #processingAncestor(id: string): string | undefined {
    let cur = id
    for (let i = 0; i < MAX_ANCESTOR_WALK; i++) {
      if (isProcessing(this.#tree, cur)) return cur
      const b = this.#issuer.known(cur)
      if (b === undefined) return undefined
      cur = b.parentId
    }
    return undefined
  }

  #applyResults(results: Array<Record<string, number>>): void {
    if (results.length === 0) return
    for (const r of results) {
      const res = recordPoll(this.#tree, r, this.#deps.params)
      this.#tree = res.tree
      for (const id of res.accepted) {
        const b = this.#processing.get(id)
        this.#processing.delete(id)
        if (b !== undefined) {
          this.#acceptedAt.set(b.height, id)
          this.#acceptedIds.set(id, b.height)
        }
        this.#out.push({ type: 'accept', blockId: id })
      }
      for (const id of res.rejected) {
        this.#processing.delete(id)
        this.#out.push({ type: 'reject', blockId: id })
      }
      if (res.accepted.length > 0 || res.rejected.length > 0) this.#issuer.prune(new Set(res.rejected))
    }
    this.#notePreference()
    if (this.numProcessing > 0) this.#repoll()
  }

  #repoll(): void {
    for (let n = this.#polls.polls.length; n < this.#deps.params.concurrentRepolls; n++) {
      if (!this.#sendQuery(this.preference, undefined)) return
    }
  }

  /** Samples K stake units and sends a push (own block) or pull query; false when skipped. */
  #sendQuery(blockId: string, push: EngineBlock | undefined): boolean {
    const { params, self, isConnected, random } = this.#deps
    const validators = this.#deps.validators()
    if (!enoughConnectedStake(params, validators, self, isConnected)) return false
    const s = sampleStake(validators, params.k, random)
    if (!s.ok) return false
    const requestId = ++this.#requestId
    this.#polls = addPoll(this.#polls, requestId, s.nodeIds)
    const to = distinct(s.nodeIds)
    const requestedHeight = this.#tree.lastAccepted.height + 1
    this.#out.push(
      push !== undefined
        ? { type: 'pushQuery', to, requestId, block: push, requestedHeight }
        : { type: 'pullQuery', to, requestId, blockId, requestedHeight },
    )
    return true
  }

  #onTick(): void {
    if (this.numProcessing > 0) {
      this.#repoll()
      return
    }
    const { self, isConnected, random } = this.#deps
    const target = pickFrontierTarget(this.#deps.validators(), self, isConnected, random)
    if (target === undefined) return
    const requestedHeight = this.#tree.lastAccepted.height + 1
    this.#out.push({ type: 'pullQuery', to: [target], requestId: 0, blockId: this.preference, requestedHeight })
  }

  #notePreference(): void {
    if (this.#tree.preference === this.#vmPreference) return
    this.#vmPreference = this.#tree.preference
    this.#out.push({ type: 'setPreference', blockId: this.#vmPreference })
  }

  #tryBuild(): void {
    if (this.#pendingBuild > 0 && !this.#building && this.numProcessing < this.#deps.params.optimalProcessing) {
      this.#pendingBuild--
      this.#building = true
      this.#out.push({ type: 'build' })
    }
  }

  // ---- issuance ----

  #onVerified(id: string, ok: boolean): void {
    const b = this.#issuer.onVerified(id, ok)
    if (b !== undefined) this.#addToTree(b, undefined)
  }

  #onBuilt(block: EngineBlock): void {
    if (this.#processing.has(block.id) || this.#issuer.isPending(block.id)) return
    this.#addToTree(block, block)
  }

  /** Adds a verified block (built locally when `push` is set); one the tree cannot take is rejected. */
  #addToTree(b: EngineBlock, push: EngineBlock | undefined): void {
    const r = this.#issuer.canChildOf(b.parentId) ? add(this.#tree, b) : undefined
    if (r === undefined || !r.ok) {
      // verified by the VM, so it must hear a decision
      this.#out.push({ type: 'reject', blockId: b.id })
      this.#issuer.abandon(b.id)
      return
    }
    this.#tree = r.tree
    this.#processing.set(b.id, b)
    this.#notePreference()
    if (this.#tree.preference === b.id) this.#sendQuery(b.id, push)
    this.#resolve(b.id)
    this.#issuer.deliverChildren(b)
    if (this.numProcessing > 0) this.#repoll()
  }
}
