/**
 * Sender recovery ahead of admission, on worker threads. Recovering a tx's sender costs 60-85 us of native
 * secp256k1: about a tenth of the node's main thread per transfer under load, on a machine with a second core
 * idle. `recoverAhead(tx, common)` works out, on the node's thread, the arguments ethereumjs' `getSenderPublicKey`
 * would pass to `ecrecover` for the tx just decoded (the signing hash, v, r, s, and the chain id where EIP-155
 * applies), and hands them to a worker (recover-worker.ts), which runs only the recovery. The public
 * key that comes back goes into the chain's sender cache (sender-cache.ts) under those arguments, so any later
 * recovery of the same bytes (the block's verification) is a map lookup, and its address is the tx's
 * sender (tx-sender.ts `presetSender`). It never fails: a tx without a signature, a Common without the cache, a
 * worker that died: the node recovers the sender itself, as before.
 *
 * Requests of one turn of the event loop go to a worker as one message. Workers are started on first use
 * (`os.availableParallelism() - 1` of them, 1 to 4) and keep the process alive only while they have work; until
 * the first says it is loaded, requests go on at once (the node recovers those senders itself).
 */
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import type { Common } from '@ethereumjs/common'
import { Capability, type TypedTransaction } from '@ethereumjs/tx'
import { bigIntToUnpaddedBytes } from '@ethereumjs/util'
import { fastKeccak256 } from './native-crypto.js'
import type { Answer } from './recover-worker.js'
import { type RecoverArgs, type SenderCache, senderCacheOf } from './sender-cache.js'

interface Pending {
  request: RecoverArgs
  cache: SenderCache
  /** with the sender's address when the worker recovered it */
  done: (sender?: Uint8Array) => void
}

/** The recovery workers (exported for tests, which start workers of their own through `start`). */
export class RecoverPool {
  readonly #workers: Worker[] = []
  /** per worker: the batches sent, in order (a worker answers them in order) */
  readonly #inFlight: Pending[][][] = []
  #queued: Pending[] = []
  #next = 0
  #broken = false
  /** per worker: it said it is loaded (starting one takes ~0.1-0.5 s; sends meanwhile do not wait for it) */
  readonly #ready: boolean[] = []
  readonly #waiters: ((ready: boolean) => void)[] = []
  #flushing = false

  constructor(
    readonly size: number,
    private readonly startOne: () => Worker = startWorker,
  ) {}

  /** Starts the workers; true once one is loaded, false when workers cannot run here. */
  ready(): Promise<boolean> {
    if (this.#broken) return Promise.resolve(false)
    if (this.#ready.includes(true)) return Promise.resolve(true)
    this.#startAll()
    return new Promise((resolve) => this.#waiters.push(resolve))
  }

  /** the sender `request` (ethereumjs' `ecrecover` arguments) recovers to, put in `cache` on the way */
  recover(request: RecoverArgs, cache: SenderCache): Promise<Uint8Array | undefined> {
    if (this.#broken) return Promise.resolve(undefined)
    if (!this.#ready.includes(true)) {
      this.#startAll()
      return Promise.resolve(undefined)
    }
    return new Promise<Uint8Array | undefined>((done) => {
      this.#queued.push({ request, cache, done })
      if (!this.#flushing) {
        this.#flushing = true
        setImmediate(this.#flush)
      }
    })
  }

  readonly #flush = (): void => {
    this.#flushing = false
    const batch = this.#queued
    this.#queued = []
    if (batch.length === 0) return
    const i = this.#pick()
    if (i === undefined) {
      for (const p of batch) p.done()
      return
    }
    const worker = this.#workers[i]!
    if (this.#inFlight[i]!.length === 0) worker.ref()
    this.#inFlight[i]!.push(batch)
    worker.postMessage(batch.map((p) => p.request))
  }

  /** the next loaded worker (round robin); undefined when none is */
  #pick(): number | undefined {
    if (this.#broken) return undefined
    for (let k = 0; k < this.size; k++) {
      const i = this.#next
      this.#next = (this.#next + 1) % this.size
      if (this.#ready[i] === true) return i
    }
    return undefined
  }

  #startAll(): void {
    for (let i = 0; i < this.size && !this.#broken; i++) this.#start(i)
  }

  /** worker `i`, started when missing; undefined when workers cannot run here */
  #start(i: number): number | undefined {
    if (this.#broken) return undefined
    if (this.#workers[i] !== undefined) return i
    try {
      // kept referenced while it loads (a caller may wait for it), then only while it has work
      const worker = this.startOne()
      worker.on('message', (out: Answer[] | 'ready') => {
        if (out === 'ready') {
          this.#ready[i] = true
          if (this.#inFlight[i]!.length === 0) worker.unref()
          for (const w of this.#waiters.splice(0)) w(true)
        } else this.#answer(i, out)
      })
      worker.on('error', () => this.#break())
      worker.on('exit', () => this.#break())
      this.#workers[i] = worker
      this.#inFlight[i] = []
      return i
    } catch {
      this.#break()
      return undefined
    }
  }

  #answer(i: number, out: Answer[]): void {
    const batch = this.#inFlight[i]!.shift() ?? []
    if (this.#inFlight[i]!.length === 0) this.#workers[i]?.unref()
    batch.forEach((p, j) => {
      const publicKey = out[j]
      // ethereumjs' `publicToAddress` takes a 64-byte key, as the node's own recovery gives
      if (publicKey?.length !== 64) {
        p.done()
      } else {
        p.cache.put(p.request, publicKey)
        p.done(fastKeccak256(publicKey).slice(12))
      }
    })
  }

  /** a worker failed: stop using workers; everything waiting goes on without them */
  #break(): void {
    if (this.#broken) return
    this.#broken = true
    for (const list of this.#inFlight) for (const batch of list ?? []) for (const p of batch) p.done()
    for (const p of this.#queued) p.done()
    this.#queued = []
    for (const w of this.#waiters.splice(0)) w(false)
    for (const w of this.#workers) void w?.terminate()
  }
}

/**
 * A worker on recover-worker's module beside this one. Run from the sources (tsx), the worker registers tsx's
 * hooks in its own thread first: a worker thread does not get the loader hooks of the thread that made it.
 */
function startWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./recover-worker.js', import.meta.url))
  const api = JSON.stringify(import.meta.resolve('tsx/esm/api'))
  const entry = JSON.stringify(new URL('./recover-worker.ts', import.meta.url).href)
  return new Worker(`import(${api}).then((tsx) => { tsx.register(); return import(${entry}) })`, { eval: true })
}

let pool: RecoverPool | undefined

/**
 * The arguments ethereumjs' `getSenderPublicKey` passes to `ecrecover` for `tx` (capabilities/legacy.js, shared by
 * every tx type), or undefined where it would not recover (unsigned, a key it holds already) or would keep nothing
 * (an unfrozen tx). Its high-s check is the constructor's too, so no decoded tx fails it; recover-ahead.test.ts
 * checks, for each tx type, that ethereumjs' own recovery of the same bytes then finds every key in the cache.
 */
export function recoveryArgs(tx: TypedTransaction): RecoverArgs | undefined {
  const { v, r, s } = tx
  if (!Object.isFrozen(tx) || tx.cache.senderPubKey !== undefined) return undefined
  if (v === undefined || r === undefined || s === undefined) return undefined
  const chainId = tx.supports(Capability.EIP155ReplayProtection) ? tx.common.chainId() : undefined
  // the signing message throws only for an unsigned tx, which has no v, r and s
  return [tx.getMessageToVerifySignature(), v, bigIntToUnpaddedBytes(r), bigIntToUnpaddedBytes(s), chainId]
}

/**
 * Recover the sender of `tx` (decoded with `common`) on a worker, into `common`'s sender cache; resolves when
 * done, with the sender's address when the worker recovered it (undefined: the node recovers it itself, as it
 * would anyway).
 */
export function recoverAhead(tx: TypedTransaction, common: Common): Promise<Uint8Array | undefined> {
  const cache = senderCacheOf(common.customCrypto.ecrecover)
  const args = cache === undefined ? undefined : recoveryArgs(tx)
  if (cache === undefined || args === undefined || cache.has(args)) return Promise.resolve(undefined)
  return thePool().recover(args, cache)
}

const thePool = (): RecoverPool => {
  pool ??= new RecoverPool(Math.max(1, Math.min(4, availableParallelism() - 1)))
  return pool
}

/** Starts the recovery workers; resolves true once one is loaded (false: workers cannot run here). */
export const recoverWorkersReady = (): Promise<boolean> => thePool().ready()
