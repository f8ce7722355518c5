/**
 * A tiny chain VM for tests of what runs over any VM (signed blocks, builders, the lone validator's producer): a
 * block is the JSON of `{parent, height, timeMs, items}`, its ID the sha256 of those bytes. Items wait in a list
 * until a block holds them; accepted blocks live in the chain's store (`ctx.db`), written with the consensus
 * extras in one batch. Nothing of the EVM.
 */
import { createHash } from 'node:crypto'
import { filter, firstValueFrom, Subject } from 'rxjs'
import type { ChainDatabase, ChainVm, ChainVmContext, ExtraWrite, VmBlock, VmHandler } from '../../src/chains/vm.js'

interface Body {
  parent: string
  height: number
  timeMs: number
  items: string[]
}

export interface TinyVmOptions {
  /** ms clock for built blocks' times (default Date.now) */
  now?: () => number
  /** a block follows its parent by at least this long (the `nextBuildTimeMs` hook); absent: no hook */
  minDelayMs?: number
  /** most items in a block */
  maxItems?: number
  /** called while a block is being built, once its items are chosen (tests announce work "during a build") */
  duringBuild?: () => void
}

const enc = new TextEncoder()
const dec = new TextDecoder()
const idOf = (bytes: Uint8Array) => `0x${createHash('sha256').update(bytes).digest('hex')}`
const key = (s: string) => enc.encode(s)

/** The genesis a TinyVm starts from: `{timestampMs}` (its block is at height 0 with no parent). */
export interface TinyGenesis {
  timestampMs: number
}

class TinyBlock implements VmBlock {
  readonly id: string
  readonly parentId: string
  readonly height: number
  readonly timestampMs: number

  constructor(
    private readonly vm: TinyVm,
    readonly bytes: Uint8Array,
    readonly body: Body,
  ) {
    this.id = idOf(bytes)
    this.parentId = body.parent
    this.height = body.height
    this.timestampMs = body.timeMs
  }

  async verify(): Promise<void> {
    await this.vm.verifyBlock(this)
  }

  accept(extra: readonly ExtraWrite[] = []): Promise<void> {
    return this.vm.acceptBlock(this, extra)
  }

  async reject(): Promise<void> {
    this.vm.rejectBlock(this)
  }
}

export class TinyVm implements ChainVm {
  readonly pending$ = new Subject<void>()
  /** the IDs of accepted blocks, as they are accepted */
  readonly accepted$ = new Subject<string>()
  /** items waiting for a block, and the items of processing blocks (not offered twice on one branch) */
  readonly waiting: string[] = []
  readonly processing = new Map<string, TinyBlock>()
  readonly accepted: string[] = []
  #db: ChainDatabase | undefined
  #last = { id: '', height: 0, timestampMs: 0 }
  #preferred = ''
  readonly nextBuildTimeMs?: (parentId: string) => number
  readonly #now: () => number

  constructor(private readonly opts: TinyVmOptions = {}) {
    this.#now = opts.now ?? Date.now
    if (opts.minDelayMs !== undefined) {
      const delay = opts.minDelayMs
      this.nextBuildTimeMs = (parentId) => {
        const parent = this.processing.get(parentId) ?? (parentId === this.#last.id ? this.#last : undefined)
        return parent === undefined ? this.#now() : Math.max(this.#now(), parent.timestampMs + delay)
      }
    }
  }

  get db(): ChainDatabase {
    if (this.#db === undefined) throw new Error('not initialized')
    return this.#db
  }

  async initialize(ctx: ChainVmContext): Promise<void> {
    this.#db = ctx.db
    const last = await ctx.db.get(key('last'))
    if (last === undefined) {
      const genesis = this.#encode({
        parent: `0x${'00'.repeat(32)}`,
        height: 0,
        timeMs: (ctx.genesis as TinyGenesis).timestampMs,
        items: [],
      })
      const block = new TinyBlock(this, genesis, this.#decode(genesis))
      await this.#write(block, [])
    } else {
      const block = await this.getBlock(dec.decode(last))
      if (block === undefined) throw new Error('last accepted block missing')
      this.#last = { id: block.id, height: block.height, timestampMs: block.timestampMs }
    }
    this.#preferred = this.#last.id
  }

  /** adds an item to wait for a block */
  add(item: string): void {
    this.waiting.push(item)
    this.pending$.next()
  }

  #encode(body: Body): Uint8Array {
    return enc.encode(JSON.stringify(body))
  }

  #decode(bytes: Uint8Array): Body {
    const body = JSON.parse(dec.decode(bytes)) as Body
    if (typeof body.parent !== 'string' || !Number.isInteger(body.height) || !Array.isArray(body.items)) {
      throw new Error('not a tiny block')
    }
    return body
  }

  async buildBlock(): Promise<VmBlock | undefined> {
    const parent = this.processing.get(this.#preferred) ?? (await this.getBlock(this.#last.id))
    if (parent === undefined) throw new Error('no parent to build on')
    const used = new Set<string>()
    for (let p = this.processing.get(parent.id); p !== undefined; p = this.processing.get(p.parentId)) {
      for (const item of (p as TinyBlock).body.items) used.add(item)
    }
    const items = this.waiting.filter((i) => !used.has(i)).slice(0, this.opts.maxItems ?? 1_000)
    if (items.length === 0) return undefined
    this.opts.duringBuild?.()
    const bytes = this.#encode({
      parent: parent.id,
      height: parent.height + 1,
      timeMs: Math.max(this.#now(), parent.timestampMs),
      items,
    })
    const block = new TinyBlock(this, bytes, this.#decode(bytes))
    this.processing.set(block.id, block)
    return block
  }

  async parseBlock(bytes: Uint8Array): Promise<VmBlock> {
    const copy = new Uint8Array(bytes)
    return new TinyBlock(this, copy, this.#decode(copy))
  }

  async getBlock(id: string): Promise<VmBlock | undefined> {
    const known = this.processing.get(id)
    if (known !== undefined) return known
    const bytes = await this.db.get(key(`b${id}`))
    return bytes === undefined ? undefined : new TinyBlock(this, new Uint8Array(bytes), this.#decode(bytes))
  }

  async verifyBlock(block: TinyBlock): Promise<void> {
    const parent = await this.getBlock(block.parentId)
    if (parent === undefined) throw new Error(`unknown parent ${block.parentId}`)
    if (block.height !== parent.height + 1) throw new Error('bad height')
    if (block.timestampMs < parent.timestampMs) throw new Error('block older than its parent')
    this.processing.set(block.id, block)
  }

  async acceptBlock(block: TinyBlock, extra: readonly ExtraWrite[]): Promise<void> {
    if (block.parentId !== this.#last.id) throw new Error('parent is not the last accepted block')
    await this.#write(block, extra)
    this.processing.delete(block.id)
    const done = new Set(block.body.items)
    const left = this.waiting.filter((i) => !done.has(i))
    this.waiting.splice(0, this.waiting.length, ...left)
    this.accepted.push(block.id)
    this.accepted$.next(block.id)
    if (this.#preferred === block.id || this.processing.size === 0) this.#preferred = block.id
  }

  async #write(block: TinyBlock, extra: readonly ExtraWrite[]): Promise<void> {
    const batch = this.db.batch()
    for (const e of extra) {
      if (e.type === 'del') batch.del(e.key, { sublevel: e.sublevel })
      else batch.put(e.key, e.value, { sublevel: e.sublevel })
    }
    batch.put(key(`b${block.id}`), block.bytes)
    batch.put(key(`h${block.height}`), enc.encode(block.id))
    batch.put(key('last'), enc.encode(block.id))
    await batch.write()
    this.#last = { id: block.id, height: block.height, timestampMs: block.timestampMs }
  }

  rejectBlock(block: TinyBlock): void {
    this.processing.delete(block.id)
    if (!this.processing.has(this.#preferred)) this.#preferred = this.#last.id
  }

  setPreference(id: string): void {
    this.#preferred = id
  }

  lastAccepted(): { id: string; height: number } {
    return { id: this.#last.id, height: this.#last.height }
  }

  async acceptedIdAt(height: number): Promise<string | undefined> {
    const id = await this.db.get(key(`h${height}`))
    return id === undefined ? undefined : dec.decode(id)
  }

  /** resolves once `n` blocks were accepted since start */
  acceptedCount(n: number): Promise<unknown> {
    if (this.accepted.length >= n) return Promise.resolve()
    return firstValueFrom(this.accepted$.pipe(filter(() => this.accepted.length >= n)))
  }

  hasPending(): boolean {
    return this.waiting.length > 0
  }

  async health(): Promise<unknown> {
    return { height: this.#last.height, waiting: this.waiting.length }
  }

  async createHandlers(): Promise<Record<string, VmHandler>> {
    return {}
  }

  async shutdown(): Promise<void> {
    this.pending$.complete()
    this.accepted$.complete()
  }
}
