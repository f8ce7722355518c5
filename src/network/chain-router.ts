/**
 * The network's chain message router (`network.chains`): chains register their handlers of the consensus,
 * bootstrap and app protocols by chain ID (chain-inbound.ts dispatches inbound requests to them), and send their
 * requests to peers here. Every outbound request goes through the RequestTracker (adaptive timeout, benchlist) as
 * the reference's message (`PushQuery`, `Get`, `AppRequest` ...); Get -> Put does not feed the adaptive timeout,
 * AppRequest never counts on the benchlist. A request to a node without a handshaken session fails at once
 * (RequestFailedError 'failed'), to a benched node at once ('benched'); a malformed or mismatched response fails it
 * ('failed'). App gossip is fire and forget. Reference: ../shared/reference/consensus.md 3.8, 4.5, 6, 7.1.
 */
import type { PeerId } from '@libp2p/interface'
import { equals } from 'uint8arrays/equals'
import type { Chits } from '../../actors/consensus/types.js'
import type { AppReply } from '../../protocols/app/service.js'
import type { BootstrapResponse } from '../../protocols/bootstrap/service.js'
import { EngineType, MAX_CONTAINER_IDS } from '../../protocols/bootstrap/service.js'
import type { ConsensusResponse } from '../../protocols/consensus/service.js'
import { blockIdBytes, blockIdOf, blockIdsOf, chainIdBytes, chitsFromWire } from './chain-wire.js'
import type { Connections } from './connections.js'
import type { Host } from './host.js'
import type { RequestTracker, TrackedRequest } from './request-tracker.js'
import { errorText } from './types.js'

/** the exchange's own timeout outlives the tracker's by this much, so the tracker decides */
const EXCHANGE_SLACK_MS = 1_000

/** An AppError: thrown by a chain's appRequest handler to answer one, and by `appRequest` when one comes back. */
export class AppRequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
    this.name = 'AppRequestError'
  }
}

/** A chain's side of the protocols. `undefined` = do not answer (the requester times out); a throw likewise. */
export interface ChainHandlers {
  pushQuery(from: string, container: Uint8Array, requestedHeight: number): Promise<Chits | undefined>
  pullQuery(from: string, blockId: string, requestedHeight: number): Promise<Chits | undefined>
  get(from: string, blockId: string): Promise<Uint8Array | undefined>
  getAcceptedFrontier(from: string): Promise<string | undefined>
  getAccepted(from: string, ids: string[]): Promise<string[] | undefined>
  getAncestors(from: string, id: string): Promise<Uint8Array[] | undefined>
  /** throw AppRequestError -> AppError to the peer; any other throw -> no answer */
  appRequest(from: string, bytes: Uint8Array): Promise<Uint8Array>
  appGossip(from: string, bytes: Uint8Array): void
}

/** a response that does not answer its request */
class MalformedResponseError extends Error {
  override name = 'MalformedResponseError'
}

const malformed = (op: string, why: string): MalformedResponseError =>
  new MalformedResponseError(`malformed ${op} response: ${why}`)

/** A send on one connected peer: the libp2p peer, the tracker's signal, the exchange's timeout. */
type Send<T> = (peer: PeerId, options: { signal: AbortSignal; timeoutMs: number }) => Promise<T>

export interface ChainRouterDeps {
  connections: Connections
  tracker: RequestTracker
  /** the libp2p host's services, once it runs */
  services: () => Host['services']
  log: { debug(msg: string, fields?: object): void }
  now: () => number
}

export class ChainRouter {
  readonly #handlers = new Map<string, ChainHandlers>()

  constructor(private readonly d: ChainRouterDeps) {}

  /** Routes the chain's inbound messages to `handlers`; returns the unregister function. One registration a chain. */
  register(chainId: string, handlers: ChainHandlers): () => void {
    chainIdBytes(chainId)
    if (this.#handlers.has(chainId)) throw new Error(`chain ${chainId} is already registered`)
    this.#handlers.set(chainId, handlers)
    return () => {
      if (this.#handlers.get(chainId) === handlers) this.#handlers.delete(chainId)
    }
  }

  /** the registered handlers of a chain (inbound dispatch) */
  handlersOf(chainId: string): ChainHandlers | undefined {
    return this.#handlers.get(chainId)
  }

  /** NodeIDs of the handshaken peers (never ourselves) */
  connectedNodeIds(): string[] {
    return this.d.connections.connectedNodeIds()
  }

  isConnected(nodeId: string): boolean {
    return this.d.connections.isConnected(nodeId)
  }

  async pushQuery(nodeId: string, chainId: string, container: Uint8Array, requestedHeight: number): Promise<Chits> {
    const chain = chainIdBytes(chainId)
    return this.#request({ nodeId, chainId, op: 'PushQuery' }, async (peer, opts) => {
      const request = { pushQuery: { chainId: chain, container, requestedHeight } }
      return chitsOf(await this.#consensus().request(peer, request, opts), chain, 'PushQuery')
    })
  }

  async pullQuery(nodeId: string, chainId: string, blockId: string, requestedHeight: number): Promise<Chits> {
    const chain = chainIdBytes(chainId)
    const containerId = blockIdBytes(blockId)
    return this.#request({ nodeId, chainId, op: 'PullQuery' }, async (peer, opts) => {
      const request = { pullQuery: { chainId: chain, containerId, requestedHeight } }
      return chitsOf(await this.#consensus().request(peer, request, opts), chain, 'PullQuery')
    })
  }

  /** Get -> Put; its latency never feeds the adaptive timeout (reference 4.5) */
  async get(nodeId: string, chainId: string, blockId: string): Promise<Uint8Array> {
    const chain = chainIdBytes(chainId)
    const containerId = blockIdBytes(blockId)
    return this.#request({ nodeId, chainId, op: 'Get', observeLatency: false }, async (peer, opts) => {
      const { put } = await this.#consensus().request(peer, { get: { chainId: chain, containerId } }, opts)
      if (put === undefined) throw malformed('Get', 'not a Put')
      if (!equals(put.chainId, chain)) throw malformed('Get', 'another chain')
      return put.container
    })
  }

  async getAcceptedFrontier(nodeId: string, chainId: string): Promise<string> {
    const chain = chainIdBytes(chainId)
    return this.#request({ nodeId, chainId, op: 'GetAcceptedFrontier' }, async (peer, opts) => {
      const res = await this.#bootstrap().request(peer, { getAcceptedFrontier: { chainId: chain } }, opts)
      const frontier = bootstrapBody(res, 'acceptedFrontier', chain, 'GetAcceptedFrontier')
      const id = blockIdOf(frontier.containerId)
      if (id === undefined) throw malformed('GetAcceptedFrontier', 'container ID is not 32 bytes')
      return id
    })
  }

  async getAccepted(nodeId: string, chainId: string, ids: string[]): Promise<string[]> {
    const chain = chainIdBytes(chainId)
    if (ids.length > MAX_CONTAINER_IDS) throw new RangeError(`GetAccepted of ${ids.length} IDs > ${MAX_CONTAINER_IDS}`)
    const containerIds = ids.map(blockIdBytes)
    return this.#request({ nodeId, chainId, op: 'GetAccepted' }, async (peer, opts) => {
      const res = await this.#bootstrap().request(peer, { getAccepted: { chainId: chain, containerIds } }, opts)
      const accepted = blockIdsOf(bootstrapBody(res, 'accepted', chain, 'GetAccepted').containerIds)
      if (accepted === undefined) throw malformed('GetAccepted', 'a container ID is not 32 bytes')
      return accepted
    })
  }

  async getAncestors(nodeId: string, chainId: string, id: string): Promise<Uint8Array[]> {
    const chain = chainIdBytes(chainId)
    const containerId = blockIdBytes(id)
    return this.#request({ nodeId, chainId, op: 'GetAncestors' }, async (peer, opts) => {
      const request = { getAncestors: { chainId: chain, containerId, engineType: EngineType.Chain } }
      const res = await this.#bootstrap().request(peer, request, opts)
      return bootstrapBody(res, 'ancestors', chain, 'GetAncestors').containers
    })
  }

  /** Resolves with the AppResponse's bytes; rejects with AppRequestError on an AppError, else RequestFailedError. */
  async appRequest(nodeId: string, chainId: string, bytes: Uint8Array): Promise<Uint8Array> {
    const chain = chainIdBytes(chainId)
    const reply: AppReply = await this.#request(
      { nodeId, chainId, op: 'AppRequest', app: true },
      async (peer, opts) => {
        const r = await this.#app().request(peer, { chainId: chain, appBytes: bytes }, opts)
        const body = r.appResponse ?? r.appError
        if (body === undefined) throw malformed('AppRequest', 'empty reply')
        if (!equals(body.chainId, chain)) throw malformed('AppRequest', 'another chain')
        return r
      },
    )
    if (reply.appError !== undefined) throw new AppRequestError(reply.appError.errorCode, reply.appError.errorMessage)
    return reply.appResponse?.appBytes ?? new Uint8Array(0)
  }

  /** One AppGossip to each connected node of `nodeIds`; never throws or waits, failures are logged at debug. */
  appGossip(nodeIds: readonly string[], chainId: string, bytes: Uint8Array): void {
    const { connections, log } = this.d
    try {
      const service = this.d.services().appGossip
      if (service === undefined) throw new Error('the app-gossip protocol is not registered')
      const message = { chainId: chainIdBytes(chainId), appBytes: bytes }
      for (const nodeId of new Set(nodeIds)) {
        const peer = connections.peerIdOf(nodeId)
        if (peer === undefined) {
          log.debug('app gossip not sent: not connected', { nodeID: nodeId, chainID: chainId })
          continue
        }
        connections.touch(nodeId, 'out')
        service.send(peer, message).catch((err: unknown) => {
          log.debug('app gossip failed', { nodeID: nodeId, chainID: chainId, err: errorText(err) })
        })
      }
    } catch (err) {
      log.debug('app gossip failed', { chainID: chainId, err: errorText(err) })
    }
  }

  /** One tracked request to a connected peer; `send` throws to fail it ('failed'). */
  #request<T>(req: TrackedRequest, send: Send<T>): Promise<T> {
    const { connections, now } = this.d
    return this.d.tracker.request(req, async (signal, deadlineMs) => {
      const peer = connections.peerIdOf(req.nodeId)
      if (peer === undefined) throw new Error('not connected')
      connections.touch(req.nodeId, 'out')
      const answer = await send(peer, {
        signal,
        timeoutMs: Math.max(1, deadlineMs - now()) + EXCHANGE_SLACK_MS,
      })
      connections.touch(req.nodeId, 'in')
      return answer
    })
  }

  #consensus() {
    const s = this.d.services().consensus
    if (s === undefined) throw new Error('the consensus protocol is not registered')
    return s
  }

  #bootstrap() {
    const s = this.d.services().bootstrap
    if (s === undefined) throw new Error('the bootstrap protocol is not registered')
    return s
  }

  #app() {
    const s = this.d.services().app
    if (s === undefined) throw new Error('the app protocol is not registered')
    return s
  }
}

/** The Chits of a response: of the right chain, well formed; throws MalformedResponseError otherwise. */
function chitsOf(res: ConsensusResponse, chain: Uint8Array, op: string): Chits {
  if (res.chits === undefined) throw malformed(op, 'not Chits')
  if (!equals(res.chits.chainId, chain)) throw malformed(op, 'another chain')
  const chits = chitsFromWire(res.chits)
  if (chits === undefined) throw malformed(op, 'an ID is not 32 bytes')
  return chits
}

function bootstrapBody<K extends keyof BootstrapResponse>(
  res: BootstrapResponse,
  key: K,
  chain: Uint8Array,
  op: string,
): NonNullable<BootstrapResponse[K]> {
  const body = res[key]
  if (body === undefined || body === null) throw malformed(op, `not ${String(key)}`)
  if (!equals((body as { chainId: Uint8Array }).chainId, chain)) throw malformed(op, 'another chain')
  return body as NonNullable<BootstrapResponse[K]>
}
