/**
 * The engine's issuance pipeline (consensus reference 1.6): blocks issued but not yet in the tree, waiting for
 * their parent (fetched with 'get' from the peer that named them) or for their verification; blocks that failed
 * verification (kept, bounded, only to bubble votes); outstanding Gets. Every container it holds is bounded.
 * `Issuer` is a view over the plain `IssuerState` (it mutates it in place, holds nothing itself); the engine core
 * creates one per input and supplies the tree's view through `IssuerHost`.
 */
import {
  type EngineEffect,
  type IssuerState,
  MAX_OUTSTANDING_GETS,
  MAX_PENDING_BLOCKS,
  MAX_UNVERIFIED_BLOCKS,
} from './engine-types.js'
import {
  boundedCreate,
  boundedDelete,
  boundedGet,
  boundedHas,
  boundedSet,
  boundedSize,
  get,
  sizedCreate,
  sizedDelete,
  sizedGet,
  sizedHas,
  sizedSet,
} from './records.js'
import type { AcceptedRef, EngineBlock } from './types.js'

export interface IssuerHost {
  lastAccepted(): AcceptedRef
  /** in the tree and not the last accepted block */
  isProcessing(id: string): boolean
  /** a recently accepted block */
  isAccepted(id: string): boolean
  emit(e: EngineEffect): void
  /** `id` was issued or abandoned: votes waiting for it may proceed */
  resolved(id: string): void
}

export const issuerCreate = (): IssuerState => ({
  pending: sizedCreate(),
  dependents: {},
  unverified: boundedCreate(MAX_UNVERIFIED_BLOCKS),
  gets: sizedCreate(),
  verifying: 0,
})

export class Issuer {
  constructor(
    private readonly s: IssuerState,
    private readonly host: IssuerHost,
  ) {}

  /** Pending or being fetched: a vote naming it waits. */
  isAwaited(id: string): boolean {
    return sizedHas(this.s.pending, id) || sizedHas(this.s.gets, id)
  }

  /** blocks whose 'verify' effect is out */
  get verifying(): number {
    return this.s.verifying
  }

  isPending(id: string): boolean {
    return sizedHas(this.s.pending, id)
  }

  /** A known block not in the tree (pending or failed verification), for walking up to a processing ancestor. */
  known(id: string): EngineBlock | undefined {
    return boundedGet(this.s.unverified, id) ?? sizedGet(this.s.pending, id)?.block
  }

  canChildOf(parentId: string): boolean {
    return parentId === this.host.lastAccepted().id || this.host.isProcessing(parentId)
  }

  #isIssued(b: EngineBlock): boolean {
    return b.height <= this.host.lastAccepted().height || this.host.isProcessing(b.id) || sizedHas(this.s.pending, b.id)
  }

  /** A block referred to by ID: fetched from `from` unless known (or already asked for). */
  issueId(from: string, id: string): void {
    if (id === this.host.lastAccepted().id || this.host.isProcessing(id) || this.host.isAccepted(id)) return
    if (sizedHas(this.s.pending, id) || boundedHas(this.s.unverified, id)) return
    this.#fetch(from, id)
  }

  #fetch(from: string, id: string): void {
    const { gets } = this.s
    if (sizedHas(gets, id) || gets.size >= MAX_OUTSTANDING_GETS) return
    sizedSet(gets, id, from)
    this.host.emit({ type: 'get', to: from, blockId: id })
  }

  /** Issues `blk` and its locally known unissued ancestors; fetches the first missing one from `from`. */
  issueFrom(from: string, blk: EngineBlock): void {
    const { pending, dependents, gets } = this.s
    let b = blk
    for (;;) {
      if (this.#isIssued(b) || pending.size >= MAX_PENDING_BLOCKS) return
      boundedDelete(this.s.unverified, b.id)
      sizedSet(pending, b.id, { block: b, verifying: false })
      if (this.canChildOf(b.parentId)) {
        this.#deliver(b.id)
        return
      }
      const known = this.known(b.parentId)
      if (known !== undefined && known.height !== b.height - 1) {
        // a height that does not follow its parent (also rules out self-parents and cycles)
        this.abandon(b.id)
        return
      }
      const siblings = get(dependents, b.parentId)
      if (siblings !== undefined) siblings.push(b.id)
      else dependents[b.parentId] = [b.id]
      if (sizedHas(pending, b.parentId)) return
      if (b.height - 1 <= this.host.lastAccepted().height) {
        // the parent is decided but is not the last accepted block: b can never be accepted
        this.abandon(b.parentId)
        return
      }
      const parent = known
      if (parent === undefined) {
        if (sizedHas(gets, b.parentId)) return
        if (gets.size >= MAX_OUTSTANDING_GETS) this.abandon(b.parentId)
        else this.#fetch(from, b.parentId)
        return
      }
      b = parent
    }
  }

  /** The parent of pending block `id` is in the tree: ask the IO layer to verify it. */
  #deliver(id: string): void {
    const p = sizedGet(this.s.pending, id)
    if (p === undefined || p.verifying) return
    p.verifying = true
    this.s.verifying++
    this.host.emit({ type: 'verify', block: p.block })
  }

  /** Block `parent` entered the tree: its waiting children go to verification (a wrong height is dropped). */
  deliverChildren(parent: AcceptedRef): void {
    const { dependents } = this.s
    const children = get(dependents, parent.id) ?? []
    delete dependents[parent.id]
    for (const c of children) {
      if (sizedGet(this.s.pending, c)?.block.height === parent.height + 1) this.#deliver(c)
      else this.abandon(c)
    }
  }

  /** The answer to our Get; `blk` is the parsed container (undefined if unparsable), `asked` the ID requested. */
  onPut(from: string, blk: EngineBlock | undefined, asked: string | undefined): void {
    if (blk === undefined || (asked !== undefined && blk.id !== asked)) {
      // unparsable or the wrong block: a failed Get (when we know which one)
      if (asked !== undefined) this.onGetFailed(from, asked)
      return
    }
    if (sizedGet(this.s.gets, blk.id) !== from) return // unsolicited
    sizedDelete(this.s.gets, blk.id)
    this.issueFrom(from, blk)
    if (!sizedHas(this.s.pending, blk.id)) this.host.resolved(blk.id)
  }

  onGetFailed(from: string, id: string): void {
    if (sizedGet(this.s.gets, id) !== from) return
    sizedDelete(this.s.gets, id)
    this.abandon(id)
  }

  /** The verification answer for a pending block: the block if it passed, else undefined (kept as unverified). */
  onVerified(id: string, ok: boolean): EngineBlock | undefined {
    const p = sizedGet(this.s.pending, id)
    if (p === undefined || !p.verifying) return undefined
    sizedDelete(this.s.pending, id)
    this.s.verifying--
    if (ok) return p.block
    boundedSet(this.s.unverified, id, p.block)
    this.abandon(id)
    return undefined
  }

  /** Gives up on `id` (not obtainable, failed, or never acceptable) and, transitively, its pending dependents. */
  abandon(id: string): void {
    const { pending, dependents } = this.s
    const queue = [id]
    while (queue.length > 0) {
      const cur = queue.shift() as string
      const p = sizedGet(pending, cur)
      if (p !== undefined && !p.verifying) sizedDelete(pending, cur)
      const kids = get(dependents, cur)
      delete dependents[cur]
      if (kids !== undefined) queue.push(...kids)
      this.host.resolved(cur)
    }
  }

  /** After decisions: blocks waiting for a parent that can no longer be accepted are abandoned. */
  prune(rejected: ReadonlySet<string>): void {
    const { pending } = this.s
    const la = this.host.lastAccepted()
    for (const [id, p] of Object.entries(pending.items)) {
      if (p.verifying || !sizedHas(pending, id)) continue
      const b = p.block
      if (b.height <= la.height || rejected.has(b.parentId) || (b.height - 1 <= la.height && b.parentId !== la.id)) {
        this.abandon(id)
      }
    }
    for (const parentId of Object.keys(this.s.dependents)) {
      if (rejected.has(parentId)) this.abandon(parentId)
    }
  }
}

/** The issuance pipeline's part of the engine summary. */
export function issuerSummary(s: IssuerState) {
  const pending = Object.values(s.pending.items)
  return {
    awaitingVerify: pending.filter((p) => p.verifying).map((p) => p.block.id),
    awaitingParents: pending.filter((p) => !p.verifying).map((p) => p.block.id),
    outstandingGets: Object.entries(s.gets.items).map(([blockId, to]) => ({ blockId, to })),
    unverified: boundedSize(s.unverified),
  }
}
