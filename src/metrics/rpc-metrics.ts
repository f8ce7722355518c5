/**
 * JSON-RPC and HTTP API metrics.
 *
 * - `firn_rpc_call_duration_seconds{endpoint, method, outcome}`: one histogram observation per JSON-RPC call an
 *   endpoint answered (its `_count` is the number of calls). `endpoint` is `info`, `admin`, `X`, `P`, or a chain's
 *   `<alias>/<path>` (`C/rpc`, `C/ws`, `C/admin`, `C/avax`); `method` is the name the endpoint resolved
 *   (`info.getNodeID`, `eth_blockNumber`) or `unknown`; `outcome` is `success` or `failure` (an error object).
 * - coreth's counters for a chain's geth-style endpoints, as `avalanche_evm_rpc_requests|success|failure{chain}`
 *   (coreth's `rpc/requests` ... through the reference's `avalanche_evm` gatherer; gauges, as there).
 * - the reference's API server metrics (avalanchego api/server/metrics.go): `avalanche_api_calls{base}`,
 *   `avalanche_api_calls_processing{base}`, `avalanche_api_calls_duration{base}` (ns), per route base (`info`,
 *   `metrics`, a chain's primary alias), counted around each route's handler (`meterRoute`).
 *
 * Per call, a series is looked up in a small map (method names are the endpoint's own, bounded) and counted in
 * plain numbers (tally.ts): prom-client reads them when /ext/metrics is scraped.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { Counter, Gauge, type Registry } from 'prom-client'
import type { Route } from '../api/http/router.js'
import type { JsonRpcEndpoint } from '../api/jsonrpc/service.js'
import type { RpcCallObserver } from '../rpc/call-observer.js'
import { counterFrom, gaugeFrom, type HistogramSeries, Tally, TallyHistogram } from './tally.js'

/** seconds: 0.5 ms .. 10 s, for calls from a cached read to an eth_call at its limit */
export const RPC_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
export const UNKNOWN_METHOD = 'unknown'

type Row = Record<'requests' | 'success' | 'failure', number>
type ApiRow = Record<'calls' | 'processing' | 'ns', number>

export class RpcMetrics {
  readonly #duration: TallyHistogram<'endpoint' | 'method' | 'outcome'>
  /** coreth's rpc counters per chain alias */
  readonly #evm = new Tally(['requests', 'success', 'failure'] as const)
  /** the API server's counters per route base */
  readonly #api = new Tally(['calls', 'processing', 'ns'] as const)

  constructor(registry: Registry) {
    const registers = [registry]
    this.#duration = new TallyHistogram(
      'firn_rpc_call_duration_seconds',
      'Time from a JSON-RPC call read to its answer, by endpoint, resolved method and outcome',
      ['endpoint', 'method', 'outcome'],
      RPC_BUCKETS,
      registry,
    )
    const evm = (name: keyof Row, help: string) =>
      new Gauge({
        name: `avalanche_evm_rpc_${name}`,
        help,
        labelNames: ['chain'],
        registers,
        collect: gaugeFrom(this.#evm, name, 'chain'),
      })
    evm('requests', 'JSON-RPC calls served by the chain (coreth rpc/requests)')
    evm('success', 'JSON-RPC calls answered with a result (coreth rpc/success)')
    evm('failure', 'JSON-RPC calls answered with an error (coreth rpc/failure)')
    new Counter({
      name: 'avalanche_api_calls',
      help: 'The number of calls this API has processed',
      labelNames: ['base'],
      registers,
      collect: counterFrom(this.#api, 'calls', 'base'),
    })
    new Gauge({
      name: 'avalanche_api_calls_processing',
      help: 'The number of calls this API is currently processing',
      labelNames: ['base'],
      registers,
      collect: gaugeFrom(this.#api, 'processing', 'base'),
    })
    new Gauge({
      name: 'avalanche_api_calls_duration',
      help: 'The total amount of time, in nanoseconds, spent handling API calls',
      labelNames: ['base'],
      registers,
      collect: gaugeFrom(this.#api, 'ns', 'base'),
    })
  }

  /** The observer of one endpoint; `evmChain` (a chain's alias) also counts coreth's rpc counters. */
  readonly endpoint = (endpoint: string, evmChain?: string): RpcCallObserver => {
    const series = new Map<string, [HistogramSeries, HistogramSeries]>()
    const evm: Row | undefined = evmChain === undefined ? undefined : this.#evm.at(evmChain)
    return {
      called: (method, ok, startMs) => {
        const seconds = (performance.now() - startMs) / 1000
        const name = method ?? UNKNOWN_METHOD
        let pair = series.get(name)
        if (pair === undefined) {
          pair = [this.#duration.series(endpoint, name, 'success'), this.#duration.series(endpoint, name, 'failure')]
          series.set(name, pair)
        }
        pair[ok ? 0 : 1].observe(seconds)
        if (evm !== undefined) {
          evm.requests++
          if (ok) evm.success++
          else evm.failure++
        }
      },
    }
  }

  /**
   * `route` counted under `base` as the reference's API server counts a handler: a JSON-RPC route per request
   * its endpoint answers (refusals before the endpoint, a 405 or 415, are not counted), a raw route per request
   * until its response closes, an upgraded connection until its socket closes.
   */
  meterRoute(base: string, route: Route): Route {
    const row: ApiRow = this.#api.at(base)
    const finish = (t0: number): void => {
      row.processing--
      row.calls++
      row.ns += Math.round((performance.now() - t0) * 1e6)
    }
    const start = (): (() => void) => {
      const t0 = performance.now()
      row.processing++
      let done = false
      return () => {
        if (done) return
        done = true
        finish(t0)
      }
    }
    if (route.kind === 'jsonrpc') {
      const inner = route.endpoint
      const endpoint: JsonRpcEndpoint = {
        handle(body, call) {
          const end = start()
          return inner.handle(body, call).finally(end)
        },
        respond(body, call) {
          const end = start()
          return inner.respond(body, call).finally(end)
        },
        // the HTTP hot path: each callback runs at most once (jsonrpc-route.ts)
        respondCb(body, call, done, fail) {
          const t0 = performance.now()
          row.processing++
          inner.respondCb(
            body,
            call,
            (reply) => {
              finish(t0)
              done(reply)
            },
            (err) => {
              finish(t0)
              fail(err)
            },
          )
        },
      }
      return { ...route, endpoint }
    }
    const handle = (req: IncomingMessage, res: ServerResponse): void => {
      res.once('close', start())
      route.handle(req, res)
    }
    const upgrade = route.upgrade
    // the rest of the route (its `untrustedOrigins` guard) stays as it is
    if (upgrade === undefined) return { ...route, kind: 'raw', handle }
    return {
      ...route,
      kind: 'raw',
      handle,
      upgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
        socket.once('close', start())
        upgrade.call(route, req, socket, head)
      },
    }
  }
}
