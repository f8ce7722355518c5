/**
 * The gauges read at scrape time (prom-client's `collect`), from what the node already keeps: nothing is counted
 * for them between scrapes.
 *
 * - `avalanche_network_peers`: connected peers (the network's sessions);
 * - `avalanche_benchlist_benched_num{chain}`, `avalanche_benchlist_benched_weight{chain}`: the chain's benchlist
 *   actor (`benchlist:<alias>`);
 * - `avalanche_snowman_bootstrap_finished{chain}` (1 in normal operation), `avalanche_snowman_bs_fetched{chain}`,
 *   `firn_bootstrap_executed{chain}`, `firn_bootstrap_round{chain}`: the chain actor's state and its bootstrapper's
 *   last progress report;
 * - `avalanche_evm_txpool_pending|queued{chain}` (coreth's legacypool `txpool/pending`, `txpool/queued`),
 *   `avalanche_evm_atomic_mempool_pending_txs|issued_txs{chain}` (coreth's atomic mempool): Firn's EVM chains;
 * - `firn_actor_mailbox_wait_seconds{actor, quantile}` and `firn_actor_mailbox_events{actor}`: how long events wait
 *   in an actor's mailbox and are processed (src/profiling/mailbox-stats.ts, the lock profile's source; p50 and
 *   p99 over its recent window, max over all), and `firn_actor_ask_seconds{actor, quantile}` /
 *   `firn_actor_asks{actor}` for `ask` round trips. Actors are named as the lock profile names them (at most 256
 *   rows, then `(other)`).
 */
import { Gauge, type Registry } from 'prom-client'
import type { ChainContext } from '../../actors/chains/chain.machine.js'
import { benchedNodeIds, benchedWeight } from '../../actors/peers/benchlist.js'
import type { BenchlistContext } from '../../actors/peers/benchlist.machine.js'
import { SystemId } from '../../actors/system-ids.js'
import { EvmChainVm } from '../chains/evm/chain-vm.js'
import type { ChainVm } from '../chains/vm.js'
import type { MailboxReport } from '../profiling/mailbox-stats.js'
import type { WaitSummary } from '../profiling/wait-stats.js'

export interface ScrapeSources {
  /** connected peers */
  peers(): number
  /** a running actor's snapshot by systemId, undefined when there is none */
  snapshot(systemId: string): { value: unknown; context: unknown } | undefined
  /** the actors' mailbox and ask waits */
  mailbox(): MailboxReport
}

export class ScrapeGauges {
  /** primary alias -> its opened VM (a chain whose VM is not installed has none) */
  readonly #vms = new Map<string, ChainVm>()

  constructor(registry: Registry, sources: ScrapeSources, chains: readonly string[]) {
    const registers = [registry]
    const vms = this.#vms
    const gauge = (name: string, help: string, labelNames: string[], collect: (g: Gauge<string>) => void) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        collect() {
          this.reset()
          collect(this)
        },
      })
    const perChain = (name: string, help: string, read: (chain: string) => number | undefined) =>
      gauge(name, help, ['chain'], (g) => {
        for (const chain of chains) {
          const v = read(chain)
          if (v !== undefined) g.set({ chain }, v)
        }
      })
    gauge('avalanche_network_peers', 'Number of network peers', [], (g) => g.set(sources.peers()))

    const bench = (chain: string) =>
      (sources.snapshot(SystemId.benchlist(chain))?.context as BenchlistContext | undefined)?.bench
    perChain('avalanche_benchlist_benched_num', 'Number of currently benched validators', (chain) => {
      const b = bench(chain)
      return b === undefined ? undefined : benchedNodeIds(b).length
    })
    perChain('avalanche_benchlist_benched_weight', 'Weight of currently benched validators', (chain) => {
      const b = bench(chain)
      return b === undefined ? undefined : benchedWeight(b)
    })

    const chainSnap = (chain: string) =>
      sources.snapshot(SystemId.chain(chain)) as { value: unknown; context: ChainContext } | undefined
    perChain(
      'avalanche_snowman_bootstrap_finished',
      'Whether or not bootstrap process has completed. 1 is success, 0 is fail or ongoing.',
      (chain) => {
        const s = chainSnap(chain)
        return s === undefined ? undefined : s.value === 'normalOp' ? 1 : 0
      },
    )
    const progress = (chain: string) => chainSnap(chain)?.context.progress ?? undefined
    perChain(
      'avalanche_snowman_bs_fetched',
      'Number of blocks fetched during bootstrapping',
      (c) => progress(c)?.fetched,
    )
    perChain('firn_bootstrap_executed', 'Blocks the last bootstrap run executed', (c) => progress(c)?.executed)
    perChain('firn_bootstrap_round', 'Round of the last bootstrap run (0 = first)', (c) => progress(c)?.round)

    const evm = (chain: string) => {
      const vm = vms.get(chain)
      return vm instanceof EvmChainVm ? vm.evm : undefined
    }
    perChain('avalanche_evm_txpool_pending', 'Executable transactions in the pool', (c) => evm(c)?.pool.stats().pending)
    perChain(
      'avalanche_evm_txpool_queued',
      'Transactions waiting for an earlier nonce',
      (c) => evm(c)?.pool.stats().queued,
    )
    perChain('avalanche_evm_atomic_mempool_pending_txs', 'Atomic txs waiting for a block', (c) => {
      return evm(c)?.atomic?.mempool.pendingCount
    })
    perChain('avalanche_evm_atomic_mempool_issued_txs', 'Atomic txs issued into a processing block', (c) => {
      const pool = evm(c)?.atomic?.mempool
      return pool === undefined ? undefined : pool.size - pool.pendingCount
    })

    // one snapshot per scrape for the four actor gauges: the first one's collect (registration order) takes it
    let report: MailboxReport | undefined
    const take = (fresh = false): MailboxReport => {
      if (fresh || report === undefined) report = sources.mailbox()
      return report
    }
    const quantiles = (g: Gauge<string>, rows: Record<string, WaitSummary>) => {
      for (const [actor, s] of Object.entries(rows)) {
        g.set({ actor, quantile: '0.5' }, s.p50Ms / 1000)
        g.set({ actor, quantile: '0.99' }, s.p99Ms / 1000)
        g.set({ actor, quantile: '1' }, s.maxMs / 1000)
      }
    }
    const counts = (g: Gauge<string>, rows: Record<string, WaitSummary>) => {
      for (const [actor, s] of Object.entries(rows)) g.set({ actor }, s.count)
    }
    gauge(
      'firn_actor_mailbox_wait_seconds',
      'Time from an event relayed to an actor until it has processed it (p50, p99 recent; 1 = max)',
      ['actor', 'quantile'],
      (g) => quantiles(g, take(true).actors),
    )
    gauge('firn_actor_mailbox_events', 'Events an actor has processed (mailbox waits measured)', ['actor'], (g) =>
      counts(g, take().actors),
    )
    gauge(
      'firn_actor_ask_seconds',
      'Round trip of a command asked of an actor (p50, p99 recent; 1 = max)',
      ['actor', 'quantile'],
      (g) => quantiles(g, take().asks),
    )
    gauge('firn_actor_asks', 'Commands asked of an actor', ['actor'], (g) => counts(g, take().asks))
  }

  /** A chain's VM once it is open: its pools are read at scrape. */
  chainOpened(chain: string, vm: ChainVm): void {
    this.#vms.set(chain, vm)
  }
}
