/**
 * `--inspect-actors`: every inspection event of the actor system goes to the Stately inspector.
 *
 * A page that connects first gets the live tree: one `@xstate.actor` per actor that exists now, with its current
 * snapshot, its parent (`parentId`) and the systemId it is registered under (`systemId`, a Firn field: peer sessions
 * are registered as `peer:<NodeID>` after they are spawned), then everything live. While no page is connected the
 * relay only keeps that registry: it converts and sends events only to pages (a busy node's engine reports thousands
 * of snapshots a second).
 *
 * Firn runs its own small relay rather than `@statelyai/inspect/server`, which listens on every interface and
 * rebroadcasts whatever any client sends: this one listens on 127.0.0.1 only, sends the node's events to the
 * browsers connected to it and ignores what they send. `GET /` is a page that embeds the inspector UI
 * (loaded by the browser from stately.ai) and feeds it the events arriving over a WebSocket on the same port.
 * A page that stops reading (more than `MAX_BUFFERED` bytes queued) is disconnected.
 *
 * Only this machine's pages: a request whose Host is not `localhost` or an IP literal is refused (403, against DNS
 * rebinding), and so is a WebSocket whose Origin is not one of `origins` (the loopback origins, plus
 * `--http-trusted-origins` when given; src/api/http/origin-policy.ts).
 *
 * Loaded lazily: nodes without the flag never import it.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AnyActorRef, InspectionEvent } from 'xstate'
import { createHostFilter } from '../api/http/host-filter.js'
import { originMatcher, WS_ORIGIN_REFUSED } from '../api/http/origin-policy.js'
import type { Logger } from '../log/logger.js'

export interface ActorInspector {
  /** the page to open, with the real port when `--inspect-port=0` */
  readonly url: string
  inspect(ev: InspectionEvent): void
  stop(): Promise<void>
}

const MAX_BUFFERED = 4 * 1024 * 1024
const MAX_CLIENTS = 16
/** the live-actor registry sweeps ended actors when its size reaches a multiple of this */
const SWEEP_EVERY = 256
const INSPECTOR_UI = 'https://stately.ai/inspect'

function page(): string {
  // The inspector UI runs in the iframe and announces itself with a '@statelyai.connected' message; events
  // that arrive before that are held and handed over then.
  return `<!doctype html>
<html>
<head><meta charset="utf-8"><title>Firn actors</title>
<style>html,body,iframe{margin:0;width:100%;height:100%;border:0}</style></head>
<body>
<iframe id="ui" src="${INSPECTOR_UI}"></iframe>
<script>
  const ui = document.getElementById('ui')
  const held = []
  let ready = false
  addEventListener('message', (m) => {
    if (m.data && m.data.type === '@statelyai.connected' && !ready) {
      ready = true
      for (const ev of held.splice(0)) ui.contentWindow.postMessage(ev, '*')
    }
  })
  const socket = new WebSocket('ws://' + location.host + '/events')
  socket.onmessage = (m) => {
    const ev = JSON.parse(m.data)
    if (ready) ui.contentWindow.postMessage(ev, '*')
    else held.push(ev)
  }
</script>
</body>
</html>
`
}

/** An `@xstate.actor` event in statelyai's shape for an actor that exists now (its current snapshot). */
function actorEvent(ref: AnyActorRef, rootId: string): object {
  const config = (ref as { logic?: { config?: { id?: string } } }).logic?.config
  const name = ref.id === ref.sessionId && config?.id !== undefined ? config.id : ref.id
  return {
    type: '@xstate.actor',
    name,
    definition: safeJson(config ?? { id: name }),
    createdAt: Date.now().toString(),
    id: null,
    rootId,
    parentId: (ref as { _parent?: { sessionId: string } })._parent?.sessionId,
    sessionId: ref.sessionId,
    snapshot: ref.getSnapshot(),
  }
}

/** The parts of a snapshot a page shows: state value, context, status, output, error (not the machine object). */
function snapshotFields(snapshot: unknown): unknown {
  if (typeof snapshot !== 'object' || snapshot === null) return snapshot
  const { value, context, status, output, error } = snapshot as Record<string, unknown>
  return { value, context, status, output, error: error instanceof Error ? error.message : error }
}

/** JSON text of anything: internal `_` fields and functions left out, bigints as strings, bytes as hex, cycles cut. */
export function safeJson(value: unknown): string {
  const seen = new WeakSet<object>()
  return JSON.stringify(value, (key, v: unknown) => {
    if (key.startsWith('_') || typeof v === 'function') return undefined
    if (typeof v === 'bigint') return v.toString()
    if (v instanceof Uint8Array) return `0x${Buffer.from(v).toString('hex')}`
    if (typeof v === 'object' && v !== null) {
      if (seen.has(v)) return undefined
      seen.add(v)
    }
    return v
  })
}

export interface InspectorOptions {
  /** origins of the pages whose WebSocket is accepted (rs/cors patterns) */
  origins: readonly string[]
}

const refuse = (socket: { end(text: string): void }, status: string, text: string): void => {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`)
}

export async function startInspector(port: number, log: Logger, opts: InspectorOptions): Promise<ActorInspector> {
  const hostAllowed = createHostFilter(['localhost'])
  const originAllowed = originMatcher(opts.origins)
  const [{ createInspector }, { WebSocketServer, WebSocket }] = await Promise.all([
    import('@statelyai/inspect'),
    import('ws'),
  ])
  /** the actors that were created, by session ID, with their root's; stopped ones are dropped when seen */
  const live = new Map<string, { ref: AnyActorRef; rootId: string }>()
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 })
  const broadcast = (text: string): void => {
    for (const client of wss.clients) {
      if (client.readyState !== WebSocket.OPEN) continue
      if (client.bufferedAmount > MAX_BUFFERED) {
        log.warn('actor inspector: dropping a page that does not keep up')
        client.terminate()
        continue
      }
      client.send(text)
    }
  }
  // context and events are JSON-safe by the house rules; cap depth anyway so a large snapshot cannot stall
  const options = { serializationDepthLimit: 8, autoStart: true }
  const systemIdOf = (sessionId: string): string | undefined =>
    (live.get(sessionId)?.ref as { systemId?: string } | undefined)?.systemId
  /** statelyai's event as text, with the systemId the actor is registered under (IO slots' snapshots hold
   * subscriptions: internal `_` fields are left out) */
  const text = (event: object): string => {
    const e = event as { type?: string; sessionId?: string; snapshot?: unknown }
    if (e.type !== '@xstate.actor') return safeJson(event)
    const systemId = e.sessionId === undefined ? undefined : systemIdOf(e.sessionId)
    return safeJson({ ...event, snapshot: snapshotFields(e.snapshot), ...(systemId === undefined ? {} : { systemId }) })
  }
  const inspector = createInspector({ send: (event) => broadcast(text(event)) }, options)
  /** the live tree to one page: an `@xstate.actor` per actor that exists now, parents first */
  const sendTree = (ws: { send(text: string): void }): void => {
    for (const [sessionId, { ref, rootId }] of live) {
      if (ref.getSnapshot().status !== 'active') {
        live.delete(sessionId)
        continue
      }
      ws.send(text(actorEvent(ref, rootId)))
    }
  }

  const html = Buffer.from(page(), 'utf8')
  const server: Server = createServer((req, res) => {
    if (!hostAllowed(req.headers.host)) {
      res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8' }).end('invalid host specified\n')
      return
    }
    if (req.method !== 'GET' || (req.url !== '/' && req.url !== '/index.html')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n')
      return
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': html.length }).end(html)
  })
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy())
    const origin = req.headers.origin
    if (!hostAllowed(req.headers.host) || (origin !== undefined && !originAllowed(origin))) {
      log.debug('actor inspector: WebSocket refused', { host: req.headers.host, origin })
      refuse(socket, '403 Forbidden', WS_ORIGIN_REFUSED)
      return
    }
    if (req.url !== '/events' || wss.clients.size >= MAX_CLIENTS) {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('error', () => ws.terminate())
      // the relay only speaks: what a page sends is ignored
      sendTree(ws)
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host: '127.0.0.1', port }, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  log.info('actor inspector: open this page in a browser to watch the actors live', { url })

  return {
    url,
    inspect: (ev) => {
      if (ev.type === '@xstate.actor') {
        live.set(ev.actorRef.sessionId, { ref: ev.actorRef as AnyActorRef, rootId: ev.rootId })
        // peer sessions come and go: forget the ended ones now and then
        if (live.size % SWEEP_EVERY === 0) {
          for (const [id, { ref }] of live) if (ref.getSnapshot().status !== 'active') live.delete(id)
        }
      }
      if (wss.clients.size > 0) inspector.inspect.next?.(ev)
    },
    stop: () =>
      new Promise<void>((resolve) => {
        inspector.stop()
        for (const client of wss.clients) client.terminate()
        wss.close()
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
