/**
 * The engine's issuance pipeline (consensus reference 1.6): blocks issued but not yet in the tree, waiting for
 * their parent (fetched with 'get' from the peer that named them) or for their verification; blocks that failed
 * verification (kept, bounded, only to bubble votes); outstanding Gets. Every container it holds is bounded.
 * The engine core owns it and supplies the tree's view through `IssuerHost`.
 */
import {
  BoundedMap,
  type EngineEffect,
  MAX_OUTSTANDING_GETS,
  MAX_PENDING_BLOCKS,
  MAX_UNVERIFIED_BLOCKS,
} from './engine-types.js'
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

interface PendingBlock {
  block: EngineBlock
  /** a 'verify' effect is out for it (its parent is in the tree) */
  verifying: boolean
}

export class Issuer {
  readonly #host: IssuerHost
  readonly #pending = new Map<string, PendingBlock>()
  /** parent ID -> pending children waiting for it, in arrival order */
  readonly #dependents = new Map<string, string[]>()
  readonly #unverified = new BoundedMap<string, EngineBlock>(MAX_UNVERIFIED_BLOCKS)
  /** block ID -> peer asked */
  readonly #gets = new Map<string, string>()
  #verifying = 0

  constructor(host: IssuerHost) {
    this.#host = host
  }

  /** Pending or being fetched: a vote naming it waits. */
  isAwaited(id: string): boolean {
    return this.#pending.has(id) || this.#gets.has(id)
  }

  /** blocks whose 'verify' effect is out */
  get verifying(): number {
    return this.#verifying
  }

  isPending(id: string): boolean {
    return this.#pending.has(id)
  }

  /** A known block not in the tree (pending or failed verification), for walking up to a processing ancestor. */
  known(id: string): EngineBlock | undefined {
    return this.#unverified.get(id) ?? this.#pending.get(id)?.block
  }

  canChildOf(parentId: string): boolean {
    return parentId === this.#host.lastAccepted().id || this.#host.isProcessing(parentId)
  }

  #isIssued(b: EngineBlock): boolean {
    return b.height <= this.#host.lastAccepted().height || this.#host.isProcessing(b.id) || this.#pending.has(b.id)
  }

  /** A block referred to by ID: fetched from `from` unless known (or already asked for). */
  issueId(from: string, id: string): void {
    if (id === this.#host.lastAccepted().id || this.#host.isProcessing(id) || this.#host.isAccepted(id)) return
    if (this.#pending.has(id) || this.#unverified.has(id)) return
    this.#fetch(from, id)
  }

  #fetch(from: string, id: string): void {
    if (this.#gets.has(id) || this.#gets.size >= MAX_OUTSTANDING_GETS) return
    this.#gets.set(id, from)
    this.#host.emit({ type: 'get', to: from, blockId: id })
  }

  /** Issues `blk` and its locally known unissued ancestors; fetches the first missing one from `from`. */
  issueFrom(from: string, blk: EngineBlock): void {
    let b = blk
    for (;;) {
      if (this.#isIssued(b) || this.#pending.size >= MAX_PENDING_BLOCKS) return
      this.#unverified.delete(b.id)
      this.#pending.set(b.id, { block: b, verifying: false })
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
      const siblings = this.#dependents.get(b.parentId)
      if (siblings !== undefined) siblings.push(b.id)
      else this.#dependents.set(b.parentId, [b.id])
      if (this.#pending.has(b.parentId)) return
      if (b.height - 1 <= this.#host.lastAccepted().height) {
        // the parent is decided but is not the last accepted block: b can never be accepted
        this.abandon(b.parentId)
        return
      }
      const parent = known
      if (parent === undefined) {
        if (this.#gets.has(b.parentId)) return
        if (this.#gets.size >= MAX_OUTSTANDING_GETS) this.abandon(b.parentId)
        else this.#fetch(from, b.parentId)
        return
      }
      b = parent
    }
  }

  /** The parent of pending block `id` is in the tree: ask the IO layer to verify it. */
  #deliver(id: string): void {
    const p = this.#pending.get(id)
    if (p === undefined || p.verifying) return
    p.verifying = true
    this.#verifying++
    this.#host.emit({ type: 'verify', block: p.block })
  }

  /** Block `parent` entered the tree: its waiting children go to verification (a wrong height is dropped). */
  deliverChildren(parent: AcceptedRef): void {
    const children = this.#dependents.get(parent.id) ?? []
    this.#dependents.delete(parent.id)
    for (const c of children) {
      if (this.#pending.get(c)?.block.height === parent.height + 1) this.#deliver(c)
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
    if (this.#gets.get(blk.id) !== from) return // unsolicited
    this.#gets.delete(blk.id)
    this.issueFrom(from, blk)
    if (!this.#pending.has(blk.id)) this.#host.resolved(blk.id)
  }

  onGetFailed(from: string, id: string): void {
    if (this.#gets.get(id) !== from) return
    this.#gets.delete(id)
    this.abandon(id)
  }

  /** The verification answer for a pending block: the block if it passed, else undefined (kept as unverified). */
  onVerified(id: string, ok: boolean): EngineBlock | undefined {
    const p = this.#pending.get(id)
    if (p === undefined || !p.verifying) return undefined
    this.#pending.delete(id)
    this.#verifying--
    if (ok) return p.block
    this.#unverified.set(id, p.block)
    this.abandon(id)
    return undefined
  }

  /** Gives up on `id` (not obtainable, failed, or never acceptable) and, transitively, its pending dependents. */
  abandon(id: string): void {
    const queue = [id]
    while (queue.length > 0) {
      const cur = queue.shift() as string
      const p = this.#pending.get(cur)
      if (p !== undefined && !p.verifying) this.#pending.delete(cur)
      const kids = this.#dependents.get(cur)
      this.#dependents.delete(cur)
      if (kids !== undefined) queue.push(...kids)
      this.#host.resolved(cur)
    }
  }

  /** After decisions: blocks waiting for a parent that can no longer be accepted are abandoned. */
  prune(rejected: ReadonlySet<string>): void {
    const la = this.#host.lastAccepted()
    for (const [id, p] of [...this.#pending]) {
      if (p.verifying || !this.#pending.has(id)) continue
      const b = p.block
      if (b.height <= la.height || rejected.has(b.parentId) || (b.height - 1 <= la.height && b.parentId !== la.id)) {
        this.abandon(id)
      }
    }
    for (const parentId of [...this.#dependents.keys()]) {
      if (rejected.has(parentId)) this.abandon(parentId)
    }
  }

  snapshot() {
    const pending = [...this.#pending.values()]
    return {
      awaitingVerify: pending.filter((p) => p.verifying).map((p) => p.block.id),
      awaitingParents: pending.filter((p) => !p.verifying).map((p) => p.block.id),
      outstandingGets: [...this.#gets].map(([blockId, to]) => ({ blockId, to })),
      unverified: this.#unverified.size,
    }
  }
}
