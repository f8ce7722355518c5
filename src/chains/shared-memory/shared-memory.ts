/**
 * Shared memory: what one chain hands another (exported UTXOs), in the node's LevelDB, with the semantics of the
 * reference's chains/atomic (SharedMemory: Get, Indexed, Apply). Values are opaque bytes here (UTXO bytes for the
 * atomic txs); traits are what an element is indexed by (the UTXO's 20-byte addresses). Layout: keys.ts.
 *
 * The reference's rules, kept:
 * - `apply(me, {peer: {removeRequests, putRequests}})`: per peer (in the order of the pairs' shared IDs),
 *   removes on my INBOUND side (what the peer put for me), then puts on my OUTBOUND side (what the peer reads from
 *   me). A put of a key that is present fails `duplicate put: Key=0x.. Value=0x..`. A remove of a key that is not
 *   there does NOT fail: it leaves a removal marker (a chain may consume a UTXO while bootstrapping before the
 *   chain that makes it has), and the later put of that key cancels the marker and stores nothing. A remove of a
 *   key that is only a marker fails `duplicate remove: Key=0x..`. Any failure writes nothing at all.
 * - `get(me, peer, keys)`: the values the peer put for me, all or `not found`.
 * - `indexed(me, peer, traits, startTrait, startKey, limit)`: the reference's getKeys / appendTraitKeys, the paging
 *   of `avax.getUTXOs`: traits sorted ascending by their bytes; traits below `startTrait` skipped; for the trait
 *   equal to `startTrait` the scan starts AT `startKey` (inclusive) if that key is indexed under that trait, else
 *   at the newest; every later trait from its newest. Within a trait, newest first (insertion order: a key put
 *   later comes earlier). A key seen under an earlier trait of the same call is skipped (it is not counted, but it
 *   still becomes `lastKey`). At most `limit` keys (a limit <= 0 returns none). `lastTrait` is the last trait
 *   scanned (or `startTrait` if none was), `lastKey` the last key read (or the start key of that scan: undefined
 *   when the scan began at the newest), which the API turns into `endIndex` (a missing one as the empty ID).
 *   One deviation: an empty `startKey` means "from the newest" (the reference would look the empty key up).
 *
 * Writes go into the caller's batch (a chained batch of the node's database, or an array of operations for
 * `db.batch(ops)`), so the block that accepts an atomic tx and its shared-memory changes are one write. apply
 * reads the database as it is when called: the caller must write (or drop) that batch before the next apply, which
 * `exclusive(fn)` serialises (apply without a batch and seedOnce write at once, inside it).
 */
import type { Database } from '../../db/open.js'
import { Sublevel } from '../../db/sublevels.js'
import { idToString } from '../../identity/ids.js'
import { FirnError } from '../../runtime/errors.js'
import { decodeElement, encodeElement, type StoredElement } from './element.js'
import {
  type ChainIdLike,
  chainIdBytes,
  compareBytes,
  concatBytes,
  equalBytes,
  hex,
  indexKey,
  invertedSeq,
  prefixEnd,
  SEQ_KEY,
  type Side,
  sharedId,
  side,
  traitPrefix,
  valueKey,
} from './keys.js'

/** One element a chain puts for a peer: the reference's atomic.Element. */
export interface Element {
  key: Uint8Array
  value: Uint8Array
  traits: readonly Uint8Array[]
}

/** What a chain does to the space it shares with one peer: the reference's atomic.Requests. */
export interface Requests {
  removeRequests?: readonly Uint8Array[]
  putRequests?: readonly Element[]
}

/** Requests per peer chain: a Map by ID (bytes or CB58), or a record by CB58 ID. */
export type RequestsByPeer = ReadonlyMap<ChainIdLike, Requests> | Readonly<Record<string, Requests>>

// biome-ignore lint/suspicious/noExplicitAny: the sublevel of any database will do
type Sub = any

/** A staged write, in the form `db.batch(ops)` and chained batches take (the sublevel option set). */
export type SharedMemoryOp =
  | { type: 'put'; key: Uint8Array; value: Uint8Array; sublevel: Sub }
  | { type: 'del'; key: Uint8Array; sublevel: Sub }

/** A chained batch of the node's database (any sublevel's batch works: the ops name their sublevel). */
export interface ChainedBatchLike {
  put(key: Uint8Array, value: Uint8Array, options: { sublevel: Sub }): unknown
  del(key: Uint8Array, options: { sublevel: Sub }): unknown
}

export type BatchTarget = ChainedBatchLike | SharedMemoryOp[]

export interface IndexedResult {
  keys: Uint8Array[]
  values: Uint8Array[]
  lastTrait: Uint8Array | undefined
  lastKey: Uint8Array | undefined
}

/** One chain's view of shared memory (what a VM is given). */
export interface ChainSharedMemory {
  readonly chainId: Uint8Array
  get(peer: ChainIdLike, keys: readonly Uint8Array[]): Promise<Uint8Array[]>
  indexed(
    peer: ChainIdLike,
    traits: readonly Uint8Array[],
    startTrait: Uint8Array | undefined,
    startKey: Uint8Array | undefined,
    limit: number,
  ): Promise<IndexedResult>
  apply(requests: RequestsByPeer, batch?: BatchTarget): Promise<void>
  exclusive<T>(fn: () => Promise<T>): Promise<T>
}

type RawOp = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array }

const EMPTY = new Uint8Array(0)

export const errNotFound = (): FirnError => new FirnError('not found')

/** Marks seeded pairs (seed.ts): sharedId ‖ 4 ‖ the seeded side's value prefix. */
const SEEDED_PREFIX = 4

export class SharedMemory {
  readonly sublevel: Sub
  /** the last insertion number handed out (numbers of batches never written are skipped: gaps are harmless) */
  private seq = 0
  private seqLoaded: Promise<void> | undefined
  private queue: Promise<unknown> = Promise.resolve()

  constructor(db: Database) {
    this.sublevel = db.sublevel<Uint8Array, Uint8Array>(Sublevel.sharedMemory, {
      keyEncoding: 'view',
      valueEncoding: 'view',
    })
  }

  /** Runs `fn` after every earlier `exclusive` call has finished: apply + the write of its batch go in one. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn)
    this.queue = run.then(
      () => undefined,
      () => undefined,
    )
    return run
  }

  /** This memory as chain `me` sees it: the reference's `Memory.NewSharedMemory(chainID)`. */
  forChain(me: ChainIdLike): ChainSharedMemory {
    const id = chainIdBytes(me)
    return {
      chainId: id,
      get: (peer, keys) => this.get(id, peer, keys),
      indexed: (peer, traits, startTrait, startKey, limit) =>
        this.indexed(id, peer, traits, startTrait, startKey, limit),
      apply: (requests, batch) => this.apply(id, requests, batch),
      exclusive: (fn) => this.exclusive(fn),
    }
  }

  /** The values `peer` put for `me` under `keys`, in order; `not found` if any is missing. */
  async get(me: ChainIdLike, peer: ChainIdLike, keys: readonly Uint8Array[]): Promise<Uint8Array[]> {
    const s = side(chainIdBytes(me), chainIdBytes(peer), 'inbound')
    const raw = keys.length === 0 ? [] : await this.sublevel.getMany(keys.map((k) => valueKey(s, k)))
    return raw.map((r: Uint8Array | undefined) => {
      if (r === undefined) throw errNotFound()
      const e = decodeElement(r)
      if (!e.present) throw errNotFound()
      return e.value
    })
  }

  /** A page of the values `peer` put for `me` under any of `traits` (the module's comment gives the order). */
  async indexed(
    me: ChainIdLike,
    peer: ChainIdLike,
    traits: readonly Uint8Array[],
    startTrait: Uint8Array | undefined,
    startKey: Uint8Array | undefined,
    limit: number,
  ): Promise<IndexedResult> {
    const s = side(chainIdBytes(me), chainIdBytes(peer), 'inbound')
    const sorted = [...traits].sort(compareBytes)
    const st = startTrait ?? EMPTY
    let sk = startKey
    const state = { keys: [] as Uint8Array[], seen: new Set<string>(), limit }
    let lastTrait = startTrait
    let lastKey = startKey
    for (const trait of sorted) {
      const c = compareBytes(trait, st)
      if (c < 0) continue // already paged past it
      if (c > 0) sk = undefined
      lastTrait = trait
      lastKey = await this.appendTraitKeys(s, trait, sk, state)
      if (state.limit === 0) break
    }
    const raw = state.keys.length === 0 ? [] : await this.sublevel.getMany(state.keys.map((k) => valueKey(s, k)))
    const values = raw.map((r: Uint8Array | undefined) => {
      if (r === undefined) throw errNotFound()
      const e = decodeElement(r)
      if (!e.present) throw errNotFound()
      return e.value
    })
    return { keys: state.keys, values, lastTrait, lastKey }
  }

  private async appendTraitKeys(
    s: Side,
    trait: Uint8Array,
    startKey: Uint8Array | undefined,
    state: { keys: Uint8Array[]; seen: Set<string>; limit: number },
  ): Promise<Uint8Array | undefined> {
    let last = startKey
    const prefix = traitPrefix(s, trait)
    let gte = prefix
    if (startKey !== undefined && startKey.length > 0) {
      const raw = await this.sublevel.get(valueKey(s, startKey))
      const e = raw === undefined ? undefined : decodeElement(raw)
      // the reference's linked list starts at the key if it is in this trait's list, else at its head
      if (e?.present && e.traits.some((t) => equalBytes(t, trait))) gte = concatBytes(prefix, invertedSeq(e.seq))
    }
    const lt = prefixEnd(prefix)
    const it = this.sublevel.keys(lt === undefined ? { gte } : { gte, lt })
    try {
      while (state.limit > 0) {
        const chunk: Uint8Array[] = await it.nextv(Math.max(state.limit, 64))
        if (chunk.length === 0) break
        for (const k of chunk) {
          if (state.limit <= 0) break
          const key = Uint8Array.prototype.slice.call(k, prefix.length + 8)
          last = key
          const id = hex(key)
          if (state.seen.has(id)) continue
          state.seen.add(id)
          state.keys.push(key)
          state.limit--
        }
      }
    } finally {
      await it.close()
    }
    return last
  }

  /**
   * The reference's Apply for chain `me`: stages every change into `batch` (nothing at all if any request fails),
   * or, without a batch, writes them at once inside `exclusive`.
   */
  async apply(me: ChainIdLike, requests: RequestsByPeer, batch?: BatchTarget): Promise<void> {
    if (batch !== undefined) {
      this.stageInto(await this.stage(me, requests), batch)
      return
    }
    await this.exclusive(async () => {
      const ops = await this.stage(me, requests)
      await this.write(ops)
    })
  }

  /** Stages the changes of `requests` (plus `extra` raw ops) and returns them, writing nothing. */
  async stage(me: ChainIdLike, requests: RequestsByPeer, extra: RawOp[] = []): Promise<RawOp[]> {
    const mine = chainIdBytes(me)
    const entries: { id: Uint8Array; peer: Uint8Array; req: Requests }[] = []
    const pairs: [ChainIdLike, Requests][] =
      requests instanceof Map ? [...requests.entries()] : Object.entries(requests as Record<string, Requests>)
    for (const [peerLike, req] of pairs) {
      const peer = chainIdBytes(peerLike)
      entries.push({ id: sharedId(mine, peer), peer, req })
    }
    entries.sort((a, b) => compareBytes(a.id, b.id))
    for (let i = 1; i < entries.length; i++) {
      if (equalBytes(entries[i - 1]!.id, entries[i]!.id)) {
        throw new FirnError(`shared memory: two requests for the peer chain ${idToString(entries[i]!.peer)}`)
      }
    }
    // what is staged so far (null: deleted), over what the database holds (read ahead, one getMany per side)
    const overlay = new Map<string, StoredElement | null>()
    const stored = new Map<string, Uint8Array | undefined>()
    const readAhead = async (vks: Uint8Array[]) => {
      if (vks.length === 0) return
      const raw: (Uint8Array | undefined)[] = await this.sublevel.getMany(vks)
      vks.forEach((vk, i) => {
        stored.set(hex(vk), raw[i])
      })
    }
    const ops: RawOp[] = []
    const load = async (vk: Uint8Array): Promise<StoredElement | undefined> => {
      const k = hex(vk)
      if (overlay.has(k)) return overlay.get(k) ?? undefined
      const raw = stored.has(k) ? stored.get(k) : await this.sublevel.get(vk)
      return raw === undefined ? undefined : decodeElement(raw)
    }
    const set = (vk: Uint8Array, e: StoredElement | null) => {
      overlay.set(hex(vk), e)
      ops.push(e === null ? { type: 'del', key: vk } : { type: 'put', key: vk, value: encodeElement(e) })
    }
    await this.loadSeq()
    let lastSeq = 0
    for (const { peer, req } of entries) {
      const inbound = side(mine, peer, 'inbound')
      const outbound = side(mine, peer, 'outbound')
      await readAhead([
        ...(req.removeRequests ?? []).map((k) => valueKey(inbound, k)),
        ...(req.putRequests ?? []).map((e) => valueKey(outbound, e.key)),
      ])
      for (const key of req.removeRequests ?? []) {
        const vk = valueKey(inbound, key)
        const e = await load(vk)
        if (e === undefined) {
          set(vk, { present: false, value: EMPTY, traits: [], seq: 0 })
          continue
        }
        if (!e.present) throw new FirnError(`duplicate remove: Key=0x${hex(key)}`)
        for (const t of e.traits) ops.push({ type: 'del', key: indexKey(inbound, t, e.seq, key) })
        set(vk, null)
      }
      for (const el of req.putRequests ?? []) {
        const vk = valueKey(outbound, el.key)
        const e = await load(vk)
        if (e !== undefined) {
          if (!e.present) {
            set(vk, null) // removed before it existed: the put cancels the marker
            continue
          }
          throw new FirnError(`duplicate put: Key=0x${hex(el.key)} Value=0x${hex(el.value)}`)
        }
        // handed out at once, so stagers that overlap never share a number
        const seq = ++this.seq
        lastSeq = seq
        for (const t of el.traits) ops.push({ type: 'put', key: indexKey(outbound, t, seq, el.key), value: EMPTY })
        set(vk, { present: true, value: el.value, traits: [...el.traits], seq })
      }
    }
    if (lastSeq !== 0) {
      const b = new Uint8Array(8)
      new DataView(b.buffer).setBigUint64(0, BigInt(this.seq))
      ops.push({ type: 'put', key: SEQ_KEY, value: b })
    }
    return [...ops, ...extra]
  }

  /** The staged ops into the caller's batch. */
  stageInto(ops: readonly RawOp[], batch: BatchTarget): void {
    const sublevel = this.sublevel
    if (Array.isArray(batch)) {
      for (const op of ops) batch.push({ ...op, sublevel })
      return
    }
    for (const op of ops) {
      if (op.type === 'put') batch.put(op.key, op.value, { sublevel })
      else batch.del(op.key, { sublevel })
    }
  }

  async write(ops: readonly RawOp[]): Promise<void> {
    if (ops.length > 0) await this.sublevel.batch(ops.map((op) => ({ ...op })))
  }

  /** The key marking that `source`'s side toward `dest` was seeded (seed.ts) by the seeder named `tag`. */
  seededKey(source: ChainIdLike, dest: ChainIdLike, tag = ''): Uint8Array {
    const s = side(chainIdBytes(source), chainIdBytes(dest), 'outbound')
    const name = new TextEncoder().encode(tag)
    return concatBytes(s.valueBase.subarray(0, 32), Uint8Array.of(SEEDED_PREFIX, s.valueBase[32]!), name)
  }

  private loadSeq(): Promise<void> {
    this.seqLoaded ??= (async () => {
      const raw = await this.sublevel.get(SEQ_KEY)
      this.seq = raw === undefined ? 0 : Number(new DataView(raw.buffer, raw.byteOffset, 8).getBigUint64(0))
    })()
    return this.seqLoaded
  }
}

export type { RawOp }
