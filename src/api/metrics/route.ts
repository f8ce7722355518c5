/**
 * `/ext/metrics`: the node's metrics (src/metrics/node-metrics.ts) in Prometheus' text format, version 0.0.4, as
 * prom-client renders them. GET only: any other method is a 405 with `Allow: GET` (the reference serves any
 * method). A failing render is a 500 with the error's text.
 */
import { httpError } from '../http/plain.js'
import type { RawRoute } from '../http/router.js'

export interface MetricsSource {
  render(): Promise<string>
  readonly contentType: string
}

export function metricsRoute(source: MetricsSource): RawRoute {
  return {
    kind: 'raw',
    handle(req, res) {
      if (req.method !== 'GET') {
        res.setHeader('Allow', 'GET')
        httpError(res, 405, `method ${req.method} not allowed: use GET`)
        return
      }
      source.render().then(
        (text) => {
          if (res.destroyed) return
          const body = Buffer.from(text, 'utf8')
          res.writeHead(200, { 'Content-Type': source.contentType, 'Content-Length': body.length })
          res.end(body)
        },
        (err: unknown) => {
          if (!res.destroyed && !res.headersSent) httpError(res, 500, `metrics: ${String(err)}`)
        },
      )
    },
  }
}
