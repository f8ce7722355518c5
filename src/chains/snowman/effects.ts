/**
 * The engine's IO (reference consensus.md 7.2-7.3): carries out the effects the Snowman engine emits and sends the
 * answers back as engine events (`send`). VM work (verify, build, accept, reject, set preference) runs strictly in
 * order on one lane; network sends run concurrently through the chain router (request tracker, benchlist). Queries
 * to self loop back without the network. Inbound queries wait here for their chits effect. Containers are parsed
 * here before the engine sees them (in arrival order: a query waits for the containers of earlier ones to be
 * parsed); their bytes wait in `BlockBytes` for the effect that needs them.
 */
import type { EngineMachineEvent } from '../../../actors/consensus/engine.machine.js'
import type { EngineEffect } from '../../../actors/consensus/engine-types.js'
import type { Chits, EngineBlock } from '../../../actors/consensus/types.js'
import type { Logger } from '../../log/logger.js'
import type { ChainRouter } from '../../network/chain-router.js'
import type { BlockBytes } from './block-bytes.js'
import type { BuildResult, SignedBlocks } from './signed-blocks.js'

export interface EffectRunnerDeps {
  chainId: string
  self: string
  blocks: Pick<SignedBlocks, 'parse' | 'verify' | 'build' | 'accept' | 'reject' | 'setPreference' | 'lastAccepted'>
  router: Pick<ChainRouter, 'pushQuery' | 'pullQuery' | 'get'>
  log: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>
  /** the containers behind the engine's blocks */
  bytes: BlockBytes
  /** an event for the engine (an inbound query, or the answer to an effect) */
  send: (event: EngineMachineEvent) => void
  /** after every accept, preference change and built block: the builder recomputes its slot */
  onTipChanged: () => void
  /** a build came back without a block (no tx fits, or my slot passed) */
  onBuildEmpty: () => void
  /** after each accepted block */
  onAccepted?: (id: string) => void
}

/** how long an inbound query waits for its chits before giving up (the engine always answers at once) */
const CHITS_WAIT_MS = 5_000
/** inbound queries waiting for chits, at most */
const MAX_WAITING = 4096

/** The engine's view of a parsed block: its place in the chain, without the bytes. */
export const engineBlockOf = (b: EngineBlock): EngineBlock => ({
  id: b.id,
  parentId: b.parentId,
  height: b.height,
  timestampMs: b.timestampMs,
})

type Query = { block?: EngineBlock; blockId?: string; requestedHeight: number }

export class EffectRunner {
  #lane: Promise<void> = Promise.resolve()
  /** inbound queries reach the engine in arrival order, each once its container is parsed */
  #inbound: Promise<unknown> = Promise.resolve()
  #nextInbound = 1
  readonly #waiting = new Map<number, (c: Chits | undefined) => void>()
  #stopped = false
  #accepted = 0

  constructor(private readonly deps: EffectRunnerDeps) {}

  get acceptedCount(): number {
    return this.#accepted
  }

  stop(): void {
    this.#stopped = true
    for (const resolve of this.#waiting.values()) resolve(undefined)
    this.#waiting.clear()
  }

  /** the VM lane drained (tests, shutdown) */
  idle(): Promise<void> {
    return this.#lane
  }

  /** An inbound PushQuery: its container parsed (bytes kept), then asked as `query` in arrival order. */
  pushQuery(from: string, container: Uint8Array, requestedHeight: number): Promise<Chits | undefined> {
    if (this.#stopped) return Promise.resolve(undefined)
    const prepared = this.deps.blocks.parse(container).then((parsed): Query => {
      if (parsed === undefined) return { requestedHeight }
      this.deps.bytes.set(parsed.id, parsed.bytes)
      return { block: engineBlockOf(parsed), requestedHeight }
    })
    return this.#inOrder(from, prepared)
  }

  /** An inbound PullQuery, in arrival order with the push queries. */
  pullQuery(from: string, blockId: string, requestedHeight: number): Promise<Chits | undefined> {
    if (this.#stopped) return Promise.resolve(undefined)
    return this.#inOrder(from, Promise.resolve({ blockId, requestedHeight }))
  }

  #inOrder(from: string, prepared: Promise<Query>): Promise<Chits | undefined> {
    const turn = this.#inbound.then(() => prepared)
    const answer = turn.then(
      (q) => this.query(from, q),
      () => undefined,
    )
    this.#inbound = turn.catch(() => undefined)
    return answer
  }

  /** An inbound query: the engine answers with a chits effect carrying this query's inbound ID. */
  query(from: string, q: Query): Promise<Chits | undefined> {
    if (this.#stopped || this.#waiting.size >= MAX_WAITING) return Promise.resolve(undefined)
    const inboundId = this.#nextInbound++
    const answer = new Promise<Chits | undefined>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(inboundId)
        resolve(undefined)
      }, CHITS_WAIT_MS)
      timer.unref()
      this.#waiting.set(inboundId, (c) => {
        clearTimeout(timer)
        resolve(c)
      })
    })
    this.deps.send({ type: 'query', from, inboundId, ...q })
    return answer
  }

  /** a query to ourselves, asked on a later turn (never from inside the engine's own transition) */
  async #selfQuery(q: Query): Promise<Chits> {
    await Promise.resolve()
    const chits = await this.query(this.deps.self, q)
    if (chits === undefined) throw new Error('no chits from self')
    return chits
  }

  run(effects: readonly EngineEffect[]): void {
    for (const e of effects) this.#one(e)
  }

  #feed(event: EngineMachineEvent): void {
    if (!this.#stopped) this.deps.send(event)
  }

  #onLane(what: string, work: () => Promise<void>): void {
    this.#lane = this.#lane.then(work).catch((err: unknown) => {
      this.deps.log.error(`${what} failed`, { err: err instanceof Error ? err.message : String(err) })
    })
  }

  #one(e: EngineEffect): void {
    const { deps } = this
    switch (e.type) {
      case 'chits': {
        const resolve = this.#waiting.get(e.inboundId)
        this.#waiting.delete(e.inboundId)
        resolve?.(e.chits)
        return
      }
      case 'pushQuery':
      case 'pullQuery': {
        const container = e.type === 'pushQuery' ? deps.bytes.get(e.block.id) : undefined
        if (e.type === 'pushQuery') deps.bytes.delete(e.block.id)
        for (const to of e.to) {
          const asked =
            to === deps.self
              ? this.#selfQuery({
                  requestedHeight: e.requestedHeight,
                  ...(e.type === 'pushQuery' ? { block: e.block } : { blockId: e.blockId }),
                })
              : e.type === 'pushQuery'
                ? container === undefined
                  ? Promise.reject(new Error(`no container held for ${e.block.id}`))
                  : deps.router.pushQuery(to, deps.chainId, container, e.requestedHeight)
                : deps.router.pullQuery(to, deps.chainId, e.blockId, e.requestedHeight)
          asked.then(
            (chits) => this.#feed({ type: 'chits', from: to, requestId: e.requestId, chits }),
            (err: unknown) => {
              deps.log.debug('query failed', { to, requestId: e.requestId, err: String(err) })
              this.#feed({ type: 'queryFailed', from: to, requestId: e.requestId })
            },
          )
        }
        return
      }
      case 'get':
        deps.router.get(e.to, deps.chainId, e.blockId).then(
          async (container) => {
            const parsed = await deps.blocks.parse(container)
            if (parsed === undefined) {
              this.#feed({ type: 'put', from: e.to, blockId: e.blockId })
              return
            }
            deps.bytes.set(parsed.id, parsed.bytes)
            this.#feed({ type: 'put', from: e.to, block: engineBlockOf(parsed), blockId: e.blockId })
          },
          () => this.#feed({ type: 'getFailed', from: e.to, blockId: e.blockId }),
        )
        return
      case 'verify':
        this.#onLane('verify', async () => {
          let ok = true
          try {
            const bytes = deps.bytes.get(e.block.id)
            if (bytes === undefined) throw new Error('its container is no longer held')
            await deps.blocks.verify({ ...e.block, bytes })
          } catch (err) {
            ok = false
            deps.log.debug('block failed verification', {
              id: e.block.id,
              height: e.block.height,
              err: err instanceof Error ? err.message : String(err),
            })
          }
          // verified blocks' containers are the VM side's now (signed-blocks.ts); a failed one may come again
          deps.bytes.delete(e.block.id)
          this.#feed({ type: 'verified', blockId: e.block.id, ok })
        })
        return
      case 'build':
        this.#onLane('build', async () => {
          let result: BuildResult
          try {
            result = await deps.blocks.build()
          } catch (err) {
            deps.log.warn('block build failed', { err: err instanceof Error ? err.message : String(err) })
            result = { kind: 'empty' }
          }
          if (result.kind !== 'built') {
            this.#feed({ type: 'buildFailed' })
            // no tx fits: wait for a new one; my slot passed: wait for my next slot
            return result.kind === 'empty' ? deps.onBuildEmpty() : deps.onTipChanged()
          }
          deps.bytes.set(result.block.id, result.block.bytes)
          this.#feed({ type: 'built', block: engineBlockOf(result.block) })
          deps.log.debug('built block', { id: result.block.id, height: result.block.height })
          deps.onTipChanged()
        })
        return
      case 'accept':
        deps.bytes.delete(e.blockId)
        this.#onLane('accept', async () => {
          await deps.blocks.accept(e.blockId)
          this.#accepted++
          deps.log.debug('accepted block', { id: e.blockId, height: deps.blocks.lastAccepted().height })
          deps.onAccepted?.(e.blockId)
          deps.onTipChanged()
        })
        return
      case 'reject':
        deps.bytes.delete(e.blockId)
        this.#onLane('reject', () => deps.blocks.reject(e.blockId))
        return
      case 'setPreference':
        this.#onLane('set preference', async () => {
          deps.blocks.setPreference(e.blockId)
          deps.onTipChanged()
        })
        return
    }
  }
}
