/**
 * Inbound chain messages: the consensus, bootstrap, app and app-gossip handlers the host registers. A message is
 * taken only from a handshaken session (stamping its traffic and the session's messageReceived, like echo.ts);
 * malformed fields or a stranger's request reset the stream at once. A request for a chain that is not registered,
 * or that its handler leaves unanswered (undefined or a throw, logged at debug), gets no answer: the stream stays
 * silent until the request's deadline and the requester times out, as with the reference's dropped messages.
 * Consensus and bootstrap requests reach the chain as they come (the chain serialises them); app requests and
 * gossip go through a per-chain queue of `--consensus-app-concurrency` (APP_CONCURRENCY) workers, and a queued
 * request whose deadline passed is dropped. Ancestors are cut to what fits one frame (fitAncestors).
 * Reference: ../shared/reference/consensus.md 3.8, 6, 7.3.
 */
import type { Connection } from '@libp2p/interface'
import type { AppGossip, AppReply, AppRequest } from '../../protocols/app/service.js'
import { type BootstrapRequest, type BootstrapResponse, MAX_ANCESTORS } from '../../protocols/bootstrap/service.js'
import { MAX_MESSAGE_SIZE } from '../../protocols/codec/frame.js'
import type { ConsensusRequest, ConsensusResponse } from '../../protocols/consensus/service.js'
import type { InboundRequest } from '../../protocols/service/exchange.js'
import { AppRequestError, type ChainHandlers } from './chain-router.js'
import { blockIdBytes, blockIdOf, blockIdsOf, chainIdOf, chitsToWire, heightOf } from './chain-wire.js'
import type { Connections } from './connections.js'
import { errorText } from './types.js'

/** the reference's `--consensus-app-concurrency` default: app messages of a chain run on 2 workers */
export const APP_CONCURRENCY = 2

/** Runs at most `limit` tasks at once, the rest in arrival order. */
export class TaskQueue {
  #running = 0
  readonly #waiting: (() => void)[] = []

  constructor(readonly limit: number) {}

  async run<T>(task: () => Promise<T> | T): Promise<T> {
    if (this.#running >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve))
    else this.#running++
    try {
      return await task()
    } finally {
      const next = this.#waiting.shift()
      if (next !== undefined) next()
      else this.#running--
    }
  }

  /** tasks running or waiting */
  get size(): number {
    return this.#running + this.#waiting.length
  }
}

/** room left in a frame for the envelope and the chain ID */
const ANCESTORS_BUDGET = MAX_MESSAGE_SIZE - 1_024

/** The longest prefix of `containers` that fits one Ancestors frame: at most MAX_ANCESTORS, under 2 MiB. */
export function fitAncestors(containers: readonly Uint8Array[]): Uint8Array[] {
  const out: Uint8Array[] = []
  let size = 0
  for (const c of containers) {
    // tag (1) + length varint (<= 4 under 2 MiB) + bytes
    size += 5 + c.byteLength
    if (out.length >= MAX_ANCESTORS || size > ANCESTORS_BUDGET) break
    out.push(c)
  }
  return out
}

/** Resolves undefined once the request's deadline passes: the no-answer of a dropped request. */
const silence = (signal: AbortSignal): Promise<undefined> =>
  new Promise((resolve) => {
    if (signal.aborted) resolve(undefined)
    else signal.addEventListener('abort', () => resolve(undefined), { once: true })
  })

interface Routed {
  /** the sender's NodeID */
  from: string
  chainId: string
  /** the chain ID as it came, 32 bytes */
  chain: Uint8Array
  handlers: ChainHandlers
}

export interface ChainInboundDeps {
  connections: Connections
  /** a chain's registered handlers */
  handlersOf: (chainId: string) => ChainHandlers | undefined
  log: { debug(msg: string, fields?: object): void }
  /** app workers per chain (`--consensus-app-concurrency`) */
  appConcurrency?: number
}

export class ChainInbound {
  readonly #appQueues = new Map<string, TaskQueue>()

  constructor(private readonly d: ChainInboundDeps) {}

  onConsensus(req: ConsensusRequest, ctx: InboundRequest): Promise<ConsensusResponse | undefined> | undefined {
    const body = req.pushQuery ?? req.pullQuery ?? req.get
    const r = this.#route(ctx.connection, body?.chainId, 'consensus')
    if (r === 'drop') return undefined
    if (r === 'silent') return silence(ctx.signal)
    const { handlers } = r
    const from = r.from
    if (req.pushQuery !== undefined) {
      const height = heightOf(req.pushQuery.requestedHeight)
      if (height === undefined) return undefined
      const container = req.pushQuery.container
      return this.#answer(r, ctx, 'PushQuery', async () => {
        const chits = await handlers.pushQuery(from, container, height)
        return chits === undefined ? undefined : { chits: chitsToWire(r.chain, chits) }
      })
    }
    if (req.pullQuery !== undefined) {
      const height = heightOf(req.pullQuery.requestedHeight)
      const id = blockIdOf(req.pullQuery.containerId)
      if (height === undefined || id === undefined) return undefined
      return this.#answer(r, ctx, 'PullQuery', async () => {
        const chits = await handlers.pullQuery(from, id, height)
        return chits === undefined ? undefined : { chits: chitsToWire(r.chain, chits) }
      })
    }
    const get = req.get
    const id = get === undefined ? undefined : blockIdOf(get.containerId)
    if (get === undefined || id === undefined) return undefined
    return this.#answer(r, ctx, 'Get', async () => {
      const container = await handlers.get(from, id)
      return container === undefined ? undefined : { put: { chainId: r.chain, container } }
    })
  }

  onBootstrap(req: BootstrapRequest, ctx: InboundRequest): Promise<BootstrapResponse | undefined> | undefined {
    const body = req.getAcceptedFrontier ?? req.getAccepted ?? req.getAncestors
    const r = this.#route(ctx.connection, body?.chainId, 'bootstrap')
    if (r === 'drop') return undefined
    if (r === 'silent') return silence(ctx.signal)
    const { handlers } = r
    const from = r.from
    const { chain } = r
    if (req.getAcceptedFrontier !== undefined) {
      return this.#answer(r, ctx, 'GetAcceptedFrontier', async () => {
        const id = await handlers.getAcceptedFrontier(from)
        return id === undefined ? undefined : { acceptedFrontier: { chainId: chain, containerId: blockIdBytes(id) } }
      })
    }
    if (req.getAccepted !== undefined) {
      const ids = blockIdsOf(req.getAccepted.containerIds)
      if (ids === undefined) return undefined
      return this.#answer(r, ctx, 'GetAccepted', async () => {
        const accepted = await handlers.getAccepted(from, ids)
        return accepted === undefined
          ? undefined
          : { accepted: { chainId: chain, containerIds: accepted.map(blockIdBytes) } }
      })
    }
    const id = req.getAncestors === undefined ? undefined : blockIdOf(req.getAncestors.containerId)
    if (id === undefined) return undefined
    return this.#answer(r, ctx, 'GetAncestors', async () => {
      const containers = await handlers.getAncestors(from, id)
      return containers === undefined
        ? undefined
        : { ancestors: { chainId: chain, containers: fitAncestors(containers) } }
    })
  }

  onAppRequest(req: AppRequest, ctx: InboundRequest): Promise<AppReply | undefined> | undefined {
    const r = this.#route(ctx.connection, req.chainId, 'app')
    if (r === 'drop') return undefined
    if (r === 'silent') return silence(ctx.signal)
    const from = r.from
    const queue = this.#appQueue(r.chainId)
    return this.#answer(r, ctx, 'AppRequest', () =>
      queue.run(async (): Promise<AppReply | undefined> => {
        if (ctx.signal.aborted) return undefined
        try {
          return { appResponse: { chainId: r.chain, appBytes: await r.handlers.appRequest(from, req.appBytes) } }
        } catch (err) {
          if (!(err instanceof AppRequestError)) throw err
          return { appError: { chainId: r.chain, errorCode: err.code | 0, errorMessage: err.message } }
        }
      }),
    )
  }

  /** One AppGossip frame of a connected peer, on the chain's app queue; never throws. */
  onAppGossip(message: AppGossip, connection: Connection): void {
    const r = this.#route(connection, message.chainId, 'app gossip')
    if (typeof r === 'string') return
    const from = r.from
    void this.#appQueue(r.chainId)
      .run(() => r.handlers.appGossip(from, message.appBytes))
      .catch((err: unknown) =>
        this.d.log.debug('app gossip handler failed', { chainID: r.chainId, err: errorText(err) }),
      )
  }

  /**
   * The session and chain of an inbound message: 'drop' (reset the stream now) for a stranger or a malformed chain
   * ID, 'silent' (no answer) for a chain that is not registered.
   */
  #route(connection: Connection, chainBytes: Uint8Array | undefined, what: string): Routed | 'drop' | 'silent' {
    const { connections, log } = this.d
    try {
      const from = connections.connectedNodeIdOf(connection)
      if (from === undefined) return 'drop'
      connections.touch(from, 'in')
      const chainId = chainBytes === undefined ? undefined : chainIdOf(chainBytes)
      if (chainBytes === undefined || chainId === undefined) return 'drop'
      const handlers = this.d.handlersOf(chainId)
      if (handlers === undefined) {
        log.debug(`${what} message for an unregistered chain dropped`, { nodeID: from, chainID: chainId })
        return 'silent'
      }
      return { from, chainId, chain: chainBytes, handlers }
    } catch (err) {
      log.debug(`${what} message failed`, { peer: connection.remotePeer.toString(), err: errorText(err) })
      return 'drop'
    }
  }

  /** Asks the handler; an answer is sent (stamped), undefined or a throw (logged) leaves the request unanswered. */
  async #answer<T>(
    r: Routed,
    ctx: InboundRequest,
    op: string,
    ask: () => Promise<T | undefined>,
  ): Promise<T | undefined> {
    let answer: T | undefined
    try {
      answer = await ask()
    } catch (err) {
      this.d.log.debug(`${op} handler failed`, { nodeID: r.from, chainID: r.chainId, err: errorText(err) })
    }
    if (answer === undefined) return silence(ctx.signal)
    this.d.connections.touch(r.from, 'out')
    return answer
  }

  #appQueue(chainId: string): TaskQueue {
    let queue = this.#appQueues.get(chainId)
    if (queue === undefined) {
      queue = new TaskQueue(this.d.appConcurrency ?? APP_CONCURRENCY)
      this.#appQueues.set(chainId, queue)
    }
    return queue
  }
}
