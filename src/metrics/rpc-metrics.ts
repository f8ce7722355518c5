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
 * Per call, a child is looked up in a small map (method names are the endpoint's own, bounded) and observed: no
 * label object is built on the hot path.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { Counter, Gauge, Histogram, type Registry } from 'prom-client'
import type { Route } from '../api/http/router.js'
import type { JsonRpcEndpoint } from '../api/jsonrpc/service.js'
import type { RpcCallObserver } from '../rpc/call-observer.js'

/** seconds: 0.5 ms .. 10 s, for calls from a cached read to an eth_call at its limit */
export const RPC_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
export const UNKNOWN_METHOD = 'unknown'

type Child = { observe(value: number): void }
type Inc = { inc(value?: number): void }

export class RpcMetrics {
  readonly #duration: Histogram<'endpoint' | 'method' | 'outcome'>
  readonly #evm: Record<'requests' | 'success' | 'failure', Gauge<'chain'>>
  readonly #calls: Counter<'base'>
  readonly #processing: Gauge<'base'>
  readonly #callsNs: Gauge<'base'>

  constructor(registry: Registry) {
    const registers = [registry]
    this.#duration = new Histogram({
      name: 'firn_rpc_call_duration_seconds',
      help: 'Time from a JSON-RPC call read to its answer, by endpoint, resolved method and outcome',
      labelNames: ['endpoint', 'method', 'outcome'],
      buckets: RPC_BUCKETS,
      registers,
    })
    const evm = (name: 'requests' | 'success' | 'failure', help: string) =>
      new Gauge({ name: `avalanche_evm_rpc_${name}`, help, labelNames: ['chain'], registers })
    this.#evm = {
      requests: evm('requests', 'JSON-RPC calls served by the chain (coreth rpc/requests)'),
      success: evm('success', 'JSON-RPC calls answered with a result (coreth rpc/success)'),
      failure: evm('failure', 'JSON-RPC calls answered with an error (coreth rpc/failure)'),
    }
    this.#calls = new Counter({
      name: 'avalanche_api_calls',
      help: 'The number of calls this API has processed',
      labelNames: ['base'],
      registers,
    })
    this.#processing = new Gauge({
      name: 'avalanche_api_calls_processing',
      help: 'The number of calls this API is currently processing',
      labelNames: ['base'],
      registers,
    })
    this.#callsNs = new Gauge({
      name: 'avalanche_api_calls_duration',
      help: 'The total amount of time, in nanoseconds, spent handling API calls',
      labelNames: ['base'],
      registers,
    })
  }

  /** The observer of one endpoint; `evmChain` (a chain's alias) also counts coreth's rpc counters. */
  readonly endpoint = (endpoint: string, evmChain?: string): RpcCallObserver => {
    const children = new Map<string, [Child, Child]>()
    const evm =
      evmChain === undefined
        ? undefined
        : {
            requests: this.#evm.requests.labels(evmChain) as Inc,
            success: this.#evm.success.labels(evmChain) as Inc,
            failure: this.#evm.failure.labels(evmChain) as Inc,
          }
    return {
      called: (method, ok, startMs) => {
        const seconds = (performance.now() - startMs) / 1000
        const name = method ?? UNKNOWN_METHOD
        let pair = children.get(name)
        if (pair === undefined) {
          pair = [this.#duration.labels(endpoint, name, 'success'), this.#duration.labels(endpoint, name, 'failure')]
          children.set(name, pair)
        }
        pair[ok ? 0 : 1].observe(seconds)
        if (evm !== undefined) {
          evm.requests.inc()
          ;(ok ? evm.success : evm.failure).inc()
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
    const calls = this.#calls.labels(base) as Inc
    const processing = this.#processing.labels(base) as Inc & { dec(): void }
    const total = this.#callsNs.labels(base) as Inc
    const start = (): (() => void) => {
      const t0 = performance.now()
      processing.inc()
      let done = false
      return () => {
        if (done) return
        done = true
        processing.dec()
        calls.inc()
        total.inc(Math.round((performance.now() - t0) * 1e6))
      }
    }
    if (route.kind === 'jsonrpc') {
      const inner = route.endpoint
      const endpoint: JsonRpcEndpoint = {
        handle(body, call) {
          const finish = start()
          return inner.handle(body, call).finally(finish)
        },
        respond(body, call) {
          const finish = start()
          return inner.respond(body, call).finally(finish)
        },
        respondCb(body, call, done, fail) {
          const finish = start()
          inner.respondCb(
            body,
            call,
            (reply) => {
              finish()
              done(reply)
            },
            (err) => {
              finish()
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
