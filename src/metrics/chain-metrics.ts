/**
 * Per-chain consensus metrics, counted where blocks change hands: `meterVm` wraps a chain's VM (as chain-host.ts's
 * `watchAccepts` does) so that every block it hands out (built, parsed, got) reports its build, verify, accept and
 * reject. Names are the reference's `avalanche_snowman_*` with the `chain` label (its primary alias), from
 * avalanchego snow/consensus/snowman/metrics.go and snow/engine/snowman/metrics.go:
 *
 * - `blks_built`: blocks this node built (a lone validator's producer or the Snowman builder);
 * - `blks_accepted_count` / `blks_accepted_sum` (ns from issue to accept) and `consensus_latencies` (the same, its
 *   1..8 s buckets), `blks_rejected_count` / `blks_rejected_sum`, `blks_accepted_container_size_sum`,
 *   `blks_rejected_container_size_sum`, `last_accepted_height`, `last_accepted_timestamp` (unix s),
 *   `blks_processing` (issued, not yet decided);
 * - `bs_accepted`: blocks accepted while the chain bootstraps (they have no issue time).
 *
 * A block is issued when this node built it or when its verify succeeded in normal operation, the reference's
 * `Issued`. Firn adds `firn_snowman_finality_seconds{chain}`: issue to accept with buckets from 1 ms, since a
 * lone `--dev` validator accepts in milliseconds, below the reference's first bucket.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client'
import type { ChainVm, VmBlock } from '../chains/vm.js'

/** issued blocks remembered per chain (processing blocks; the reference's processing cap is 256) */
export const MAX_ISSUED = 4096
export const FINALITY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
const NS_PER_MS = 1e6

type Inc = { inc(value?: number): void }
type SetG = { set(value: number): void; inc(value?: number): void }
type Obs = { observe(value: number): void }

interface ChainChildren {
  built: Inc
  acceptedCount: Inc
  acceptedSum: SetG
  acceptedSize: SetG
  rejectedCount: Inc
  rejectedSum: SetG
  rejectedSize: SetG
  latencies: Obs
  finality: Obs
  height: SetG
  timestamp: SetG
  bsAccepted: Inc
}

export class ChainMetrics {
  readonly #registers: Registry[]
  readonly #counters = new Map<string, Counter<'chain'>>()
  readonly #gauges = new Map<string, Gauge<'chain'>>()
  readonly #latencies: Histogram<'chain'>
  readonly #finality: Histogram<'chain'>
  /** alias -> issued block ID -> performance.now() at issue */
  readonly #issued = new Map<string, Map<string, number>>()

  constructor(registry: Registry) {
    this.#registers = [registry]
    const self = this
    new Gauge({
      name: 'avalanche_snowman_blks_processing',
      help: 'number of currently processing blocks',
      labelNames: ['chain'],
      registers: this.#registers,
      collect() {
        for (const [chain, issued] of self.#issued) this.set({ chain }, issued.size)
      },
    })
    this.#latencies = new Histogram({
      name: 'avalanche_snowman_consensus_latencies',
      help: 'times (in ns) from issuance of a block to acceptance, bucketed',
      labelNames: ['chain'],
      buckets: [1, 2, 3, 4, 5, 6, 7, 8].map((s) => s * 1e9),
      registers: this.#registers,
    })
    this.#finality = new Histogram({
      name: 'firn_snowman_finality_seconds',
      help: 'seconds from the issue of a block (built here, or verified in normal operation) to its acceptance',
      labelNames: ['chain'],
      buckets: FINALITY_BUCKETS,
      registers: this.#registers,
    })
  }

  #counter(name: string, help: string): Counter<'chain'> {
    let c = this.#counters.get(name)
    if (c === undefined) {
      c = new Counter({ name, help, labelNames: ['chain'], registers: this.#registers })
      this.#counters.set(name, c)
    }
    return c
  }

  #gauge(name: string, help: string): Gauge<'chain'> {
    let g = this.#gauges.get(name)
    if (g === undefined) {
      g = new Gauge({ name, help, labelNames: ['chain'], registers: this.#registers })
      this.#gauges.set(name, g)
    }
    return g
  }

  #children(chain: string): ChainChildren {
    const c = (name: string, help: string) => this.#counter(`avalanche_snowman_${name}`, help).labels(chain) as Inc
    const g = (name: string, help: string) => this.#gauge(`avalanche_snowman_${name}`, help).labels(chain) as SetG
    const children: ChainChildren = {
      built: c('blks_built', 'Number of blocks that have been built locally'),
      acceptedCount: c('blks_accepted_count', 'Total # of observations of time (in ns) from issuance to acceptance'),
      acceptedSum: g('blks_accepted_sum', 'Sum of time (in ns) from the issuance of a block to its acceptance'),
      acceptedSize: g('blks_accepted_container_size_sum', 'cumulative size of all accepted blocks'),
      rejectedCount: c('blks_rejected_count', 'Total # of observations of time (in ns) from issuance to rejection'),
      rejectedSum: g('blks_rejected_sum', 'Sum of time (in ns) from the issuance of a block to its rejection'),
      rejectedSize: g('blks_rejected_container_size_sum', 'cumulative size of all rejected blocks'),
      latencies: this.#latencies.labels(chain),
      finality: this.#finality.labels(chain),
      height: g('last_accepted_height', 'last height accepted'),
      timestamp: g('last_accepted_timestamp', 'timestamp of the last accepted block in unix seconds'),
      bsAccepted: c('bs_accepted', 'Number of blocks accepted during bootstrapping'),
    }
    // every series of the chain shows from the start, at 0
    for (const k of ['built', 'acceptedCount', 'rejectedCount', 'bsAccepted'] as const) children[k].inc(0)
    for (const k of ['acceptedSum', 'acceptedSize', 'rejectedSum', 'rejectedSize'] as const) children[k].set(0)
    this.#latencies.zero({ chain })
    this.#finality.zero({ chain })
    return children
  }

  /**
   * `vm` with its blocks metered under `chain`; `normalOp` tells whether the chain is past bootstrapping.
   * The last accepted block's height and time are set now, as the reference sets them when the chain starts.
   */
  meterVm(chain: string, vm: ChainVm, normalOp: () => boolean): ChainVm {
    const m = this.#children(chain)
    const issued = new Map<string, number>()
    this.#issued.set(chain, issued)
    const issue = (id: string): void => {
      if (issued.has(id)) return
      if (issued.size >= MAX_ISSUED) issued.delete(issued.keys().next().value as string)
      issued.set(id, performance.now())
    }
    const decided = (id: string): number | undefined => {
      const at = issued.get(id)
      issued.delete(id)
      return at === undefined ? undefined : performance.now() - at
    }
    const metered = (b: VmBlock): VmBlock => ({
      id: b.id,
      parentId: b.parentId,
      height: b.height,
      timestampMs: b.timestampMs,
      bytes: b.bytes,
      async verify() {
        await b.verify()
        if (normalOp()) issue(b.id)
      },
      async accept(extra) {
        await b.accept(extra)
        m.height.set(b.height)
        m.timestamp.set(Math.floor(b.timestampMs / 1000))
        const ms = decided(b.id)
        if (!normalOp() && ms === undefined) {
          m.bsAccepted.inc()
          return
        }
        m.acceptedCount.inc()
        m.acceptedSize.inc(b.bytes.byteLength)
        if (ms === undefined) return
        m.acceptedSum.inc(ms * NS_PER_MS)
        m.latencies.observe(ms * NS_PER_MS)
        m.finality.observe(ms / 1000)
      },
      async reject() {
        await b.reject()
        const ms = decided(b.id)
        m.rejectedCount.inc()
        m.rejectedSize.inc(b.bytes.byteLength)
        if (ms !== undefined) m.rejectedSum.inc(ms * NS_PER_MS)
      },
    })
    const maybe = (b: VmBlock | undefined) => (b === undefined ? undefined : metered(b))
    const overrides: Partial<ChainVm> = {
      async initialize(ctx) {
        await vm.initialize(ctx)
        const last = vm.lastAccepted()
        m.height.set(last.height)
        const block = await vm.getBlock(last.id)
        if (block !== undefined) m.timestamp.set(Math.floor(block.timestampMs / 1000))
      },
      async buildBlock() {
        const b = await vm.buildBlock()
        if (b === undefined) return undefined
        m.built.inc()
        issue(b.id)
        return metered(b)
      },
      parseBlock: async (bytes) => metered(await vm.parseBlock(bytes)),
      getBlock: async (id) => maybe(await vm.getBlock(id)),
    }
    return new Proxy(vm, {
      get(target, prop) {
        if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof ChainVm]
        const value = Reflect.get(target, prop, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
  }
}
