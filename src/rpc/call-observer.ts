/**
 * What a JSON-RPC endpoint tells about each call it answered: the one hook the node's metrics
 * (src/metrics/rpc-metrics.ts) need from the two dispatchers (src/api/jsonrpc/service.ts for the node APIs,
 * src/api/ethrpc/calls.ts for a chain's /rpc and /ws). Absent when `--api-metrics-enabled=false`.
 */
export interface RpcCallObserver {
  /**
   * One call answered (or a notification run). `method`: the name the endpoint resolved, undefined when it did not
   * resolve (an unknown method, an undecodable message): callers choose the name, so only served names become
   * label values. `ok`: answered with a result. `startMs`: `performance.now()` when the call started.
   */
  called(method: string | undefined, ok: boolean, startMs: number): void
}
