/**
 * `--inspect-actors`: relay every inspection event of the actor system to the Stately inspector. A local
 * relay (`@statelyai/inspect/server`) serves a page on `http://localhost:<inspect-port>` that embeds the
 * inspector UI; open it in a browser to watch the actor tree live. Loaded lazily: nodes without the flag never
 * import it.
 */
import type { InspectionEvent } from 'xstate'
import type { Logger } from '../log/logger.js'

export interface ActorInspector {
  inspect(ev: InspectionEvent): void
  stop(): void
}

export async function startInspector(port: number, log: Logger): Promise<ActorInspector> {
  const { createInspectorServer } = await import('@statelyai/inspect/server')
  const { createWebSocketInspector } = await import('@statelyai/inspect')
  const server = createInspectorServer({ port, autoOpen: false })
  const inspector = createWebSocketInspector({
    url: `ws://127.0.0.1:${port}`,
    // context and events are JSON-safe by the house rules; cap depth anyway so a large snapshot cannot stall
    serializationDepthLimit: 8,
  })
  log.info('actor inspector: open this page in a browser to watch the actors live', {
    url: `http://localhost:${port}`,
  })
  return {
    inspect: (ev) => inspector.inspect.next?.(ev),
    stop: () => {
      inspector.stop()
      server.stop()
    },
  }
}
