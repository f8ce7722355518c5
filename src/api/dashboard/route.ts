/**
 * `/ext/dashboard`: the node's own live page (src/api/dashboard/page/, plain HTML, CSS and JavaScript read once
 * at start-up; nothing is fetched from anywhere else, and its Content-Security-Policy forbids it) and its stream,
 * `/ext/dashboard/events`, as Server-Sent Events:
 *
 * - `hello` once: the samples kept so far (the charts' history);
 * - `frame` every second, and at most every `minFrameGapMs` while actors change: the whole view (actors, chains,
 *   peers, node) and the samples taken since the previous frame; an actor's context only when it changed since the
 *   previous frame (a page's first frame has them all).
 *
 * Frames are built once for every page (an RxJS `share` of a timer and the actor system's changes, running only
 * while a page is connected). Each page's unsent bytes are bounded: a page that stops reading is disconnected
 * (its EventSource reconnects and starts over with `hello`). At most `maxClients` pages at once (503 beyond).
 * Every request passes `dashboardAccess` (Host and Origin, access.ts) first. The dashboard only reads.
 */
import { readFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { asyncScheduler, interval, map, merge, type Observable, type Subscription, share, throttleTime } from 'rxjs'
import { httpError } from '../http/plain.js'
import type { RawRoute } from '../http/router.js'
import { dashboardAccess } from './access.js'
import type { Sampler } from './samples.js'

export interface DashboardLog {
  debug(msg: string, fields?: object): void
  warn(msg: string, fields?: object): void
}

export interface DashboardRouteOptions {
  /** `--http-allowed-hosts` (access.ts) */
  allowedHosts: readonly string[]
  /** the whole view now: actors, chains, peers, node (JSON-safe); `shared`: actors' contexts only when changed */
  view: (shared: boolean) => object
  sampler: Sampler
  /** something in the actor system changed (a new actor, a snapshot) */
  changes$: Observable<void>
  maxClients?: number
  /** a page with more unsent bytes than this is disconnected */
  maxBufferedBytes?: number
  frameIntervalMs?: number
  minFrameGapMs?: number
  log?: DashboardLog
}

export interface DashboardRoute extends RawRoute {
  /** the endpoints under `/ext/dashboard` this route serves */
  readonly endpoints: readonly string[]
  /** pages connected to the stream */
  readonly clients: number
  /** ends every stream (before the HTTP server closes) */
  close(): void
}

export const DASHBOARD_BASE = '/ext/dashboard'
const PAGE_DIR = new URL('./page/', import.meta.url)
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

interface Asset {
  type: string
  body: Buffer
}

function loadAssets(): Map<string, Asset> {
  const read = (name: string, type: string): Asset => ({ type, body: readFileSync(new URL(name, PAGE_DIR)) })
  return new Map([
    ['', read('index.html', 'text/html; charset=utf-8')],
    ['/dashboard.js', read('dashboard.js', 'text/javascript; charset=utf-8')],
    ['/dashboard.css', read('dashboard.css', 'text/css; charset=utf-8')],
  ])
}

const sse = (event: string, data: string): string => `event: ${event}\ndata: ${data}\n\n`

export function createDashboardRoute(opts: DashboardRouteOptions): DashboardRoute {
  const assets = loadAssets()
  const access = dashboardAccess(opts.allowedHosts)
  const maxClients = opts.maxClients ?? 8
  const maxBuffered = opts.maxBufferedBytes ?? 1024 * 1024
  const streams = new Map<ServerResponse, Subscription>()
  let lastSampleAt = 0

  /** a shared frame (every page's: the new samples, changed contexts) or a page's first (no samples, all) */
  const frameText = (shared: boolean): string => {
    const samples = shared ? opts.sampler.since(lastSampleAt) : []
    const last = samples.at(-1)
    if (last !== undefined) lastSampleAt = last.at
    return sse('frame', JSON.stringify({ ...opts.view(shared), samples }))
  }
  // one frame for every page, built only while pages are connected
  const frames$ = merge(
    interval(opts.frameIntervalMs ?? 1000),
    opts.changes$.pipe(throttleTime(opts.minFrameGapMs ?? 250, asyncScheduler, { leading: true, trailing: true })),
  ).pipe(
    map(() => frameText(true)),
    share(),
  )

  const stream = (req: IncomingMessage, res: ServerResponse): void => {
    if (streams.size >= maxClients) {
      httpError(res, 503, `too many dashboard pages open (at most ${maxClients})`)
      return
    }
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    })
    const end = (): void => {
      streams.get(res)?.unsubscribe()
      streams.delete(res)
    }
    const send = (text: string): void => {
      if (res.destroyed) return
      if (res.writableLength > maxBuffered) {
        opts.log?.warn('dashboard: dropping a page that does not keep up', { buffered: res.writableLength })
        end()
        res.destroy()
        return
      }
      res.write(text)
    }
    send(`retry: 2000\n\n${sse('hello', JSON.stringify({ samples: opts.sampler.history() }))}`)
    send(frameText(false))
    if (res.destroyed) return
    streams.set(res, frames$.subscribe(send))
    req.once('close', end)
    res.once('close', end)
  }

  return {
    kind: 'raw',
    endpoints: ['', ...[...assets.keys()].filter((k) => k !== ''), '/events'],
    get clients() {
      return streams.size
    },
    handle(req, res) {
      const path = (req.url ?? '').split('?')[0]!
      const endpoint = path.startsWith(DASHBOARD_BASE) ? path.slice(DASHBOARD_BASE.length) : path
      const refused = access(req)
      if (refused !== undefined) {
        opts.log?.debug('dashboard: request refused', { reason: refused, url: req.url })
        httpError(res, 403, refused)
        return
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('Allow', 'GET, HEAD')
        httpError(res, 405, 'method not allowed: the dashboard only reads (GET)')
        return
      }
      if (endpoint === '/events') return stream(req, res)
      const asset = assets.get(endpoint)
      if (asset === undefined) {
        httpError(res, 404, '404 page not found')
        return
      }
      res.writeHead(200, {
        'Content-Type': asset.type,
        'Content-Length': asset.body.length,
        'Cache-Control': 'no-cache',
        'Content-Security-Policy': CSP,
        'X-Content-Type-Options': 'nosniff',
        'X-Frame-Options': 'DENY',
        'Referrer-Policy': 'no-referrer',
        'Cross-Origin-Resource-Policy': 'same-origin',
      })
      res.end(req.method === 'HEAD' ? undefined : asset.body)
    },
    close() {
      for (const [res, sub] of streams) {
        sub.unsubscribe()
        res.end()
      }
      streams.clear()
    },
  }
}
