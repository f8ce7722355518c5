/**
 * Reading a node's actor inspector stream (`--inspect-actors`, src/node/inspector.ts) as a tree: a page that
 * connects gets an `@xstate.actor` for every actor that exists, with its parent and systemId, then live events.
 * `watchTree` collects them until a condition over the tree holds (waiting on events, not on time).
 */
import WebSocket from 'ws'

export interface SeenActor {
  sessionId: string
  name: string
  parentId: string | undefined
  systemId: string | undefined
  snapshot: { value?: unknown; status?: string; context?: Record<string, unknown> } | undefined
}

export class ActorTree {
  readonly actors = new Map<string, SeenActor>()

  add(e: {
    type?: string
    sessionId?: string
    name?: string
    parentId?: string
    systemId?: string
    snapshot?: unknown
  }) {
    if (e.type !== '@xstate.actor' || e.sessionId === undefined) return
    this.actors.set(e.sessionId, {
      sessionId: e.sessionId,
      name: e.name ?? '',
      parentId: e.parentId,
      systemId: e.systemId,
      snapshot: e.snapshot as SeenActor['snapshot'],
    })
  }

  root(): SeenActor | undefined {
    return [...this.actors.values()].find((a) => a.parentId === undefined && a.name === 'node')
  }

  /** the actor registered under `systemId` */
  bySystemId(systemId: string): SeenActor | undefined {
    return [...this.actors.values()].find((a) => a.systemId === systemId)
  }

  childrenOf(parent: SeenActor | undefined): SeenActor[] {
    if (parent === undefined) return []
    return [...this.actors.values()].filter((a) => a.parentId === parent.sessionId)
  }

  /** systemIds of a parent's children (those that have one), sorted */
  childSystemIds(parent: SeenActor | undefined): string[] {
    return this.childrenOf(parent)
      .map((a) => a.systemId)
      .filter((id): id is string => id !== undefined)
      .sort()
  }
}

/** The inspector page URL a node printed last (`actor inspector: open this page ... url="..."`). */
export function inspectorUrl(output: string): string | undefined {
  return [...output.matchAll(/actor inspector: open this page.*url="(http:\/\/127\.0\.0\.1:\d+)"/g)].at(-1)?.[1]
}

/** Connects to the inspector stream and resolves with the tree once `ready(tree)` holds; rejects after `timeoutMs`. */
export async function watchTree(url: string, ready: (t: ActorTree) => boolean, timeoutMs = 15_000): Promise<ActorTree> {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/events`)
  const tree = new ActorTree()
  try {
    return await new Promise<ActorTree>((resolve, reject) => {
      const timer = setTimeout(() => {
        const names = [...tree.actors.values()].map((a) => a.systemId ?? a.name).join(', ')
        reject(new Error(`the tree never matched within ${timeoutMs} ms; seen: ${names}`))
      }, timeoutMs)
      ws.on('error', (err) => {
        clearTimeout(timer)
        reject(err)
      })
      ws.on('message', (data) => {
        tree.add(JSON.parse(String(data)) as Parameters<ActorTree['add']>[0])
        if (ready(tree)) {
          clearTimeout(timer)
          resolve(tree)
        }
      })
    })
  } finally {
    ws.terminate()
  }
}
