/**
 * The node's metrics: one prom-client Registry of its own (never the global default, so two nodes in one process
 * never mix), holding prom-client's default process and Node.js metrics under the reference's `avalanche_process_`
 * prefix (`avalanche_process_process_cpu_seconds_total`, `..._process_resident_memory_bytes`,
 * `..._nodejs_heap_size_used_bytes`, `..._nodejs_eventloop_lag_p99_seconds` ...) and the node's own
 * (rpc-metrics.ts, chain-metrics.ts, scrape-gauges.ts, stream-metrics.ts). Built by the composition root only when
 * `--api-metrics-enabled` is on; off, nothing is counted anywhere. Served by src/api/metrics/route.ts.
 */
import { collectDefaultMetrics, Registry } from 'prom-client'
import type { RouteWrapper } from '../api/http/router.js'
import { ChainMetrics } from './chain-metrics.js'
import { RpcMetrics } from './rpc-metrics.js'
import { ScrapeGauges, type ScrapeSources } from './scrape-gauges.js'
import { StreamMetrics } from './stream-metrics.js'

/** the prefix of prom-client's default metrics: the reference registers Go's process collector under it */
export const PROCESS_PREFIX = 'avalanche_process_'

export class NodeMetrics {
  readonly registry = new Registry()
  readonly rpc: RpcMetrics
  readonly chains: ChainMetrics
  readonly streams: StreamMetrics
  readonly scrape: ScrapeGauges

  /** `chains`: every declared chain's primary alias */
  constructor(sources: ScrapeSources, chains: readonly string[]) {
    collectDefaultMetrics({ register: this.registry, prefix: PROCESS_PREFIX })
    this.rpc = new RpcMetrics(this.registry)
    this.chains = new ChainMetrics(this.registry)
    this.streams = new StreamMetrics(this.registry)
    this.scrape = new ScrapeGauges(this.registry, sources, chains)
  }

  /** The HTTP server's route wrapper: each route counted under its base, a chain's (`bc/<ID>`) as its alias. */
  routeWrapper(primaryAlias: (chainId: string) => string): RouteWrapper {
    return (base, route) => this.rpc.meterRoute(base.startsWith('bc/') ? primaryAlias(base.slice(3)) : base, route)
  }

  /** The Prometheus text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics()
  }

  get contentType(): string {
    return this.registry.contentType
  }
}
