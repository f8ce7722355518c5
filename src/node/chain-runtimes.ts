/**
 * The per-chain runtime registry: what the chain actors' IO slots serve, by chain ID. The composition root fills
 * it once a chain's parts exist (its VM, and with the network up, its consensus runtime: signed blocks, router,
 * builder); the slot implementations (chain-slots.ts), shared by every chain, look the runtime up from their input.
 * A slot that starts before its chain is registered waits for it (`whenReady`).
 */
import type { Observable } from 'rxjs'
import type { ChainEmitted, TxsAdmitted } from '../../actors/chains/chain.machine.js'
import type { SnowmanChain } from '../chains/snowman/chain.js'
import type { Logger } from '../log/logger.js'
import type { ProfilerOps } from '../profiling/profiler.impl.js'

/** A block the chain accepted, as `accepted$` carries it. */
export interface AcceptedBlock {
  height: number
  id: string
  /** the block's own time, unix ms */
  timestampMs: number
  /** its transactions, when the VM counts them */
  txCount?: number
}

export interface ChainRuntime {
  chainId: string
  alias: string
  /** the chain's log */
  log: Logger
  /** whether validators other than this node exist (initialization decides bootstrapping on it) */
  hasOtherValidators(): boolean
  /** a lone validator's block producer (`produceBlocks`); returns its stop. Absent: the chain has none */
  startProducer?: () => () => void
  /** the chain's consensus on the peer network (bootstrapper and engine IO); absent: it has none */
  snowman?: SnowmanChain
  /** the blocks the chain accepts, in order (the chain actor keeps the last one) */
  accepted$?: Observable<AcceptedBlock>
  /** admits parked transactions (`chain.admitTxs`, src/node/tx-admission.ts); absent: the chain takes none */
  admitTxs?: (e: Extract<ChainEmitted, { type: 'chain.admitTxs' }>) => Promise<TxsAdmitted>
  /** the chain admin API's profile writers (`profiler:<alias>`); absent: the chain serves no profiler */
  profiler?: ProfilerOps
}

export class ChainRuntimes {
  readonly #runtimes = new Map<string, ChainRuntime>()
  readonly #waiting = new Map<string, { promise: Promise<ChainRuntime>; resolve: (r: ChainRuntime) => void }>()

  /** Registers (or replaces) a chain's runtime; slots waiting for it proceed. */
  set(runtime: ChainRuntime): void {
    this.#runtimes.set(runtime.chainId, runtime)
    this.#waiting.get(runtime.chainId)?.resolve(runtime)
    this.#waiting.delete(runtime.chainId)
  }

  get(chainId: string): ChainRuntime | undefined {
    return this.#runtimes.get(chainId)
  }

  /** the runtime of the chain whose primary alias is `alias` */
  byAlias(alias: string): ChainRuntime | undefined {
    for (const r of this.#runtimes.values()) if (r.alias === alias) return r
    return undefined
  }

  /** Resolves once the chain's runtime is registered. */
  whenReady(chainId: string): Promise<ChainRuntime> {
    const known = this.#runtimes.get(chainId)
    if (known !== undefined) return Promise.resolve(known)
    let waiting = this.#waiting.get(chainId)
    if (waiting === undefined) {
      let resolve: (r: ChainRuntime) => void = () => undefined
      const promise = new Promise<ChainRuntime>((r) => {
        resolve = r
      })
      waiting = { promise, resolve }
      this.#waiting.set(chainId, waiting)
    }
    return waiting.promise
  }

  delete(chainId: string): void {
    this.#runtimes.delete(chainId)
  }
}
